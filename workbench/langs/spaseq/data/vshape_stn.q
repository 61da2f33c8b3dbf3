# The paper's V-shape stock query (section 8, Q3; the authors' stockq1.q) under skip-till-next: a closing price
# of one index, then the next price lower than it, then the next price higher than both, within 10 trading days
# (WITHIN 10 SECONDS: one tick is one trading day).  Prices that would not extend the partial match are skipped
# (relevance in context, docs/semantics/spaseq.md#spaseq-A4).  The three GPMs correlate on the index through the
# observations' feature of interest (?idx; the paper's PARTITION BY ?company).
# stream: eustock days=20:220 indices=DAX
PREFIX sosa: <http://www.w3.org/ns/sosa/>
SELECT ?idx ?p1 ?p2 ?p3
WITHIN 10 SECONDS
FROM STREAM S <https://ceplab.org/eustock/stream/DAX>
WHERE SEQ (A; B; C)
{
  DEFINE GPM A ON S { ?o1 sosa:hasFeatureOfInterest ?idx ; sosa:hasSimpleResult ?p1 }
  DEFINE GPM B ON S { ?o2 sosa:hasFeatureOfInterest ?idx ; sosa:hasSimpleResult ?p2 FILTER (?p2 < ?p1) }
  DEFINE GPM C ON S { ?o3 sosa:hasFeatureOfInterest ?idx ; sosa:hasSimpleResult ?p3 FILTER (?p3 > ?p2 && ?p3 > ?p1) }
}
