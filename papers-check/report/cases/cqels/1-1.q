# FINDINGS 1 (SEQ_WO's index typo, docs/semantics/cqels.md#cqels-G3): the output is mu1 u mu3 (here x and z)
# and mu1, mu3 must be compatible (b1@3 does not pair with a1@1)
# until 6
PREFIX : <http://example.org/>
SELECT *
FROM NAMED WINDOW :W ON :s [RANGE 10]
WHERE {
  WINDOW :W { SEQ({?x :pa :o}, !{?x :pn :o}, {?x :pc ?z}) }
}
