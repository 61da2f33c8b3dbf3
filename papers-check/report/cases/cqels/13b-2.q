# FINDINGS 13 (TRIPLES n, not defined for intervals, Options.triples_unit, docs/semantics/cqels.md#cqels-G14)
# until 3
PREFIX : <http://example.org/>
SELECT ?o
FROM NAMED WINDOW :W ON :s [TRIPLES 2]
WHERE {
  WINDOW :W { ?s :p ?o }
}
