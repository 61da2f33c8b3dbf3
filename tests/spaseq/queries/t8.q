# T8 (paper Example 10): the Graph operator joins each power event with the background graph :kb.
PREFIX : <http://example.org/>
SELECT ?h ?p1 ?o
WITHIN 100 SECONDS
FROM STREAM S1 :pw
FROM STREAM S2 :wt
FROM STREAM S3 :st
FROM :kb
WHERE SEQ (A)
{
  DEFINE GPM A ON S1 {
    ?h :price ?p1 .
    GRAPH :kb { ?h :owner ?o }
  }
}
