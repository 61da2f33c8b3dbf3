"""``ceplab generate`` (ceplab.workbench.generate): seeded chunks drawn on Spark and written as a partitioned
Parquet dataset with the schema version in the metadata, the same output for any partitioning, read back as the
language's stream, and checked with ``ceplab check``."""
from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from ceplab.semantics.errors import StreamError
from ceplab.workbench import language
from ceplab.workbench.cli import app
from ceplab.workbench.generate import MANIFEST, SCHEMA_VERSION, generate, generate_here, read_stream
from ceplab.workbench.spark import spark_session


@pytest.fixture(scope="module")
def spark():
    return spark_session("local[2]")


@pytest.mark.parametrize("name", [L.name for L in language.languages() if L.stream_chunk is not None])
def test_generate_writes_the_chunks_and_reads_them_back(spark, tmp_path, name):
    L = language.get(name)
    man = generate(spark, L, 700, 2, 5, tmp_path / "a", chunk=300)
    assert man["written"] == 1400 and man["files"] == 6 and man["schema_version"] == SCHEMA_VERSION
    assert json.loads((tmp_path / "a" / MANIFEST).read_text())["lang"] == name
    meta = json.loads(pq.read_schema(tmp_path / "a" / "stream=1" / "part-000000000300.parquet")
                      .metadata[b"ceplab"])
    assert (meta["schema_version"], meta["stream"], meta["start"], meta["count"], meta["seed"]) == \
        (SCHEMA_VERSION, 1, 300, 300, 5)
    for k in (0, 1):
        got = list(read_stream(L, tmp_path / "a", k))
        want = [e for start in (0, 300, 600) for e in L.stream_chunk(5, k, start, min(300, 700 - start))]
        assert L.stream_to_json(got) == L.stream_to_json(want)
    # the same dataset whatever the partitioning, and drawn in this process without Spark
    generate(spark, L, 700, 2, 5, tmp_path / "b", chunk=300, partitions=1)
    assert generate_here(L, 700, 2, 5, tmp_path / "c", chunk=300)["written"] == 1400
    for f in sorted((tmp_path / "a").glob("stream=*/part-*.parquet")):
        for other in ("b", "c"):
            g = tmp_path / other / f.parent.name / f.name
            assert pq.read_table(f).equals(pq.read_table(g))


def test_read_errors_and_check_on_a_dataset(spark, tmp_path):
    L = language.get("cel")
    generate(spark, L, 400, 1, 2, tmp_path / "d", chunk=150)
    with pytest.raises(StreamError, match="no stream 3"):
        read_stream(L, tmp_path / "d", 3)
    with pytest.raises(StreamError, match="a cel dataset"):
        read_stream(language.get("etalis"), tmp_path / "d", 0)
    with pytest.raises(StreamError, match="not a dataset"):
        read_stream(L, tmp_path, 0)
    (tmp_path / "q.cel").write_text("(A AS a ; B AS b ; C AS c) FILTER (a.v = b.v AND b.v = c.v) WITHIN 15\n")
    res = CliRunner().invoke(app, ["check", "cel", str(tmp_path / "q.cel"), str(tmp_path / "d"), "--stream", "0",
                                   "--segment-events", "60", "--json"])
    assert res.exit_code == 0, res.output
    rep = json.loads(res.stdout.strip().splitlines()[-1])
    assert rep["verdict"] == "agree" and rep["events"] == 400 and rep["engine_count"] == rep["oracle_count"] > 0
