# T1 (paper Example 3): one GPM over the bounds [5,15], i.e. the first window of a query issued at 5
# (Options(origin=5)) with a 10-tick window. U = {:pw, :wt, :st}.
PREFIX : <http://example.org/>
SELECT ?h ?p1
WITHIN 10 SECONDS
FROM STREAM S1 :pw
FROM STREAM S2 :wt
FROM STREAM S3 :st
WHERE SEQ (A)
{
  DEFINE GPM A ON S1 { ?h :price ?p1 }
}
