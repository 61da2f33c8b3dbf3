# FINDINGS 6 (T17, docs/semantics/cqels.md#cqels-T17): a long negative clipped to the window fits the gap
# for one tick
# until 7
PREFIX : <http://example.org/>
SELECT ?x
FROM NAMED WINDOW :W ON :s [RANGE 10]
WHERE {
  WINDOW :W { SEQ({?x :pa :o}, !{?x :pn :o}, {?x :pc :o}) }
}
