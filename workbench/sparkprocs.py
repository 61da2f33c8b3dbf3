"""Spark services on loopback, started from the PySpark distribution: a Spark Connect server and a standalone
cluster (a master and workers).  The tests use them to run campaigns and checks the way a researcher would run
them against a real deployment (``--remote sc://...``, ``--master spark://...``); nothing here is needed to
use ceplab with ``local[*]``.

Both bind to 127.0.0.1 on free ports, keep their logs, pid files and work folders under a temporary folder
(they default to the inside of site-packages), run Python workers with this interpreter
(``PYSPARK_PYTHON``), and run in their own process groups, which :meth:`stop` kills (terminating the shell
wrapper alone would leave the JVM running).  This module names no language.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def spark_home() -> Path:
    """The PySpark package folder (it is a Spark distribution: ``bin/``, ``sbin/``, ``jars/``)."""
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_port(port: int, timeout_s: float, procs: list[subprocess.Popen], what: str, log: Path) -> None:
    t_end = time.monotonic() + timeout_s
    while time.monotonic() < t_end:
        for p in procs:
            if p.poll() is not None:
                raise RuntimeError(f"{what} exited with code {p.returncode}; log: {log}")
        with socket.socket() as s:
            s.settimeout(0.5)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.5)
    raise RuntimeError(f"{what} did not open port {port} within {timeout_s:g} s; log: {log}")


class _Service:
    def __init__(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="ceplab-spark-"))
        self.procs: list[subprocess.Popen] = []

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(SPARK_HOME=str(spark_home()), PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable,
                   SPARK_LOCAL_IP="127.0.0.1", SPARK_LOG_DIR=str(self.tmp / "logs"),
                   SPARK_PID_DIR=str(self.tmp / "pids"), SPARK_WORKER_DIR=str(self.tmp / "work"))
        from ceplab.workbench.spark import worker_pythonpath

        env["PYTHONPATH"] = worker_pythonpath(env.get("PYTHONPATH", ""))
        for d in ("logs", "pids", "work"):
            (self.tmp / d).mkdir(exist_ok=True)
        return env

    def _start(self, args: list[str], log_name: str) -> subprocess.Popen:
        log = open(self.tmp / log_name, "wb")
        p = subprocess.Popen(args, env=self._env(), stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             start_new_session=True, cwd=self.tmp)
        self.procs.append(p)
        return p

    def stop(self) -> None:
        """Kill every process group this service started and wait for them."""
        for p in reversed(self.procs):
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
        self.procs.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


class ConnectServer(_Service):
    """A Spark Connect server on ``sc://127.0.0.1:<port>`` over a ``local[cores]`` master
    (``sbin/start-connect-server.sh --wait``)."""

    def __init__(self, cores: int = 2, timeout_s: float = 120.0) -> None:
        super().__init__()
        self.port = free_port()
        self.url = f"sc://127.0.0.1:{self.port}"
        p = self._start(["bash", str(spark_home() / "sbin" / "start-connect-server.sh"), "--wait",
                         "--master", f"local[{cores}]",
                         "--conf", f"spark.connect.grpc.binding.port={self.port}",
                         "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
                         "--conf", "spark.ui.enabled=false",
                         "--conf", f"spark.executorEnv.PYTHONPATH={self._env()['PYTHONPATH']}"], "connect.log")
        try:
            _wait_port(self.port, timeout_s, [p], "the Spark Connect server", self.tmp / "connect.log")
        except BaseException:
            self.stop()
            raise


class StandaloneCluster(_Service):
    """A standalone master on ``spark://127.0.0.1:<port>`` and ``workers`` workers of ``cores`` cores each
    (``bin/spark-class org.apache.spark.deploy.master.Master`` / ``...worker.Worker``)."""

    def __init__(self, workers: int = 2, cores: int = 1, memory: str = "1g", timeout_s: float = 120.0) -> None:
        super().__init__()
        self.port = free_port()
        self.url = f"spark://127.0.0.1:{self.port}"
        cls = str(spark_home() / "bin" / "spark-class")
        m = self._start([cls, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port",
                         str(self.port), "--webui-port", str(free_port())], "master.log")
        try:
            _wait_port(self.port, timeout_s, [m], "the Spark master", self.tmp / "master.log")
            self.workers = []
            for i in range(workers):
                self.workers.append(self._start(
                    [cls, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--cores", str(cores),
                     "--memory", memory, "--webui-port", str(free_port()), "--work-dir",
                     str(self.tmp / "work" / f"w{i}"), self.url], f"worker{i}.log"))
            self._wait_workers(workers, timeout_s)
        except BaseException:
            self.stop()
            raise

    def _wait_workers(self, n: int, timeout_s: float) -> None:
        t_end = time.monotonic() + timeout_s
        log = self.tmp / "master.log"
        while time.monotonic() < t_end:
            text = log.read_text(errors="replace") if log.exists() else ""
            if text.count("Registering worker") >= n:
                return
            for p in self.procs:
                if p.poll() is not None:
                    raise RuntimeError(f"a Spark process exited with code {p.returncode}; logs in {self.tmp}")
            time.sleep(0.5)
        raise RuntimeError(f"{n} worker(s) did not register within {timeout_s:g} s; log: {log}")


__all__ = ["ConnectServer", "StandaloneCluster", "free_port", "spark_home"]
