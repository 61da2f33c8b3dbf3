# T8: the bounds of SEQ_WO's negation (Options.wo_bounds, docs/semantics/cqels.md#cqels-G4)
# until 16
PREFIX : <http://example.org/>
SELECT ?x
FROM NAMED WINDOW :W ON :s [RANGE 10]
WHERE {
  WINDOW :W { SEQ({?x :pa :o}, !{?x :pn :o}, {?x :pc :o}) }
}
