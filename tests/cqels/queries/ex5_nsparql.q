# Example 5 of the paper in nSPARQL's own axes: next^-1::beg[next::means/self::subway]/next::end, read XPath-style
# (docs/semantics/cqels.md#cqels-G19).  Same static pattern as t03_path_plus.q.
PREFIX : <http://example.org/>
SELECT ?s
WHERE {
  ?s (next^-1:::beg[next:::means/self:::subway]/next:::end)+ :c .
}
