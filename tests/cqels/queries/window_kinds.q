# Every window kind (docs/semantics/cqels.md#cqels-1.5): NOW, ALL, TRIPLES n, RANGE T SLIDE d.
PREFIX : <http://example.org/>
SELECT *
FROM NAMED WINDOW :Now ON :s1 [NOW]
FROM NAMED WINDOW :All ON :s2 [ALL]
FROM NAMED WINDOW :Last ON :s3 [TRIPLES 5]
FROM NAMED WINDOW :Hour ON :s4 [RANGE 1h SLIDE 10m]
WHERE {
  WINDOW :Now { ?x :temp ?t1 }
  WINDOW :All { ?x :calibrated true }
  WINDOW :Last { ?x :temp ?t2 FILTER(?t2 > 10) }
  WINDOW :Hour { SEQ(!{?x :reset ?r}, {?x :alarm "high"@en}) }
}
