"""``ceplab check`` on a dataset (ceplab.workbench.check with ceplab.workbench.generate.DatasetStream): the stream is
read piece by piece and never whole, by the driver and by the executors; the answer equals the in-memory check's
and the whole-stream oracle's; emission positions are checked per segment; an injected engine fault is found in
a long dataset stream; each language's locality claim, combined over pieces, is its claim on the whole stream."""
from __future__ import annotations

import dataclasses
import random

import pytest

from ceplab.workbench import language
from ceplab.workbench.check import check, locate
from ceplab.workbench.compare import default_limits, run_oracle
from ceplab.workbench.generate import DatasetStream, read_stream, write_dataset
from ceplab.workbench.segments import combine

NAMES = ["cel", "etalis", "epsparql", "spaseq", "cqels"]


def _counting(L):
    """``L`` whose ``stream_from_json`` records how many events each call rebuilds."""
    sizes: list[int] = []
    inner = L.stream_from_json

    def counted(items, name="<x>"):
        sizes.append(len(items))
        return inner(items, name)

    return dataclasses.replace(L, stream_from_json=counted), sizes


@pytest.mark.parametrize("name", NAMES)
def test_pieces_are_the_whole_stream(tmp_path, name):
    L = language.get(name)
    _, stream, _ = L.oracle_workload(700, 10, 2)
    write_dataset(L, [stream], tmp_path, chunk=250)
    ds = DatasetStream(L, tmp_path, 0, piece=60)
    got = list(ds)
    assert len(ds) == 700 and [e.position for e in got] == list(range(700))
    assert L.stream_to_json(got) == L.stream_to_json(read_stream(L, tmp_path, 0)) == L.stream_to_json(stream)
    assert L.stream_to_json(ds.slice(230, 520)) == L.stream_to_json(stream)[230:520]


@pytest.mark.parametrize("name", NAMES)
def test_a_dataset_is_checked_without_reading_it_whole(tmp_path, name):
    L = language.get(name)
    text, stream, options = L.oracle_workload(600, 12, 4)
    write_dataset(L, [stream], tmp_path, chunk=200)
    CL, sizes = _counting(L)
    q = L.parse(text)
    rep = check(CL, q, text, DatasetStream(CL, tmp_path, 0, piece=50), options, size=60, limits=default_limits())
    mem = check(L, q, text, stream, options, size=60, limits=default_limits())
    whole, undecided, _, _ = run_oracle(L, q, stream, options, default_limits())
    assert undecided is None and rep.verdict == mem.verdict == "agree"
    assert rep.oracle_count == mem.oracle_count == len(whole) == rep.engine_count > 0
    assert len(rep.segments) == len(mem.segments) >= 5
    # the driver rebuilt pieces of at most 50 events and segments of a few windows: never the stream
    assert sizes and max(sizes) <= 60 + 4 * 12 + 40 < len(stream) // 3


@pytest.mark.parametrize("fault", ["drop", "duplicate", "late"])
def test_an_injected_fault_is_found_in_a_long_dataset_stream(tmp_path, fault):
    L = language.get("etalis")
    text, stream, options = L.oracle_workload(1500, 15, 7)
    write_dataset(L, [stream], tmp_path, chunk=400)
    rep = check(L, L.parse(text), text, DatasetStream(L, tmp_path, 0, piece=100), options, size=100,
                limits=default_limits(), fault=fault, shrink_s=2)
    assert rep.verdict == "disagree"
    if fault == "drop":
        assert len(rep.oracle_only) == 1 and not rep.engine_only and not rep.problems
    else:
        assert not rep.oracle_only and not rep.engine_only and len(rep.problems) == 1
    (cut,) = rep.cut
    assert cut["reproduced"] and cut["stop"] - cut["first"] < 300


def test_executors_read_their_own_segments(tmp_path):
    """On Spark the rows carry positions only; executors read the Parquet files; same answer as in process."""
    from ceplab.workbench.spark import spark_session

    L = language.get("cel")
    text, stream, options = L.oracle_workload(800, 20, 9)
    write_dataset(L, [stream], tmp_path, chunk=300)
    q = L.parse(text)
    ds = DatasetStream(L, tmp_path, 0)
    local = check(L, q, text, ds, options, size=70, limits=default_limits())
    rep = check(L, q, text, ds, options, size=70, limits=default_limits(),
                spark=lambda: spark_session("local[2]", "ceplab-test-check-dataset"), fault="late")
    assert local.verdict == "agree" and local.oracle_count == local.engine_count > 0
    assert rep.verdict == "disagree" and rep.oracle_count == local.oracle_count and len(rep.problems) == 1
    assert [r["kept"] for r in rep.segments] == [r["kept"] for r in local.segments]


@pytest.mark.parametrize("name", NAMES)
def test_the_locality_of_pieces_combines_to_the_whole_streams(name):
    """``combine`` over consecutive pieces gives the claim on the whole stream (random cases of the language's
    own generators, cut in three)."""
    L = language.get(name)
    rng = random.Random(f"combine:{name}")
    seen = 0
    for _ in range(60):
        text, stream, options = L.random_case(rng, rng.randrange(3, 12))
        q = L.parse(text)
        whole = L.locality(q, options, stream)
        n = len(stream)
        a, b = sorted(rng.sample(range(n + 1), 2))
        pieces = [L.drop_events(stream, [*range(lo), *range(hi, n)]) for lo, hi in ((0, a), (a, b), (b, n))]
        got = combine([L.locality(q, options, p) for p in pieces if len(p)])
        assert (got is None) == (whole is None), text
        if whole is not None:
            seen += 1
            assert (got.span, got.lookahead, got.unit) == (whole.span, whole.lookahead, whole.unit), text
    assert seen > 0


def test_locate_reads_the_stream_once_piece_by_piece(tmp_path):
    L = language.get("epsparql")
    text, stream, options = L.oracle_workload(500, 10, 1)
    write_dataset(L, [stream], tmp_path, chunk=200)
    q = L.parse(text)
    loc, coords = locate(L, q, options, DatasetStream(L, tmp_path, 0, piece=30))
    whole = L.locality(q, options, stream)
    assert (loc.span, loc.unit) == (whole.span, whole.unit) and len(coords) == 500
    assert list(coords) == sorted(coords)


def test_a_broken_dataset_is_a_clean_error_naming_the_file(tmp_path):
    """A missing file (positions not contiguous) and a malformed piece end in exit 2 naming the file, never a
    traceback or an answer."""
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq
    from typer.testing import CliRunner

    from ceplab.semantics.errors import StreamError
    from ceplab.workbench.cli import app

    L = language.get("cel")
    text, stream, _ = L.oracle_workload(700, 10, 2)
    write_dataset(L, [stream], tmp_path / "d", chunk=250)
    (tmp_path / "q.cel").write_text(text)
    args = ["check", "cel", str(tmp_path / "q.cel"), str(tmp_path / "d")]
    middle = tmp_path / "d" / "stream=0" / "part-000000000250.parquet"
    t = pq.read_table(middle)
    events = t.column("event").to_pylist()
    events[3] = json.dumps({"type": "A", "time": "soon"})
    pq.write_table(t.set_column(t.schema.get_field_index("event"), "event", pa.array(events)), middle)
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2 and "part-000000000250.parquet" in res.output and "Traceback" not in res.output
    middle.unlink()
    with pytest.raises(StreamError, match="expected 250"):
        DatasetStream(L, tmp_path / "d")
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2 and "part-000000000500.parquet" in res.output and "missing" in res.output
