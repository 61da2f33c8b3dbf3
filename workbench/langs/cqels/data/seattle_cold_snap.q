# stream: seattle-temps 2010-12-17..2010-12-28
# static: stations
# Cold-snap warning (SEQ with a negated last element, NO_TAIL): a reading at or below the station's cold threshold,
# then a colder one, both within 6 hours (RANGE 6), and no warm-up reading (at or above 40 F) after them.  A
# warning is withdrawn when a warm-up reading arrives while its readings are still in the window; it is kept while
# they are.  The state the station lies in comes from a nested path test: the region reached by locatedIn/partOf*
# that has type w:State.
PREFIX w: <https://ceplab.org/weather#>
PREFIX sosa: <http://www.w3.org/ns/sosa/>
SELECT ?station ?state ?t1 ?t2
FROM w:stations
FROM NAMED WINDOW w:Cold ON w:seattleTemps [RANGE 6]
WHERE {
  WINDOW w:Cold {
    SEQ({ ?o1 sosa:madeBySensor ?sensor ; sosa:hasSimpleResult ?t1 . FILTER(?t1 < 39) },
        { ?o2 sosa:madeBySensor ?sensor ; sosa:hasSimpleResult ?t2 . },
        !{ ?o3 sosa:madeBySensor ?sensor ; sosa:hasSimpleResult ?t3 . FILTER(?t3 >= 40) })
  }
  ?sensor sosa:isHostedBy ?station .
  ?station w:coldThreshold ?cold .
  ?station w:locatedIn/w:partOf*/[a w:State] ?state .
  FILTER(?t1 <= ?cold + 1 && ?t2 < ?t1)
}
