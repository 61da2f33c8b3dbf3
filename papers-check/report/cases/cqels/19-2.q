# T10: two event clauses JOIN only where their intervals overlap (docs/semantics/cqels.md#cqels-G10)
# until 22
PREFIX : <http://example.org/>
SELECT ?v ?s
FROM NAMED WINDOW :W1 ON :s1 [RANGE 10]
FROM NAMED WINDOW :W2 ON :s2 [RANGE 10]
WHERE {
  WINDOW :W1 { ?v :delayAt ?s }
  WINDOW :W2 { ?v :near ?s }
}
