# Case T9: a NO_HEAD answer appears late, once the negative event leaves the window.
PREFIX : <http://example.org/>
SELECT ?x
FROM NAMED WINDOW :W ON :s [RANGE 4]
WHERE {
  WINDOW :W { SEQ(!{?x :pn :o}, {?x :pb :o}) }
}
