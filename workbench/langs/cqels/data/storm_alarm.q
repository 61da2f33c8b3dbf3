# stream: seattle-weather 2012-10-01..2012-12-31
# static: stations
# Storm alarm (an event-clause SEQ over three windows with a negated middle window): a windy day (at least
# 5 m/s), then a day of wet weather, with no clear day in between, all within the windows' 4 days (RANGE 4 SLIDE 2:
# the windows move every second day).  The wet kinds come from the static taxonomy (rdf:type/rdfs:subClassOf*);
# the wind and weather-kind sensors must be hosted by the same station.
PREFIX w: <https://ceplab.org/weather#>
PREFIX sosa: <http://www.w3.org/ns/sosa/>
SELECT ?station ?wind ?kind
FROM w:stations
FROM NAMED WINDOW w:Windy ON w:seattleWeather [RANGE 4 SLIDE 2]
FROM NAMED WINDOW w:Clear ON w:seattleWeather [RANGE 4 SLIDE 2]
FROM NAMED WINDOW w:Wet ON w:seattleWeather [RANGE 4 SLIDE 2]
WHERE {
  WINDOW w:Windy { ?o1 sosa:madeBySensor ?anemometer ; sosa:observedProperty w:windSpeed ; sosa:hasSimpleResult ?wind .
                   FILTER(?wind >= 5) }
  WINDOW w:Clear { ?o2 sosa:observedProperty w:weatherKind ; sosa:hasSimpleResult w:sun . }
  WINDOW w:Wet { ?o3 sosa:madeBySensor ?observer ; sosa:observedProperty w:weatherKind ; sosa:hasSimpleResult ?kind . }
  SEQ(w:Windy, !w:Clear, w:Wet)
  ?anemometer sosa:isHostedBy ?station .
  ?observer sosa:isHostedBy ?station .
  ?kind a/rdfs:subClassOf* w:WetWeather .
}
