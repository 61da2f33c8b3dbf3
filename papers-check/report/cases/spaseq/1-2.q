# background <http://example.org/kb>: <http://example.org/h1> <http://example.org/owner> "alice" .
# T11 (paper Query 1, use case 1, small instance): SEQ(A ; B+ , C) correlated on the location ?l and the
# fare ?fr1, with background knowledge.
PREFIX : <http://example.org/>
SELECT *
WITHIN 100 SECONDS
FROM STREAM S1 :pw
FROM STREAM S2 :wt
FROM STREAM S3 :st
FROM :kb
WHERE SEQ (A , B+ , C)
{
  DEFINE GPM A ON S1 {
    ?h :loc ?l ; :fare ?fr1 .
    FILTER (?fr1 > 20)
    GRAPH :kb { ?h :owner ?o }
  }
  DEFINE GPM B ON S2 {
    ?w :loc ?l ; :wind ?s .
    FILTER (?s >= 5)
  }
  DEFINE GPM C ON S3 {
    ?x :loc ?l ; :fare ?fr2 .
    FILTER (?fr2 < ?fr1)
  }
}
