# Conjunction and Kleene+ on the weather streams under strict contiguity: a rainy day (precipitation and the
# temperature graph of the same day: '&' joins the two streams' events at one timestamp), then one or more
# consecutive days with frost (minimum temperature at or below 0 deg C), then a dry day, within 6 days.
# stream: seattle-weather 2012-01-01..2013-03-31 streams=precipitation,temperature
PREFIX sosa: <http://www.w3.org/ns/sosa/>
PREFIX sea: <https://ceplab.org/seattle#>
SELECT ?rain ?tmax ?tmin ?dry
WITHIN 6 SECONDS
FROM STREAM P <https://ceplab.org/seattle/stream/precipitation>
FROM STREAM T <https://ceplab.org/seattle/stream/temperature>
WHERE SEQ ((R & M) , F+ , D)
{
  DEFINE GPM R ON P { ?o1 sosa:hasSimpleResult ?rain FILTER (?rain > 2) }
  DEFINE GPM M ON T { ?o2 sosa:observedProperty sea:maxTemperature ; sosa:hasSimpleResult ?tmax }
  DEFINE GPM F ON T { ?o3 sosa:observedProperty sea:minTemperature ; sosa:hasSimpleResult ?tmin FILTER (?tmin <= 0) }
  DEFINE GPM D ON P { ?o4 sosa:hasSimpleResult ?dry FILTER (?dry = 0) }
}
