# Example 4 of the paper (plain CQELS-QL): stops with subway delays in the last 10 minutes.
# Case T4 (docs/semantics/cqels.md#cqels-T4).
PREFIX : <http://example.org/>
PREFIX ex: <http://example.org/>
SELECT ?s
FROM ex:transportationMap
FROM NAMED WINDOW :W ON ex:publicTransport [RANGE 10m]
WHERE {
  WINDOW :W { ?v :delayAt ?s }
  ?v rdf:type :subway .
}
