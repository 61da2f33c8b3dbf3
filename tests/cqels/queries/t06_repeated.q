# Case T6: repeated events give every combination (no consumption policy, docs/semantics/cqels.md#cqels-G28).
PREFIX : <http://example.org/>
SELECT ?v ?s
FROM NAMED WINDOW :W ON :publicTransport [RANGE 10]
WHERE {
  WINDOW :W { SEQ({?v :delayAt ?s}, {?v :delayAt ?s}) }
}
