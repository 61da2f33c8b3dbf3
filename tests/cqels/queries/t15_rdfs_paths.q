# Case T15: RDFS-style typing with nested nSPARQL axes (docs/semantics/cqels.md#cqels-T15):
#   next::[(next::sp)*/self::type]/(next::sc)* | edge/(next::sp)*/next::dom/(next::sc)*
#     | node^-1/(next::sp)*/next::range/(next::sc)*
PREFIX : <http://example.org/>
SELECT ?x
WHERE {
  ?x (next::[(:sp)*/self:::type]/(:sc)* | edge/(:sp)*/:dom/(:sc)* | node^-1/(:sp)*/:range/(:sc)*) :agent .
}
