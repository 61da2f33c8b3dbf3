# Case T3: the path of Example 6 alone over the static data (docs/semantics/cqels.md#cqels-T3).
PREFIX : <http://example.org/>
SELECT ?s
WHERE {
  ?s (^:beg/[:means :subway]/:end)+ :c .
}
