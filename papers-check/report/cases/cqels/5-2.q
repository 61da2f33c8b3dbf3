# FINDINGS 5 (SEQ_WO's lost relation, Options.wo_bounds, docs/semantics/cqels.md#cqels-G4): a negative at
# the same time as the first positive
# until 6
PREFIX : <http://example.org/>
SELECT ?x
FROM NAMED WINDOW :W ON :s [RANGE 10]
WHERE {
  WINDOW :W { SEQ({?x :pa :o}, !{?x :pn :o}, {?x :pc :o}) }
}
