# T6 (paper Example 8): strict contiguity, a power event then a weather event, over the bounds [0,10] (10-tick window).
PREFIX : <http://example.org/>
SELECT *
WITHIN 10 SECONDS
FROM STREAM S1 :pw
FROM STREAM S2 :wt
WHERE SEQ (A , B)
{
  DEFINE GPM A ON S1 { ?h :price ?p1 }
  DEFINE GPM B ON S2 { ?w :wind ?s FILTER (?s >= 5) }
}
