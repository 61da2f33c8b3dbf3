# T17: a clipping artefact of closed-mode SEQ_WO: a long negative clipped to the window fits the gap
# (Options.wo_bounds, docs/semantics/cqels.md#cqels-T17)
# until 30
PREFIX : <http://example.org/>
SELECT ?x
FROM NAMED WINDOW :W ON :s [RANGE 10]
WHERE {
  WINDOW :W { SEQ({?x :pa :o}, !{?x :pn :o}, {?x :pc :o}) }
}
