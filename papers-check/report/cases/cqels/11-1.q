# The running example (Examples 6/7) on D_sub (Example 2), horizon 16: FINDINGS 2, 4 and 11
# (docs/semantics/cqels.md#cqels-T1)
# static <http://example.org/conn1> <http://example.org/beg> <http://example.org/m> .
# static <http://example.org/conn1> <http://example.org/end> <http://example.org/b> .
# static <http://example.org/conn1> <http://example.org/means> <http://example.org/subway> .
# static <http://example.org/conn1> <http://example.org/dur> <http://example.org/3m> .
# static <http://example.org/conn2> <http://example.org/beg> <http://example.org/b> .
# static <http://example.org/conn2> <http://example.org/end> <http://example.org/c> .
# static <http://example.org/conn2> <http://example.org/means> <http://example.org/subway> .
# static <http://example.org/conn2> <http://example.org/dur> <http://example.org/2m> .
# static <http://example.org/conn3> <http://example.org/beg> <http://example.org/h> .
# static <http://example.org/conn3> <http://example.org/end> <http://example.org/g> .
# static <http://example.org/conn3> <http://example.org/means> <http://example.org/subway> .
# static <http://example.org/conn3> <http://example.org/dur> <http://example.org/3m> .
# static <http://example.org/conn4> <http://example.org/beg> <http://example.org/g> .
# static <http://example.org/conn4> <http://example.org/end> <http://example.org/c> .
# static <http://example.org/conn4> <http://example.org/means> <http://example.org/tram> .
# static <http://example.org/conn4> <http://example.org/dur> <http://example.org/5m> .
# static <http://example.org/a1> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/subway> .
# static <http://example.org/d1> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/subway> .
# until 16
PREFIX : <http://example.org/>
PREFIX ex: <http://example.org/>
SELECT ?s
FROM ex:transportationMap
FROM NAMED WINDOW :W ON ex:publicTransport [RANGE 10m]
WHERE {
  WINDOW :W {
    SEQ ({?v :delayAt ?s}, {?v :delayAt ?s}, !{?v :arriveAt ?s })
  }
  ?v rdf:type :subway .
  ?s (^:beg/[:means :subway]/:end)+ :c.
}
