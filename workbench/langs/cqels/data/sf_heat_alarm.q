# stream: sf-temps 2010-08-23..2010-09-05
# static: stations
# Heat alarm (SEQ with a negated middle element, SEQ_WO): at a station somewhere in California, two readings of
# one thermometer at or above the station's heat threshold within 3 hours (RANGE 3), with no cooler reading (below
# 69 F) between them.  The threshold comes from the static data (joined on the station), the region from a path:
# the station lies in a city that is part of ... part of California.
PREFIX w: <https://ceplab.org/weather#>
PREFIX sosa: <http://www.w3.org/ns/sosa/>
SELECT ?station ?t1 ?t2
FROM w:stations
FROM NAMED WINDOW w:Hot ON w:sfTemps [RANGE 3]
WHERE {
  WINDOW w:Hot {
    SEQ({ ?o1 sosa:madeBySensor ?sensor ; sosa:hasSimpleResult ?t1 . },
        !{ ?o2 sosa:madeBySensor ?sensor ; sosa:hasSimpleResult ?t0 . FILTER(?t0 < 69) },
        { ?o3 sosa:madeBySensor ?sensor ; sosa:hasSimpleResult ?t2 . })
  }
  ?sensor sosa:isHostedBy ?station .
  ?station w:heatThreshold ?hot .
  ?station w:locatedIn/w:partOf+ w:California .
  FILTER(?t1 >= ?hot && ?t2 >= ?hot)
}
