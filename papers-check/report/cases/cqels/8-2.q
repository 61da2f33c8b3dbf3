# FINDINGS 8 (formula (17) lost, Options.static_interval, docs/semantics/cqels.md#cqels-G12): T14, D changes
# at 17 by a triple the query does not use
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
# static@17 <http://example.org/conn1> <http://example.org/beg> <http://example.org/m> .
# static@17 <http://example.org/conn1> <http://example.org/end> <http://example.org/b> .
# static@17 <http://example.org/conn1> <http://example.org/means> <http://example.org/subway> .
# static@17 <http://example.org/conn1> <http://example.org/dur> <http://example.org/3m> .
# static@17 <http://example.org/conn2> <http://example.org/beg> <http://example.org/b> .
# static@17 <http://example.org/conn2> <http://example.org/end> <http://example.org/c> .
# static@17 <http://example.org/conn2> <http://example.org/means> <http://example.org/subway> .
# static@17 <http://example.org/conn2> <http://example.org/dur> <http://example.org/2m> .
# static@17 <http://example.org/conn3> <http://example.org/beg> <http://example.org/h> .
# static@17 <http://example.org/conn3> <http://example.org/end> <http://example.org/g> .
# static@17 <http://example.org/conn3> <http://example.org/means> <http://example.org/subway> .
# static@17 <http://example.org/conn3> <http://example.org/dur> <http://example.org/3m> .
# static@17 <http://example.org/conn4> <http://example.org/beg> <http://example.org/g> .
# static@17 <http://example.org/conn4> <http://example.org/end> <http://example.org/c> .
# static@17 <http://example.org/conn4> <http://example.org/means> <http://example.org/tram> .
# static@17 <http://example.org/conn4> <http://example.org/dur> <http://example.org/5m> .
# static@17 <http://example.org/a1> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/subway> .
# static@17 <http://example.org/d1> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/subway> .
# static@17 <http://example.org/x> <http://example.org/unrelated> <http://example.org/y> .
# until 17
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
