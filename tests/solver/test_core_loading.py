"""Which core runs: app.solver.core says whether the native one is loaded and why not;
``auto`` falls back to Python, ``native`` is refused up front where it is missing; the
setting, the CLI and the start-up log (run built or not)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from asgi_lifespan import LifespanManager
from pydantic import ValidationError

from app.config import Settings
from app.engine import VARIANTS, deal
from app.main import create_app
from app.services.work import WorkPool
from app.solver import cli, core, plan


def test_the_core_says_whether_it_is_loaded_and_why_not() -> None:
    if core.available():
        assert core.missing_reason() == ""
        assert core.native().Position is not None
    else:
        assert "not built" in core.missing_reason()
        with pytest.raises(RuntimeError, match="not built"):
            core.native()


@pytest.fixture
def unbuilt(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run where the native core did not build."""
    monkeypatch.setattr(core, "_core", None)
    monkeypatch.setattr(core, "_MISSING", "app.solver._core is not built (test); reinstall")


def test_auto_runs_native_where_built_and_python_where_not(unbuilt: None) -> None:
    assert plan.resolve_core("auto") == "python"
    assert plan.resolve_core("python") == "python"
    assert "not built (test)" in plan.describe_core("auto")
    with pytest.raises(RuntimeError, match="not built"):
        plan.resolve_core("native")
    with pytest.raises(ValueError, match="core must be one of"):
        plan.resolve_core("fast")  # type: ignore[arg-type]
    # Without the core everything still works, on the Python search.
    state = deal(VARIANTS["rank-and-file"], 1)
    assert plan.solve(state, max_positions=3_000).result == "solved"
    with pytest.raises(RuntimeError, match="not built"):
        plan.solve(state, max_positions=10, core="native")


def test_insisting_on_a_missing_core_is_refused_up_front(
    unbuilt: None, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(RuntimeError, match="not built"):
        WorkPool(Settings(database_url="sqlite+aiosqlite://", solver_core="native"))
    with pytest.raises(SystemExit):
        cli.main(["survey", "rank-and-file", "--count", "1", "--budget", "10", "--core", "native"])
    assert "--core native: app.solver._core is not built" in capsys.readouterr().err


def test_the_setting_names_the_core(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOLVER_CORE", "python")
    monkeypatch.setenv("SOLVER_TABLE_SIZE", "1000")
    settings = Settings()
    assert (settings.solver_core, settings.solver_table_size) == ("python", 1000)
    monkeypatch.setenv("SOLVER_CORE", "fast")
    with pytest.raises(ValidationError):
        Settings()


async def test_the_start_up_log_says_which_core_runs(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = Settings(data_dir=tmp_path, daily_prepare_ahead=False, solvable_prepare_ahead=False)
    with caplog.at_level(logging.INFO, logger="app.main"):
        async with LifespanManager(create_app(settings)):
            pass
    expected = "native (app.solver._core" if core.available() else "python (SOLVER_CORE=auto"
    assert any(expected in r.getMessage() for r in caplog.records if r.name == "app.main")


async def test_a_server_told_to_run_a_missing_core_does_not_start(
    unbuilt: None, tmp_path: Path
) -> None:
    settings = Settings(
        data_dir=tmp_path,
        daily_prepare_ahead=False,
        solvable_prepare_ahead=False,
        solver_core="native",
    )
    with pytest.raises(RuntimeError, match="not built"):
        async with LifespanManager(create_app(settings)):
            pass
