# FINDINGS 17 (docs/semantics/cqels.md#cqels-G5): a negative with no variable in common blocks every answer
# until 3
PREFIX : <http://example.org/>
SELECT ?x
FROM NAMED WINDOW :W ON :s [RANGE 10]
WHERE {
  WINDOW :W { SEQ({?x :pa :o}, !{?y :pn :o}) }
}
