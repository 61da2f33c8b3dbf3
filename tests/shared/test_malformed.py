"""``ceplab fuzz LANG --malformed`` (:mod:`ceplab.workbench.malformed`): the mutations, the classification of one
mutant's CLI run, a small campaign for every registered language (no tracebacks, hangs or other findings), and
planted faults (an uncaught exception, a hang) classified as findings and saved as reproducers."""
from __future__ import annotations

import json
import random
import re

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from ceplab.workbench import cli, language
from ceplab.workbench import malformed as M
from ceplab.workbench.spark import spark_session

STREAM = "".join(f'{{"time": {t}, "type": "A"}}\n' for t in (1, 2, 3, 4, 5))
TIME = r'"time": (-?\d+)'


def _times(text):
    return [m for m in re.findall(TIME, text)]


@pytest.mark.parametrize("op", M.TEXT_OPS)
def test_text_ops_change_the_text(op):
    text = "SELECT ?x WHERE { ?x :p 42 } WITHIN 10"
    assert any(M.text_op(op, text, random.Random(k)) != text for k in range(5)), op


def test_stream_ops_rewrite_time_stamps_and_lines():
    rng = random.Random(3)
    t = _times(M.stream_op("out-of-order-time", STREAM, TIME, rng))
    assert t != sorted(t, key=int) and sorted(t) == ["1", "2", "3", "4", "5"]
    t = _times(M.stream_op("duplicate-time", STREAM, TIME, rng))
    assert len(set(t)) == 4
    t = _times(M.stream_op("huge-time", STREAM, TIME, rng))
    assert len([x for x in t if x in M.HUGE_NUMBERS]) == 1 or len(t) < 5
    assert M.stream_op("drop-line", STREAM, TIME, rng).count("\n") == 4
    assert M.stream_op("duplicate-line", STREAM, TIME, rng).count("\n") == 6
    cut = M.stream_op("truncate-line", STREAM, TIME, rng)
    assert cut != STREAM and len(cut) < len(STREAM)
    with pytest.raises(ValueError, match="unknown stream mutation"):
        M.stream_op("nope", STREAM, TIME, rng)


def test_mutants_are_functions_of_seed_and_case_id():
    for name in language.names():
        L = language.get(name)
        a, b = M.draw_case(L, 5, 17), M.draw_case(L, 5, 17)
        assert a == b and a.ops and a.target in ("query", "stream", "graph")
        assert M.draw_case(L, 6, 17) != a or M.draw_case(L, 5, 18) != a


def test_classify():
    p = "/tmp/x/query.query"
    assert M.classify(0, "{}", "", None, [p]) == ("ok", "")
    assert M.classify(2, "", f"{p}:3:7: bad", None, [p]) == ("clean_error", "line:column")
    assert M.classify(2, "", f"{p}: bad", None, [p]) == ("clean_error", "file")
    assert M.classify(2, "", "ceplab: bad", None, [p]) == ("unlocated", "")
    assert M.classify(1, "", "", None, [p]) == ("disagreement", "")
    assert M.classify(3, "", "", None, [p]) == ("undecided", "")
    assert M.classify(4, "", "ceplab: OracleError: x", None, [p]) == ("traceback", "")
    assert M.classify(2, "", "Traceback (most recent call last):\n", None, [p]) == ("traceback", "")
    assert M.classify(None, "", "", "Traceback ...", [p]) == ("traceback", "")


def test_planted_faults_in_process():
    r = M.run_mutant("cel", 0, 3, fault="traceback")
    assert r["class"] == "traceback" and "injected fault" in r["traceback"], r
    assert "query.query" in r["files"] and r["args"][0] == "compare"
    r = M.run_mutant("cel", 0, 3, time_s=1.0, fault="hang")
    assert r["class"] == "hang" and r["seconds"] < 10, r
    assert language.get("cel").parse_file.__name__ != "bad"      # the fault is gone afterwards


@pytest.fixture(scope="module")
def spark():
    return spark_session("local[1]")


def test_small_campaign_every_language(spark, tmp_path):
    names = language.names()
    summ = M.campaign(names, cases=24, seed=0, spark=spark, out=tmp_path, progress=False, waves=1,
                       partitions=2)
    assert [s.lang for s in summ] == names
    for s in summ:
        counts = {c: getattr(s, c) for c in M.CLASSES}
        assert s.cases == 24 == sum(counts.values()), (s.lang, counts)
        assert s.traceback == 0 and s.hang == 0 and s.findings == 0, (s.lang, counts, s.reproducers)
        assert s.ok > 0 and s.clean_error > 0, (s.lang, counts)       # mutants both parse and fail to parse
        folder = tmp_path / s.lang / "malformed"
        saved = json.loads((folder / "summary.json").read_text())
        assert saved["complete"] and saved["cases"] == 24
        assert pq.read_table(folder / "results.parquet").num_rows == 24


def test_cli_planted_traceback_is_a_finding_with_reproducer(tmp_path):
    """Last in this module: the CLI stops the (shared) Spark session when it ends."""
    r = CliRunner().invoke(cli.app, ["fuzz", "cel", "--malformed", "--cases", "3", "--master", "local[1]",
                                     "--out", str(tmp_path), "--inject-fault", "traceback", "--json"])
    assert r.exit_code == 1, r.output
    (row,) = json.loads(r.stdout)["languages"]
    assert row["traceback"] == 3 and row["findings"] == 3 and len(row["reproducers"]) == 3
    case = json.loads((tmp_path / "cel" / "malformed" / "case-00000-traceback" / "case.json").read_text())
    assert "injected fault" in case["traceback"] and case["command"].startswith("ceplab compare cel ")
    assert (tmp_path / "cel" / "malformed" / "case-00000-traceback" / "query.query").exists()
