# R7 (the authors' conjunction test, 10-second window): a lower and a higher price at one timestamp, then 16.
# Repaired: the second event at 15 is on its own stream :main2 (Definition 2).
PREFIX : <http://example.org/>
SELECT ?p1 ?p2 ?p3 ?p4
WITHIN 10 SECONDS
FROM STREAM S <http://example.org/main>
FROM STREAM S2 <http://example.org/main2>
WHERE SEQ (A, (B & C), D)
{
  DEFINE GPM A ON S { ?company :price ?p1 ; :volume ?vol1 }
  DEFINE GPM B ON S { ?company2 :price ?p2 FILTER (?p2 < ?p1) }
  DEFINE GPM C ON S2 { ?company3 :price ?p3 FILTER (?p3 > ?p1) }
  DEFINE GPM D ON S { ?company4 :price ?p4 FILTER (?p4 = 16) }
}
