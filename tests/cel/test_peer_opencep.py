"""The OpenCEP peer adapter (workbench/langs/cel/peer.py).

Skipped cleanly unless ``OPENCEP_HOME`` points to an OpenCEP checkout; then our engine's outputs
must equal OpenCEP's on small streams with the same window (timestamps = positions in seconds).
"""
from __future__ import annotations

import pytest

from ceplab.workbench.langs.cel import peer as opencep

_UNAVAILABLE = opencep.unavailable_reason()   # names what is absent: OPENCEP_HOME, CEP.py, or the import error
needs_opencep = pytest.mark.skipif(_UNAVAILABLE is not None, reason=_UNAVAILABLE or "")


def _ours(text: str, events) -> list[tuple[int, ...]]:
    from ceplab.engine.cel import evaluator
    from ceplab.semantics.cel.parser import parse
    ev = evaluator(parse(text))
    out: list[tuple[int, ...]] = []
    for e in events:
        out.extend(ev.push(e))
    out.extend(ev.close() or [])
    return out


def test_unavailable_reason_names_the_variable(monkeypatch):
    monkeypatch.delenv(opencep.ENV, raising=False)
    assert not opencep.available()
    assert opencep.ENV in opencep.unavailable_reason()
    monkeypatch.setenv(opencep.ENV, "/nonexistent/opencep")
    assert "does not contain OpenCEP" in opencep.unavailable_reason()


@needs_opencep
@pytest.mark.parametrize("n,w", [(150, 20), (400, 60)])
def test_q1_outputs_equal_opencep(n, w):
    from ceplab.workbench.langs.cel.bench import query_text, workload
    from ceplab.semantics.cel.parser import parse
    evs = workload("Q1", n, seed=11)
    text = query_text("Q1", w)
    ours = _ours(text, evs)
    theirs = opencep.run(parse(text), evs)
    assert len(theirs.results) == len(set(theirs.results)), "OpenCEP reported a match twice"
    assert len(ours) == len(set(ours))
    assert set(theirs.results) == set(ours)
    assert len(ours) > 0


@needs_opencep
def test_kleene_equal_with_index_fix():
    """``A+ ; B``: equal to OpenCEP once its Kleene identity collision is worked around."""
    from ceplab.workbench.langs.cel.bench import query_text, workload
    from ceplab.semantics.cel.parser import parse
    evs = workload("Q4", 60, seed=11)
    text = query_text("Q4", 12)
    ours = _ours(text, evs)
    theirs = opencep.run(parse(text), evs, index_fix=True)
    assert len(theirs.results) == len(set(theirs.results))
    assert set(theirs.results) == set(ours)


@needs_opencep
def test_unsupported_operators_rejected():
    from ceplab.semantics.cel.parser import parse
    for text in ("A AS a OR B AS b", "A AS a FILTER a.v > 1", "NXT(A AS a ; B AS b)"):
        with pytest.raises(opencep.UnsupportedError):
            opencep.pattern(parse(text))
