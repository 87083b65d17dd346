"""Every code an engine error carries is in `REASONS` (the `reason` enum of the API's
document), and every entry there is raised somewhere."""

from __future__ import annotations

import ast
from pathlib import Path

from app.engine.errors import REASONS

ENGINE = Path(__file__).resolve().parents[2] / "app" / "engine"
ERRORS = {"IllegalMove", "InvalidMove", "InvalidDeal", "InvalidRecord", "UnknownVariant"}


def _raised_codes() -> set[str]:
    """The first argument of every engine error built with a literal code, and the codes
    a rule's reason (a `(code, message, params)` tuple returned to `IllegalMove(*why)`)
    names."""
    codes: set[str] = set()
    for path in ENGINE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ERRORS:
                first = node.args[0] if node.args else None
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    codes.add(first.value)
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
                parts = node.value.elts
                if len(parts) in (2, 3) and isinstance(parts[0], ast.Constant):
                    value = parts[0].value
                    if isinstance(value, str) and value.islower() and "_" in value:
                        codes.add(value)
    return codes


def test_every_code_the_engine_raises_is_a_listed_reason() -> None:
    raised = _raised_codes() - {"corrupt_state"}  # a bug (500), never a reason
    assert raised - set(REASONS) == set()


def test_every_listed_reason_is_raised() -> None:
    assert set(REASONS) - _raised_codes() == set()
    assert all(text and text == text.strip() for text in REASONS.values())
