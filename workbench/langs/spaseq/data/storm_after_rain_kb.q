# A multi-stream weather query with the station knowledge base: a heavy-rain day, then (skip-till-next) the next
# gale day measured at the same station, within 3 days.  The thresholds are not in the query: each GPM reads
# them from the station KB (workbench/langs/spaseq/data/seattle-kb.ttl) through the sensor that made the
# observation (GRAPH joined with the event, correlated on the station ?st).
# stream: seattle-weather 2012-01-01..2012-12-31
# background: seattle
PREFIX sosa: <http://www.w3.org/ns/sosa/>
PREFIX sea: <https://ceplab.org/seattle#>
SELECT ?st ?rain ?wind ?t1 ?t2
WITHIN 3 SECONDS
FROM STREAM P <https://ceplab.org/seattle/stream/precipitation>
FROM STREAM T <https://ceplab.org/seattle/stream/temperature>
FROM STREAM W <https://ceplab.org/seattle/stream/wind>
FROM <https://ceplab.org/seattle/kb>
WHERE SEQ (A; B)
{
  DEFINE GPM A ON P {
    ?o1 sosa:madeBySensor ?s1 ; sosa:hasSimpleResult ?rain ; sosa:resultTime ?t1 .
    GRAPH <https://ceplab.org/seattle/kb> { ?s1 sosa:isHostedBy ?st . ?st sea:heavyRainMm ?heavy }
    FILTER (?rain >= ?heavy)
  }
  DEFINE GPM B ON W {
    ?o2 sosa:madeBySensor ?s2 ; sosa:hasSimpleResult ?wind ; sosa:resultTime ?t2 .
    GRAPH <https://ceplab.org/seattle/kb> { ?s2 sosa:isHostedBy ?st . ?st sea:galeWindMs ?gale }
    FILTER (?wind >= ?gale)
  }
}
