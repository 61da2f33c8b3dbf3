# FINDINGS 1: the same with C's subject renamed: no test between mu1 and mu3, the pairs the printed
# formula relates (it would output only mu1 = {x})
# until 6
PREFIX : <http://example.org/>
SELECT *
FROM NAMED WINDOW :W ON :s [RANGE 10]
WHERE {
  WINDOW :W { SEQ({?x :pa :o}, !{?x :pn :o}, {?y :pc ?z}) }
}
