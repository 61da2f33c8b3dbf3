# R2 (the authors' skip-till-next test): B lower than A, then C back at A's price.
PREFIX : <http://example.org/>
SELECT ?company ?vol1
WITHIN 100 SECONDS
FROM STREAM S <http://example.org/main>
WHERE SEQ (A; B; C)
{
  DEFINE GPM A ON S { ?company :price ?p1 ; :volume ?vol1 }
  DEFINE GPM B ON S { ?company2 :price ?p2 FILTER (?p2 < ?p1) }
  DEFINE GPM C ON S { ?company3 :price ?p3 FILTER (?p3 = ?p1) }
}
