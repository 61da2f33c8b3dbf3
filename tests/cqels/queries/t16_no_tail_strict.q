# Case T16: NO_TAIL's order test is strict (a negative at the same time point does not kill).
PREFIX : <http://example.org/>
SELECT ?x
FROM NAMED WINDOW :W ON :s [RANGE 10]
WHERE {
  WINDOW :W { SEQ({?x :pa :o}, !{?x :pn :o}) }
}
