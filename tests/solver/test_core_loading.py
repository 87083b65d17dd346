"""app.solver.core says whether the native core is loaded, and why not (run built or not)."""

from __future__ import annotations

import pytest

from app.solver import core


def test_the_core_says_whether_it_is_loaded_and_why_not() -> None:
    if core.available():
        assert core.missing_reason() == ""
        assert core.native().Position is not None
    else:
        assert "not built" in core.missing_reason()
        with pytest.raises(RuntimeError, match="not built"):
            core.native()
