# FINDINGS 16 (T7, docs/semantics/cqels.md#cqels-G6): pn@4 lies between pb@3 and pc@7, yet the answer exists
# through the other witness pb@5
# until 7
PREFIX : <http://example.org/>
SELECT ?x
FROM NAMED WINDOW :W ON :s [RANGE 10]
WHERE {
  WINDOW :W { SEQ({?x :pa :o}, {?x :pb :o}, !{?x :pn :o}, {?x :pc :o}) }
}
