# T7 (paper Example 9): Kleene+ with skip-till-next; the weather iterations are grouped.
PREFIX : <http://example.org/>
SELECT *
WITHIN 100 SECONDS
FROM STREAM S1 :pw
FROM STREAM S2 :wt
FROM STREAM S3 :st
WHERE SEQ (A ; B+)
{
  DEFINE GPM A ON S1 { ?h :price ?p1 }
  DEFINE GPM B ON S2 { ?w :wind ?s FILTER (?s >= 5) }
}
