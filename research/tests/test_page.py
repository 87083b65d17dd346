"""docs/solvability.md is what ``python -m research page`` writes from the committed
dataset (research/page.py): a change of the rows or of the page's prose without writing
the page again fails here."""

from __future__ import annotations

from research import dataset, page
from research.tests.conftest import COMMITTED

PAGE = dataset.ROOT / "docs" / "solvability.md"


def test_the_committed_page_is_what_the_command_writes() -> None:
    written = page.render(dataset.connect(COMMITTED, readonly=True))
    assert PAGE.read_text(encoding="utf-8") == written, (
        "docs/solvability.md differs from the dataset's page: run "
        "`.venv/bin/python -m research page > docs/solvability.md`"
    )


def test_the_page_carries_both_tables_and_the_canfield_figure() -> None:
    written = page.render(dataset.connect(COMMITTED, readonly=True))
    assert written.index("within 10,000,000 positions") < written.index(
        "within 1,000,000 positions"
    )
    assert "| canfield | 1,000 | 884 (88.4%; 86.3-90.2%) |" in written
    assert "71.245% +/- 0.031%" in written
