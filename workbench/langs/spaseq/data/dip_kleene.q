# Kleene+ on stock data (the paper's Definitions 13-14, Example 9): a closing price of the CAC 40, then one or
# more later prices below it (each iteration the next such price: skip-till-next), then the next price that
# recovers by more than 20 points above the first, all within 7 trading days.  Every chain of dip days is a
# witness; a chain's rows are one per iteration (docs/semantics/spaseq.md#spaseq-A1), so ?p2 ranges over the dip.
# stream: eustock days=0:160 indices=CAC
PREFIX sosa: <http://www.w3.org/ns/sosa/>
SELECT ?idx ?p1 ?p2 ?p3
WITHIN 7 SECONDS
FROM STREAM S <https://ceplab.org/eustock/stream/CAC>
WHERE SEQ (A; B+; C)
{
  DEFINE GPM A ON S { ?o1 sosa:hasFeatureOfInterest ?idx ; sosa:hasSimpleResult ?p1 }
  DEFINE GPM B ON S { ?o2 sosa:hasFeatureOfInterest ?idx ; sosa:hasSimpleResult ?p2 FILTER (?p2 < ?p1) }
  DEFINE GPM C ON S { ?o3 sosa:hasFeatureOfInterest ?idx ; sosa:hasSimpleResult ?p3 FILTER (?p3 - ?p1 > 20) }
}
