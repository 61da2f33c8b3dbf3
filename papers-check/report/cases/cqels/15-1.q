# FINDINGS 15 ('sub-bag', docs/semantics/cqels.md#cqels-G16): two elements with the same graph clip to the same
# interval from t = 3 on: one answer
# until 4
PREFIX : <http://example.org/>
SELECT ?a ?b
FROM NAMED WINDOW :W ON :s [RANGE 1]
WHERE {
  WINDOW :W { ?a :p ?b }
}
