# FINDINGS 17: the same negative on ?x: b1's event does not block a1's
# until 3
PREFIX : <http://example.org/>
SELECT ?x
FROM NAMED WINDOW :W ON :s [RANGE 10]
WHERE {
  WINDOW :W { SEQ({?x :pa :o}, !{?x :pn :o}) }
}
