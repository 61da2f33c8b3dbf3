# An event-clause SEQ with a negated window whose own pattern is a SEQ with a negation
# (two levels of negation, docs/semantics/cqels.md#cqels-G30), joined with static data and filtered.
PREFIX : <http://example.org/>
SELECT ?train ?st ?t
FROM :network
FROM NAMED WINDOW :Dep ON :departures [RANGE 30m]
FROM NAMED WINDOW :Alarm ON :alarms [RANGE 30m]
FROM NAMED WINDOW :Arr ON :arrivals [RANGE 1h SLIDE 5m]
WHERE {
  WINDOW :Dep { ?train :departsFrom ?st }
  WINDOW :Alarm { SEQ({?train :alarm ?a}, !{?train :cleared ?a}) }
  WINDOW :Arr { ?train :arrivesAt ?dest ; :temperature ?t FILTER(?t >= 20 && ?t < 45.5) }
  SEQ(:Dep, !:Alarm, :Arr)
  ?st :partOf+ :region1 .
  FILTER(?dest != ?st || -?t < -30)
}
