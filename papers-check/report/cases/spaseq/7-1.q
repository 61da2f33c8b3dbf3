# T3 (paper Example 5): disjunction of a power and a weather GPM over the bounds [5,15]
# (Options(origin=5), 10-tick window).
PREFIX : <http://example.org/>
SELECT *
WITHIN 10 SECONDS
FROM STREAM S1 :pw
FROM STREAM S2 :wt
FROM STREAM S3 :st
WHERE SEQ (A | B)
{
  DEFINE GPM A ON S1 { ?h :price ?p1 }
  DEFINE GPM B ON S2 { ?w :wind ?s FILTER (?s >= 5) }
}
