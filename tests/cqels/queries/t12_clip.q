# Case T12: clipping of a non-atomic element by a RANGE window.
PREFIX : <http://example.org/>
SELECT ?a ?b
FROM NAMED WINDOW :W ON :s [RANGE 5]
WHERE {
  WINDOW :W { ?a :p ?b }
}
