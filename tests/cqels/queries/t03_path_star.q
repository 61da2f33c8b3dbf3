# Case T3, variant with * (zero-length pairs over voc(D), docs/semantics/cqels.md#cqels-G25).
PREFIX : <http://example.org/>
SELECT ?s
WHERE {
  ?s (^:beg/[:means :subway]/:end)* :c .
}
