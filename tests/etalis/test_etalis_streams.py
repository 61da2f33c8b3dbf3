"""ETALIS streams: JSON Lines event atoms and .stream files (ceplab.semantics.etalis.streams)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ceplab.semantics.errors import StreamError
from ceplab.semantics.etalis import ast as A
from ceplab.semantics.etalis.streams import (StreamEvent, dumps_jsonl, dumps_stream, read_events, read_jsonl_events,
                                      read_stream_file)


def test_jsonl_points_and_intervals():
    evs = read_jsonl_events('{"type": "a", "args": [1], "time": 3}\n'
                            '{"type": "p", "args": [], "time": 1, "end": 4}\n'
                            '{"type": "b", "args": ["x", 2.5, true], "time": 4}\n')
    assert evs[0] == StreamEvent(A.EventAtom("a", (A.Num(1),)), 3, 3, 0)
    assert (evs[1].start, evs[1].end, evs[1].position) == (1, 4, 1)
    assert evs[2].atom == A.EventAtom("b", (A.Sym("x"), A.Num(2.5), A.Sym("true")))


def test_stream_file():
    evs = read_stream_file("% comment\nevent(a(1),[3,3]).\nevent(p, [3,5]).\n"
                           "event('Hi there'(x, -2, \"s\"), [6,6]).\nhalt.\n")
    assert [str(e) for e in evs] == ["event(a(1),[3,3]).", "event(p,[3,5]).",
                                     "event('Hi there'(x,-2,\"s\"),[6,6])."]
    assert [e.position for e in evs] == [0, 1, 2]


def test_read_events_by_suffix(tmp_path):
    (tmp_path / "s.stream").write_text("event(a(1),[1,1]).\n")
    (tmp_path / "s.jsonl").write_text('{"type": "a", "args": [1], "time": 1}\n')
    assert read_events(tmp_path / "s.stream") == read_events(tmp_path / "s.jsonl")
    with pytest.raises(StreamError):
        read_events(tmp_path / "missing.stream")


@pytest.mark.parametrize("text,line,col,fragment", [
    ("event(a(1),[3,3]).\nevent(b(X),[4,4]).", 2, 9, "ground"),
    ("event(a,[3,1]).", 1, 1, "before start"),
    ("event(a,[3,3]).\n\nevent(b,[1,1]).", 3, 1, "backwards"),
    ("event(a).", 1, 1, "timestamps"),
    ("event(a,[1.5,2]).", 1, 1, "integer"),
    ("event(a,[1,1])", 1, 15, "end of file"),
    ("event(a(1+2),[1,1]).", 1, 1, "arithmetic"),
    ("sleep(3).", 1, 1, "sleep"),
    ("event(a,[1,1]).\nfoo(b).", 2, 1, "event(Atom"),
    ("event(a seq b,[1,1]).", 1, 9, "unknown operator"),
])
def test_stream_file_errors(text, line, col, fragment):
    with pytest.raises(StreamError) as ei:
        read_stream_file(text, "s.stream")
    e = ei.value
    assert (e.file, e.line, e.column) == ("s.stream", line, col), str(e)
    assert fragment in e.message


@pytest.mark.parametrize("text,line,col,fragment", [
    ('{"type": "a", "time": 1}\n{"type": "a", "time": 0}', 2, 15, "backwards"),
    ('{"type": "a", "args": [[1]], "time": 1}', 1, 15, "argument 1"),
    ('{"type": "a", "args": [null], "time": 1}', 1, 15, "argument 1"),
    ('{"type": "a", "time": 3, "end": 2}', 1, 26, "before"),
    ('{"type": "a", "time": "3"}', 1, 15, "integer"),
    ('{"type": "a"}', 1, 1, "no 'time'"),
    ('{"time": 1}', 1, 1, "no 'type'"),
    ('{"type": "a", "time": 1, "attrs": {}}', 1, 26, "unknown"),
    ('{x', 1, 2, "malformed JSON"),
    ('{"type": "a", "time": 1}\n\n{"type": "a", "time": 2}', 2, 1, "blank"),
])
def test_jsonl_errors(text, line, col, fragment):
    with pytest.raises(StreamError) as ei:
        read_jsonl_events(text, "s.jsonl")
    e = ei.value
    assert (e.line, e.column) == (line, col), str(e)
    assert fragment in e.message


def test_interval_input_is_ordered_by_end():
    evs = read_jsonl_events('{"type": "p", "time": 1, "end": 5}\n{"type": "q", "time": 0, "end": 5}\n')
    assert [e.atom.name for e in evs] == ["p", "q"]
    with pytest.raises(StreamError):
        read_jsonl_events('{"type": "p", "time": 1, "end": 5}\n{"type": "q", "time": 4}\n')


SYMS = st.sampled_from(["x", "abc", "seq", "Hello world", "it's", "true"])
ARGS = st.lists(st.one_of(st.integers(-50, 50), SYMS.map(A.Sym).map(lambda s: s)), max_size=3)


@st.composite
def streams(draw):
    n = draw(st.integers(0, 8))
    out, t = [], 0
    for i in range(n):
        t += draw(st.integers(0, 3))
        s = t - draw(st.integers(0, 2)) if t >= 2 else t
        args = tuple(A.Num(a) if isinstance(a, int) else a for a in draw(ARGS))
        out.append(StreamEvent(A.EventAtom(draw(st.sampled_from(["a", "b", "temp", "Odd name"])), args),
                               s, t, i))
    return out


@given(streams())
def test_round_trip_both_formats(evs):
    assert read_stream_file(dumps_stream(evs)) == evs
    assert read_jsonl_events(dumps_jsonl(evs)) == evs
