# Case T11: an event-clause SEQ across windows with different ranges (docs/semantics/cqels.md#cqels-G22).
PREFIX : <http://example.org/>
SELECT ?x
FROM NAMED WINDOW :W3 ON :s3 [RANGE 3]
FROM NAMED WINDOW :W4 ON :s4 [RANGE 10]
WHERE {
  WINDOW :W3 { ?x :pa :o }
  WINDOW :W4 { ?x :pb :o }
  SEQ(:W3, :W4)
}
