# FINDINGS 3: plain next, what Table 1 prints for next::a: every (x, y) with some edge x -> y
# static <http://example.org/n1> <http://example.org/p> <http://example.org/n2> .
# static <http://example.org/n1> <http://example.org/q> <http://example.org/n3> .
# until 0
PREFIX : <http://example.org/>
SELECT ?x ?y
WHERE {
  ?x next ?y .
}
