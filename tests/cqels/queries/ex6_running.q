# Example 6 of the paper, the running example: stops reachable from the centre by subway with a repeated delay of
# a subway and no arrival of it afterwards, within 10 minutes.  Cases T1, T5, T14 (docs/semantics/cqels.md#cqels-T1).
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
