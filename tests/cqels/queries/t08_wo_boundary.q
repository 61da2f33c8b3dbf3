# Case T8: the bounds of the negation in SEQ_WO (Options.wo_bounds, docs/semantics/cqels.md#cqels-G4).
PREFIX : <http://example.org/>
SELECT ?x
FROM NAMED WINDOW :W ON :s [RANGE 10]
WHERE {
  WINDOW :W { SEQ({?x :pa :o}, !{?x :pn :o}, {?x :pc :o}) }
}
