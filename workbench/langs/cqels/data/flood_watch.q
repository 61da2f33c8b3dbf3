# stream: seattle-weather 2012-10-01..2012-12-31
# static: stations
# Flood watch (SEQ with a negated first element, NO_HEAD): a day with heavy rain (at least 10 mm) that is not
# preceded, within the last 3 days (RANGE 3), by a dry day (no precipitation).  The answer appears once the dry
# day has left the window (a late answer).  The station must lie in the Pacific Northwest (a path over partOf).
PREFIX w: <https://ceplab.org/weather#>
PREFIX sosa: <http://www.w3.org/ns/sosa/>
SELECT ?station ?p
FROM w:stations
FROM NAMED WINDOW w:Rain ON w:seattleWeather [RANGE 3]
WHERE {
  WINDOW w:Rain {
    SEQ(!{ ?o0 sosa:madeBySensor ?gauge ; sosa:observedProperty w:precipitation ; sosa:hasSimpleResult ?p0 .
           FILTER(?p0 = 0) },
        { ?o1 sosa:madeBySensor ?gauge ; sosa:observedProperty w:precipitation ; sosa:hasSimpleResult ?p .
          FILTER(?p >= 10) })
  }
  ?gauge sosa:isHostedBy ?station .
  ?station w:locatedIn/w:partOf* w:PacificNorthwest .
}
