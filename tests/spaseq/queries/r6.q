# R6 (the authors' disjunction test): a lower price or a price of 16, then a price above A's.
PREFIX : <http://example.org/>
SELECT ?company ?p1 ?p2 ?p3 ?p4
WITHIN 100 SECONDS
FROM STREAM S <http://example.org/main>
WHERE SEQ (A, (B | C), D)
{
  DEFINE GPM A ON S { ?company :price ?p1 ; :volume ?vol1 }
  DEFINE GPM B ON S { ?company2 :price ?p2 FILTER (?p2 < ?p1) }
  DEFINE GPM C ON S { ?company3 :price ?p3 FILTER (?p3 = 16) }
  DEFINE GPM D ON S { ?company4 :price ?p4 FILTER (?p4 > ?p1) }
}
