# FINDINGS 14 (nested path syntax, docs/semantics/cqels.md#cqels-G19): the grammar's elt ::= elt [elt] inside
# SPARQL 1.1's '^' PathElt: ^:beg[:means] is ^(:beg[:means]), the test applies at the stop, which has no :means
# static <http://example.org/conn1> <http://example.org/beg> <http://example.org/m> .
# static <http://example.org/conn1> <http://example.org/end> <http://example.org/b> .
# static <http://example.org/conn1> <http://example.org/means> <http://example.org/subway> .
# static <http://example.org/conn1> <http://example.org/dur> <http://example.org/3m> .
# static <http://example.org/conn2> <http://example.org/beg> <http://example.org/b> .
# static <http://example.org/conn2> <http://example.org/end> <http://example.org/c> .
# static <http://example.org/conn2> <http://example.org/means> <http://example.org/subway> .
# static <http://example.org/conn2> <http://example.org/dur> <http://example.org/2m> .
# static <http://example.org/conn3> <http://example.org/beg> <http://example.org/h> .
# static <http://example.org/conn3> <http://example.org/end> <http://example.org/g> .
# static <http://example.org/conn3> <http://example.org/means> <http://example.org/subway> .
# static <http://example.org/conn3> <http://example.org/dur> <http://example.org/3m> .
# static <http://example.org/conn4> <http://example.org/beg> <http://example.org/g> .
# static <http://example.org/conn4> <http://example.org/end> <http://example.org/c> .
# static <http://example.org/conn4> <http://example.org/means> <http://example.org/tram> .
# static <http://example.org/conn4> <http://example.org/dur> <http://example.org/5m> .
# static <http://example.org/a1> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/subway> .
# static <http://example.org/d1> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/subway> .
# until 0
PREFIX : <http://example.org/>
SELECT ?s
WHERE {
  ?s (^:beg[:means]/:end)+ :c .
}
