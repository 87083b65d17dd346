"""Which way imports run (docs: the layers): the product never imports research/ or its
extra (tqdm); the solver imports nothing above it (the services, the routers, the
database); the seeds lists' module, below both, imports only the engine."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parents[1] / "app"


def imported(path: Path) -> set[str]:
    """The modules a file imports, by their full dotted names (relative ones resolved)."""
    names: set[str] = set()
    package = ".".join(path.relative_to(APP.parent).with_suffix("").parts[:-1])
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(part for part in (base, node.module or "") if part)
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def offending(paths: list[Path], forbidden: tuple[str, ...]) -> list[str]:
    return sorted(
        f"{path.relative_to(APP.parent)}: {name}"
        for path in paths
        for name in imported(path)
        if name.split(".")[0] in forbidden or name.startswith(forbidden)
    )


def test_the_product_imports_no_research_and_not_its_extra() -> None:
    assert offending(sorted(APP.rglob("*.py")), ("research", "tqdm")) == []


@pytest.mark.parametrize("layer", ["solver", "engine"])
def test_the_solver_and_the_engine_import_nothing_above_them(layer: str) -> None:
    above = ("app.services", "app.routers", "app.db", "app.models", "app.main", "app.server")
    assert offending(sorted((APP / layer).rglob("*.py")), above) == []


def test_the_seeds_module_imports_only_the_engine_of_the_app() -> None:
    names = {name for name in imported(APP / "seeds.py") if name.startswith("app")}
    assert names and all(name.startswith("app.engine") for name in names)


def test_the_services_never_import_fastapi_nor_starlette() -> None:
    """Services take what they need (settings, pools, sessions), never the web app."""
    assert offending(sorted((APP / "services").rglob("*.py")), ("fastapi", "starlette")) == []
