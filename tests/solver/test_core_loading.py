"""The native core is the solver: the install builds it or stops saying what to install,
and nothing chooses another search any more."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.config import Settings
from app.solver import cli, core

ROOT = Path(__file__).resolve().parents[2]


def test_the_core_is_loaded() -> None:
    assert core.native().Position is not None and core.native().search is not None


def test_a_build_without_a_compiler_stops_and_names_what_to_install(tmp_path: Path) -> None:
    """`pip install` runs setup.py's build_ext; with no compiler it must fail, saying so
    (not install a package whose solver cannot run)."""
    env = {**os.environ, "CC": str(tmp_path / "no-such-cc")}
    build = subprocess.run(
        [
            sys.executable,
            "setup.py",
            "-q",
            "build_ext",
            "--build-temp",
            str(tmp_path / "temp"),
            "--build-lib",
            str(tmp_path / "lib"),
            "--force",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode != 0
    assert "apt-get install gcc python3-dev" in build.stderr + build.stdout
    assert not list((tmp_path / "lib").rglob("_core*"))


def test_the_core_choice_is_gone(monkeypatch: pytest.MonkeyPatch) -> None:
    # An old deployment's SOLVER_CORE is ignored, not an error; the CLI has no --core.
    monkeypatch.setenv("SOLVER_CORE", "python")
    assert not hasattr(Settings(), "solver_core")
    with pytest.raises(SystemExit):
        cli.main(["prove", "rank-and-file", "--count", "1", "--budget", "10", "--core", "python"])
