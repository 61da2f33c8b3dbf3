# Every path construct (docs/semantics/cqels.md#cqels-2.4): ^, /, |, *, +, ?, nested tests, axes, axis::c, axis::[e].
PREFIX : <http://example.org/>
SELECT ?a ?b ?c ?d
WHERE {
  ?a ^:p/:q|:r* ?b .
  ?b (:p?/[:q])+ ?c .
  ?c self/edge/node/next^-1/edge^-1/node⁻¹ ?d .
  ?d edge:::o/node::"lit"/self::42/next::[:p/self:::x] :z .
  "start" next^-1::[^:q]/edge^-1::[self]/node^-1::[(:r)*] ?a .
  ?a a :T ; :p ?b , ?c .
}
