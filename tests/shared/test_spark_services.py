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


def _ceplab(*args: str, timeout: float = 600) -> dict:
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    p = subprocess.run([sys.executable, "-m", "ceplab.workbench.cli", *args, "--json"], capture_output=True,
                       text=True, env=env, timeout=timeout)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-4000:]
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


def test_standalone_cluster_on_loopback(tmp_path, dataset):
    with StandaloneCluster(workers=2, cores=1) as cl:
        # the first attempt of the tasks holding case 0, 7, 14, 21 fails; Spark retries them on the cluster
        _run_all(tmp_path, dataset, ["--master", cl.url], "--inject-task-failures", "7")


def test_spark_connect_on_loopback(tmp_path, dataset):
    with ConnectServer(cores=2) as cs:
        _run_all(tmp_path, dataset, ["--remote", cs.url])
