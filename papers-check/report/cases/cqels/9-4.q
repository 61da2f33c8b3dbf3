# T13: a BGP of two triple patterns in one element or across elements (Options.bgp_scope,
# docs/semantics/cqels.md#cqels-G9)
# until 20
PREFIX : <http://example.org/>
SELECT ?v ?s ?l
FROM NAMED WINDOW :W ON :s [RANGE 10]
WHERE {
  WINDOW :W { ?v :delayAt ?s . ?v :line ?l }
}
