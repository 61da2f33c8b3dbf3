# FINDINGS 18 (NO_TAIL's t4 <= t, docs/semantics/cqels.md#cqels-G7): a negative [3,8] blocks from 3, not from
# its end 8, because the window has clipped it to [3, t]
# until 8
PREFIX : <http://example.org/>
SELECT ?x
FROM NAMED WINDOW :W ON :s [RANGE 10]
WHERE {
  WINDOW :W { SEQ({?x :pa :o}, !{?x :pn :o}) }
}
