# FINDINGS 13 (NOW, not defined for intervals, Options.now, docs/semantics/cqels.md#cqels-G14)
# until 5
PREFIX : <http://example.org/>
SELECT ?a ?b
FROM NAMED WINDOW :W ON :s [NOW]
WHERE {
  WINDOW :W { ?a :p ?b }
}
