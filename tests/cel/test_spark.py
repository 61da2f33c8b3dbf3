"""ceplab.workbench.spark: a tiny local campaign (counts add up, injected faults become shrunk reproducers,
same seed gives the same campaign). Skipped when Java is missing."""
from __future__ import annotations

import json
import shutil

import pytest

pytestmark = pytest.mark.skipif(shutil.which("java") is None,
                                reason="PySpark needs Java 17+ and no 'java' is on the PATH")


def _key(summary):
    return [(r["case_id"], r["query"], r["verdict"], r["oracle_count"], r["engine_count"])
            for r in summary.rows]


def test_generate_streams(spark, tmp_path):
    from ceplab.workbench.spark import case_rng, generate_streams
    from ceplab.workbench import language as languages

    df = generate_streams(spark, 5, 4, seed=11, lang="cel")
    assert df.columns == ["stream_id", "position", "time", "type", "attrs"]
    rows = df.collect()
    assert len(rows) == 20
    # the same seeded generator as the fuzz cases
    _q, stream, _o = languages.get("cel").random_case(case_rng(11, "cel", 3), 4)
    got = sorted((r.position, r.type, json.loads(r.attrs)) for r in rows if r.stream_id == 3)
    assert got == [(e.position, e.type, e.attrs) for e in stream]


def test_campaign_counts_and_reproducibility(spark, tmp_path):
    from ceplab.workbench.spark import fuzz

    (a,) = fuzz(["cel"], cases=20, length=4, seed=5, spark=spark, out=tmp_path / "a",
                progress=False, engine_kw={"time_s": None})   # a loaded machine: no engine_limit verdicts here
    assert a.cases == 20 and a.agree + a.disagree + a.undecided == 20 and a.disagree == 0, a.reproducers
    assert len(a.reproducers) == a.disagree + a.undecided
    assert a.cases_per_s > 0
    streams = spark.read.parquet(str(tmp_path / "a" / "cel" / "streams.parquet"))
    # every event of every case; a long case (the plugin's P_LONG share) has 40-200 events whatever the length
    from ceplab.workbench import language as languages
    from ceplab.workbench.spark import case_rng
    lengths = [len(languages.get("cel").random_case(case_rng(5, "cel", i), 4)[1]) for i in range(20)]
    assert any(n > 4 for n in lengths) and streams.count() == sum(lengths)
    res = spark.read.parquet(str(tmp_path / "a" / "cel" / "results.parquet"))
    assert res.count() == 20
    (b,) = fuzz(["cel"], cases=20, length=4, seed=5, spark=spark, out=tmp_path / "b",
                progress=False, write_parquet=False)
    assert _key(a) == _key(b)
    assert len({r["query"] for r in a.rows}) > 10
    assert (a.agree, a.disagree, a.undecided) == (b.agree, b.disagree, b.undecided)


def test_injected_fault_gives_shrunk_reproducers(spark, tmp_path):
    from ceplab.workbench.spark import fuzz, replay_case

    (s,) = fuzz(["cel"], cases=20, length=4, seed=5, spark=spark, out=tmp_path, progress=False,
                fault="drop", write_parquet=False)
    assert s.disagree >= 1
    assert len(s.reproducers) == s.disagree + s.undecided
    repros = [json.loads(open(p).read()) for p in s.reproducers]
    bad = [r for r in repros if r["verdict"] == "disagree"]
    assert len(bad) == s.disagree
    for r in bad:
        for k in ("query", "stream", "options", "oracle_results", "engine_results", "seed",
                  "case_id", "shrunk", "replay"):
            assert k in r
        assert r["seed"] == 5 and r["fault_injected"] == "drop"
        assert r["oracle_only"], "a dropped result shows up as oracle-only"
        sh = r["shrunk"]
        assert sh["verdict"] == "disagree" and len(sh["stream"]) <= len(r["stream"])
        assert len(sh["query"]) <= len(r["query"])
        # the case regenerates from (seed, case id) without Spark
        assert replay_case("cel", 5, 4, r["case_id"])["query"] == r["query"]
    assert (tmp_path / "cel" / f"case-{bad[0]['case_id']:05d}.jsonl").exists()
