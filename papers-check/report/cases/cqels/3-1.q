# FINDINGS 3 (Table 1's next::a row, docs/semantics/cqels.md#cqels-G18): next::p relates x to y iff (x p y) in G
# static <http://example.org/n1> <http://example.org/p> <http://example.org/n2> .
# static <http://example.org/n1> <http://example.org/q> <http://example.org/n3> .
# until 0
PREFIX : <http://example.org/>
SELECT ?x ?y
WHERE {
  ?x next:::p ?y .
}
