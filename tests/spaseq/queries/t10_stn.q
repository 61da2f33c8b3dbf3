# T10 (paper Fig. 1 style), skip-till-next: A then B on one stream with irrelevant events in between.
PREFIX : <http://example.org/>
SELECT *
WITHIN 100 SECONDS
FROM STREAM S1 :pw
FROM STREAM S2 :wt
FROM STREAM S3 :st
WHERE SEQ (A ; B)
{
  DEFINE GPM A ON S1 { ?x a :A }
  DEFINE GPM B ON S1 { ?y a :B }
}
