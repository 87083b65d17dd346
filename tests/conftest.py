"""Test-wide environment, read by every `Settings()` the tests build."""

from __future__ import annotations

import os

import pytest

# No solver work in the background of every test app: the daily and solvable tests
# prepare deals on demand, with their own small budgets.
os.environ.setdefault("DAILY_PREPARE_AHEAD", "false")
os.environ.setdefault("SOLVABLE_PREPARE_AHEAD", "false")
# An empty solvable pool refuses at once: the tests of proving for a waiting request
# (tests/api/test_solvable.py) turn the wait on.
os.environ.setdefault("SOLVABLE_WAIT_SECONDS", "0")
# Proven deals unrated (no simulated games after each proof): the tests of ratings
# (tests/api/test_difficulty.py) turn them on with a few games, or a stand-in rater.
os.environ.setdefault("DIFFICULTY_GAMES", "0")
# Long request work in a thread, not a worker process started for every test app that
# imports a record (tests/server/test_lane.py starts the real server's process lane).
os.environ.setdefault("LANE_KIND", "thread")
# Test processes build an app per test: freezing each one's objects would keep them all.
os.environ.setdefault("GC_FREEZE", "false")
# Many players from one test client's address: the tests of the bound
# (tests/api/test_free_accounts.py) set its real default or a small value themselves.
os.environ.setdefault("PLAYERS_PER_ADDRESS_PER_HOUR", "100000")


# The folders whose files take longest, first. Under pytest-xdist (`make test`: each file
# whole on one worker, in this order: the Makefile turns off xdist's own order, by count
# of tests) the file that starts last sets when the run ends: the browser tests (over
# 100 s in one file), the probes and the solver's differential tests start at once, and
# the many short files fill in around them.
LONGEST_FIRST = ("tests/web/", "tests/probes/", "tests/solver/")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        return next(
            (n for n, folder in enumerate(LONGEST_FIRST) if item.nodeid.startswith(folder)),
            len(LONGEST_FIRST),
        )

    items.sort(key=rank)  # stable: a file's tests keep their order
