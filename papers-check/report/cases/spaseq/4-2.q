# T9 (paper Example 11): a skip-till-next query with tumbling windows of 10 ticks issued at 0.
PREFIX : <http://example.org/>
SELECT ?p1 ?s
WITHIN 10 SECONDS
FROM STREAM S1 :pw
FROM STREAM S2 :wt
FROM STREAM S3 :st
WHERE SEQ (A ; B)
{
  DEFINE GPM A ON S1 { ?h :price ?p1 }
  DEFINE GPM B ON S2 { ?w :wind ?s FILTER (?s >= 5) }
}
