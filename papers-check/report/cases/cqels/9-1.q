# FINDINGS 9 (BGP scope of (16), Options.bgp_scope, docs/semantics/cqels.md#cqels-G9): two triple patterns,
# two simultaneous elements
# until 10
PREFIX : <http://example.org/>
SELECT ?v ?s ?l
FROM NAMED WINDOW :W ON :s [RANGE 10]
WHERE {
  WINDOW :W { ?v :delayAt ?s . ?v :line ?l }
}
