"""ceplab.workbench.coverage: the features of a fuzz case (switch values, query constructs, stream features), read
from each language's own typed values; never-drawn closed switch values are counted as 0."""
from __future__ import annotations

import random

from ceplab.semantics.events import Event
from ceplab.workbench import language
from ceplab.workbench.coverage import case_features, query_features, stream_features, switch_values, tally


def test_cel_case_features():
    L = language.get("cel")
    q = L.parse("MAX(A AS a ; B AS b FILTER (a.v < 1 AND NOT b.v = 2) WITHIN 3)")
    stream = [Event("A", 0, {"v": 0}, 0), Event("B", 0, {}, 1), Event("B", 1, {"v": "x"}, 2)]
    f = set(case_features(L, q, stream, L.options()))
    assert {"op:Cmp.op=<", "op:Cmp.op==", "op:PNot", "op:Query.strategy=MAX"} <= f
    assert {"stream:events=1-6", "stream:ties", "stream:types=2", "stream:attr-missing",
            "stream:attr-mixed-kinds"} <= f
    assert "switch:max_scope=same_end" in f and "switch:max_scope=global" not in f
    assert "op:PNot" not in query_features(L.parse("A AS a ; B AS b"))


def test_stream_features_of_a_plain_stream():
    L = language.get("cel")
    f = stream_features(L, [Event("A", t, {"v": t}, t) for t in range(30)])
    assert f == {"stream:events=21-60", "stream:types=1"}
    assert stream_features(L, []) == {"stream:events=0", "stream:types=0"}


def test_tally_lists_never_drawn_switch_values():
    L = language.get("etalis")
    vals = switch_values(L.options)
    assert "switch:not_reading=literal" in vals and "switch:proper_intervals_only=True" in vals
    c = tally(L.options, [["switch:not_reading=per_witness", "op:X"], ["switch:not_reading=per_witness"]])
    assert c["switch:not_reading=per_witness"] == 2 and c["op:X"] == 1 and c["switch:not_reading=literal"] == 0


def test_every_language_has_switch_op_and_stream_features():
    for L in language.languages():
        if L.random_case is None:
            continue
        q, s, o = L.random_case(random.Random(3), 6)
        f = case_features(L, L.parse(q), s, o)
        groups = {x.split(":", 1)[0] for x in f}
        assert groups == {"switch", "op", "stream"}, (L.name, f)
