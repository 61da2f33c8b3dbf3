"""The workbench on real Spark deployments on loopback (ceplab.workbench.sparkprocs): a standalone cluster (a
master and two workers) and a Spark Connect server, each driven the way a researcher would, through the CLI in
a separate process (``--master spark://...``, ``--remote sc://...``): a fuzz campaign and a long-stream check of
a dataset generated beforehand with a local session.  Marked ``spark_services`` (they run in CI; ``-m "not spark_services"`` skips them)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ceplab.workbench.sparkprocs import ConnectServer, StandaloneCluster

pytestmark = pytest.mark.spark_services

QUERY = "(A AS a ; B AS b ; C AS c) FILTER (a.v = b.v AND b.v = c.v) WITHIN 15\n"


def _ceplab(*args: str, rc: int = 0, timeout: float = 600) -> dict:
    """``ceplab ARGS --json`` in a child process: its JSON line, after asserting the exit code ``rc``."""
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    p = subprocess.run([sys.executable, "-m", "ceplab.workbench.cli", *args, "--json"], capture_output=True,
                       text=True, env=env, timeout=timeout)
    assert p.returncode == rc, p.stdout[-2000:] + p.stderr[-4000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """A generated CEL dataset (2 streams of 600 events), drawn with this process's local session."""
    from ceplab.workbench import language
    from ceplab.workbench.generate import generate
    from ceplab.workbench.spark import spark_session

    out = tmp_path_factory.mktemp("gen") / "gen"
    man = generate(spark_session("local[2]"), language.get("cel"), 600, 2, 1, out, chunk=200)
    assert man["written"] == 1200 and man["files"] == 6
    return out


def _run_all(tmp_path, dataset, where: list[str], *extra: str) -> None:
    f = _ceplab("fuzz", "cel", "--cases", "24", "--seed", "3", "--out", str(tmp_path / "fuzz"), *where, *extra)
    (lang,) = f["languages"]
    assert lang["cases"] == 24 and lang["agree"] == 24          # every case's verdict exactly once
    (tmp_path / "q.cel").write_text(QUERY)
    c = _ceplab("check", "cel", str(tmp_path / "q.cel"), str(dataset), "--stream", "1",
                "--segment-events", "100", *where)
    assert c["verdict"] == "agree" and c["events"] == 600 and c["segments"] >= 5
    m = _ceplab("matrix", "--cases", "2", "--languages", "cel,etalis", *where)
    assert not m["bugs"] and {c["construct"] for c in m["cells"]} >= {"seq", "or", "sel:latest"}


def test_standalone_cluster_on_loopback(tmp_path, dataset):
    with StandaloneCluster(workers=2, cores=1) as cl:
        # the first attempt of the tasks holding case 0, 7, 14, 21 fails; Spark retries them on the cluster
        _run_all(tmp_path, dataset, ["--master", cl.url], "--inject-task-failures", "7")


def test_spark_connect_on_loopback(tmp_path, dataset):
    with ConnectServer(cores=2) as cs:
        _run_all(tmp_path, dataset, ["--remote", cs.url])


def _verdicts(folder) -> list[tuple]:
    import pyarrow.parquet as pq

    t = pq.read_table(folder / "cel" / "results.parquet").to_pydict()
    return sorted(zip(t["case_id"], t["verdict"], t["oracle_count"], t["engine_count"]))


def _executor_started(cl: StandaloneCluster, worker: int) -> bool:
    """Whether an executor on worker ``worker`` has started running tasks (its stderr in the work dir)."""
    for log in (cl.tmp / "work" / f"w{worker}").glob("app-*/*/stderr"):
        if "Running task" in log.read_text(errors="replace"):
            return True
    return False


def test_a_worker_killed_mid_campaign(tmp_path):
    """Issue 15 item 4: a worker JVM (and its executor) killed with SIGKILL while a campaign runs on the cluster;
    Spark re-runs the lost tasks on the other worker, and the campaign ends with every case's verdict exactly
    once and the same verdicts, counts and counterexamples as the same campaign on a local master.  An injected
    engine fault (``drop``) makes some cases disagree, so counterexamples must survive the loss too."""
    import signal
    import time

    args = ["fuzz", "cel", "--cases", "1500", "--seed", "5", "--inject-fault", "drop", "--max-reproducers", "2",
            "--shrink-s", "0"]
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    with StandaloneCluster(workers=2, cores=1) as cl:
        p = subprocess.Popen([sys.executable, "-m", "ceplab.workbench.cli", *args, "--out", str(tmp_path / "cl"),
                              "--master", cl.url, "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=env)
        t_end = time.monotonic() + 240
        while not _executor_started(cl, 1):
            assert p.poll() is None and time.monotonic() < t_end, "no task ever ran on worker 1"
            time.sleep(0.2)
        time.sleep(2.0)                                   # inside the case waves, not only the streams job
        assert p.poll() is None, "the campaign ended before the worker could be killed (make it longer)"
        os.killpg(cl.workers[1].pid, signal.SIGKILL)      # the worker JVM and the executor it started
        out, err = p.communicate(timeout=900)
    assert p.returncode == 1, err[-4000:]                 # exit 1: the injected fault's disagreements
    killed = json.loads(out.strip().splitlines()[-1])["languages"][0]
    assert killed["cases"] == 1500 and killed["disagree"] > 0
    ref = _ceplab(*args, "--out", str(tmp_path / "local"), "--master", "local[2]", rc=1)["languages"][0]
    assert {k: killed[k] for k in ("cases", "agree", "disagree", "undecided")} == \
        {k: ref[k] for k in ("cases", "agree", "disagree", "undecided")}
    rows = _verdicts(tmp_path / "cl")
    assert [r[0] for r in rows] == list(range(1500))      # every verdict exactly once
    assert rows == _verdicts(tmp_path / "local")
    assert sorted(f.name for f in (tmp_path / "cl" / "cel").glob("case-*.json")) == \
        sorted(f.name for f in (tmp_path / "local" / "cel").glob("case-*.json")) != []

