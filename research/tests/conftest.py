"""No test writes the committed dataset: every command's default dataset is a file of the
test's own (tests that read the committed one open it read-only, by COMMITTED)."""

from __future__ import annotations

from pathlib import Path

import pytest

from research import dataset

COMMITTED = dataset.DATASET


@pytest.fixture(autouse=True)
def scratch_dataset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "scratch.sqlite"
    monkeypatch.setattr(dataset, "DATASET", path)
    return path
