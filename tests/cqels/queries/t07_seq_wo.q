# Case T7: SEQ_WO is existential over its witnesses (docs/semantics/cqels.md#cqels-G6).
PREFIX : <http://example.org/>
SELECT ?x
FROM NAMED WINDOW :W ON :s [RANGE 10]
WHERE {
  WINDOW :W { SEQ({?x :pa :o}, {?x :pb :o}, !{?x :pn :o}, {?x :pc :o}) }
}
