# R8 (the authors' background-knowledge test): three falling prices of one company, with its name and
# location from the background graph.
PREFIX : <http://example.org/>
SELECT ?company ?p1 ?p2 ?p3 ?n ?l
WITHIN 100 SECONDS
FROM STREAM S <http://example.org/main>
FROM <http://example.org/kb>
WHERE SEQ (A, B, C)
{
  DEFINE GPM A ON S { ?company :price ?p1 ; :volume ?vol1 }
  DEFINE GPM B ON S { ?company :price ?p2 FILTER (?p2 < ?p1) }
  DEFINE GPM C ON S {
    ?company :price ?p3 .
    FILTER (?p3 < ?p2)
    GRAPH <http://example.org/kb> { ?company :name ?n ; :location ?l }
  }
}
