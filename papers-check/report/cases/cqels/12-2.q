# FINDINGS 12 (zero-length paths, Options.zero_length, docs/semantics/cqels.md#cqels-G25)
# static <http://example.org/n1> <http://example.org/p> <http://example.org/n2> .
# until 0
PREFIX : <http://example.org/>
SELECT ?x ?y
WHERE {
  ?x :p* ?y .
}
