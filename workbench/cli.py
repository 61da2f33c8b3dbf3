"""The ``ceplab`` command (DESIGN.md section 4). Skeleton; subcommands are filled in per issue."""
from __future__ import annotations

import shutil
import sys


def java_available() -> bool:
    """True if a ``java`` executable is on the PATH (PySpark needs Java 17+)."""
    return shutil.which("java") is not None


def main() -> None:
    """Entry point of the ``ceplab`` console script."""
    if not java_available():
        print("ceplab: Java 17 or newer is required (PySpark runs on the JVM) but no 'java' "
              "was found on the PATH. Install a JDK 17+ (e.g. 'apt-get install openjdk-17-jre') "
              "and try again.", file=sys.stderr)
        raise SystemExit(2)
    print("ceplab: under construction", file=sys.stderr)
    raise SystemExit(0)
