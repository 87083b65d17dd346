"""Test-wide environment, read by every `Settings()` the tests build."""

from __future__ import annotations

import os

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
