# R4 (the authors' negation test): no price lower than A's between A and a price of 16.
PREFIX : <http://example.org/>
SELECT ?p1 ?p3
WITHIN 100 SECONDS
FROM STREAM S <http://example.org/main>
WHERE SEQ (A, B!, C)
{
  DEFINE GPM A ON S { ?company :price ?p1 ; :volume ?vol1 }
  DEFINE GPM B ON S { ?company2 :price ?p2 FILTER (?p2 < ?p1) }
  DEFINE GPM C ON S { ?company3 :price ?p3 FILTER (?p3 = 16) }
}
