PREFIX : <http://example.org/>
SELECT ?company ?p1 ?p2 ?p3
WITHIN 100 SECONDS
FROM STREAM S <http://example.org/main>
WHERE SEQ (A, B, C)
{
  DEFINE GPM A ON S { ?company :price ?p1 }
  DEFINE GPM B ON S { ?company :price ?p2 FILTER (?p2 < ?p1) }
  DEFINE GPM C ON S { ?company :price ?p3 FILTER (?p3 > ?p2 && ?p3 > ?p1) }
}
