# FINDINGS 7 (RANGE's lost line, docs/semantics/cqels.md#cqels-G1): an element [1,4] under RANGE 2:
# [max(t1, t-T), min(t2, t)], kept while that is not empty; the window [t-T, t] is closed
# until 7
PREFIX : <http://example.org/>
SELECT ?a ?b
FROM NAMED WINDOW :W ON :s [RANGE 2]
WHERE {
  WINDOW :W { ?a :p ?b }
}
