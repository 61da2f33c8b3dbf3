# A multi-stream query with background knowledge (the paper's Q2 shape, section 8: GRAPH over a static KB):
# an index of a country that founded the euro falls by more than 20 points, and then (skip-till-next) an index
# of a country that kept its own currency falls by more than 20 points, all within 5 trading days.  The four
# index streams are declared; the KB (workbench/langs/spaseq/data/eustock-kb.ttl) maps each index to its
# exchange, country and currency; the GPMs join the observation's feature of interest with it.
# stream: eustock days=0:250
# background: eustock
PREFIX sosa: <http://www.w3.org/ns/sosa/>
PREFIX eu: <https://ceplab.org/eustock#>
SELECT ?i1 ?cur1 ?p1 ?p2 ?i2 ?cur2 ?p3 ?p4
WITHIN 5 SECONDS
FROM STREAM DAX <https://ceplab.org/eustock/stream/DAX>
FROM STREAM SMI <https://ceplab.org/eustock/stream/SMI>
FROM STREAM CAC <https://ceplab.org/eustock/stream/CAC>
FROM STREAM FTSE <https://ceplab.org/eustock/stream/FTSE>
FROM <https://ceplab.org/eustock/kb>
WHERE SEQ (A; B; C; D)
{
  DEFINE GPM A ON DAX, SMI, CAC, FTSE {
    ?o1 sosa:hasFeatureOfInterest ?i1 ; sosa:hasSimpleResult ?p1 .
    GRAPH <https://ceplab.org/eustock/kb> { ?i1 eu:listedOn ?x1 . ?x1 eu:country ?c1 . ?c1 eu:currency ?cur1 ; eu:euroFounder true }
  }
  DEFINE GPM B ON DAX, SMI, CAC, FTSE {
    ?o2 sosa:hasFeatureOfInterest ?i1 ; sosa:hasSimpleResult ?p2 .
    FILTER (?p1 - ?p2 > 20)
  }
  DEFINE GPM C ON DAX, SMI, CAC, FTSE {
    ?o3 sosa:hasFeatureOfInterest ?i2 ; sosa:hasSimpleResult ?p3 .
    GRAPH <https://ceplab.org/eustock/kb> { ?i2 eu:listedOn ?x2 . ?x2 eu:country ?c2 . ?c2 eu:currency ?cur2 ; eu:euroFounder false }
  }
  DEFINE GPM D ON DAX, SMI, CAC, FTSE {
    ?o4 sosa:hasFeatureOfInterest ?i2 ; sosa:hasSimpleResult ?p4 .
    FILTER (?p3 - ?p4 > 20)
  }
}
