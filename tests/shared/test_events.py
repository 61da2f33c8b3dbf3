import pytest

from ceplab.semantics.errors import StreamError
from ceplab.semantics.events import Event, Stream, dumps_csv, dumps_jsonl, parse_csv, parse_jsonl, read_stream


def test_jsonl_roundtrip():
    text = ('{"type": "A", "time": 1, "attrs": {"v": 1, "s": "x"}}\n'
            '{"type": "B", "time": 1}\n{"type": "C", "time": 4, "end": 6}\n')
    s = parse_jsonl(text, "s.jsonl")
    assert [e.type for e in s] == ["A", "B", "C"]
    assert [e.position for e in s] == [0, 1, 2]
    assert s[0].attrs == {"v": 1, "s": "x"} and s[2].end == 6 and s[1].end == 1
    assert parse_jsonl(dumps_jsonl(s.events)).events == s.events


def test_csv_roundtrip():
    s = Stream.of([("A", {"v": 1, "w": 2.5}), ("B", {"s": "hi"}), ("C", {})])
    back = parse_csv(dumps_csv(s.events))
    assert back.events == s.events


@pytest.mark.parametrize("text,msg,line,col", [
    ('{"type": "A", "time": 1}\n{"type": "A", "time": ', "malformed JSON", 2, 23),
    ('{"time": 1}', "no 'type'", 1, 1),
    ('{"type": "A"}', "no 'time'", 1, 1),
    ('{"type": "A", "time": 1.5}', "integer", 1, 1),
    ('{"type": "A", "time": true}', "integer", 1, 1),
    ('{"type": "A", "time": 3}\n{"type": "A", "time": 2}', "backwards", 2, 1),
    ('{"type": "A", "time": 3, "attrs": [1]}', "'attrs' must be a JSON object", 1, 1),
    ('[1,2]', "JSON object", 1, 1),
])
def test_jsonl_errors_name_file_line_column(text, msg, line, col):
    with pytest.raises(StreamError) as ei:
        parse_jsonl(text, "bad.jsonl")
    e = ei.value
    assert msg in e.message and (e.file, e.line, e.column) == ("bad.jsonl", line, col)
    assert str(e).startswith(f"bad.jsonl:{line}:{col}: ")


def test_csv_errors():
    with pytest.raises(StreamError, match="no 'time'"):
        parse_csv("type,v\nA,1\n", "x.csv")
    with pytest.raises(StreamError) as ei:
        parse_csv("type,time\nA,1\nB,x\n", "x.csv")
    assert (ei.value.line, ei.value.column) == (3, 2)


def test_read_stream_missing_file(tmp_path):
    with pytest.raises(StreamError, match="cannot read"):
        read_stream(tmp_path / "nope.jsonl")


def test_event_equality():
    assert Event("A", 1, {"v": 1}, 0) == Event("A", 1, {"v": 1}, 0)
    assert Event("A", 1, {"v": 1}, 0) != Event("A", 1, {"v": 2}, 0)
