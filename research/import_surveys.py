"""The one import of the old result files into the dataset: every ``.jsonl`` file of
``bench/surveys/`` and ``bench/checks/`` as the commit ``--rev`` holds them (default: the
last commit that has ``bench/surveys/``), one row per line, into a new
``research/results.sqlite``. Kept so that the import can be run again from git's history:

    .venv/bin/python -m research.import_surveys [--rev REV] [--out research/results.sqlite]

Each file's kind, game, budget and settings come from its name (README: "How the old rows
were read"); each line goes through the same row shape as the command that writes such
rows today (``research/dataset.py``). A row's ``commit`` and ``date`` are those of the
commit that first recorded its line in git: the line's first appearance in its file's
history, or in a file renamed into it or merged into it and deleted. The import fails
unless the table holds exactly as many rows as the files have lines, and every row gives
back its line's JSON object (nothing lost)."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from app.engine import VARIANTS
from research import dataset

FOLDERS = ("bench/surveys", "bench/checks")
# "<game>-<budget>m[-<name>].jsonl": a survey of a game at a budget. "<game>-1m.jsonl" (no
# name) are the first surveys, of deals 1-200, which the "-1m-native" surveys searched
# again: kept, never counted.
SURVEY_NAME = re.compile(r"^(?P<game>[a-z-]+?)-(?P<millions>\d+)m(?:-(?P<name>.+))?\.jsonl$")
# Budgets and settings the files' names do not carry, as docs/solvability.md and
# the history of docs/benchmarks.md give them for those runs.
DOCUMENTED: dict[str, dict[str, Any]] = {
    "unsolvable-reproved.jsonl": {
        "budget": 10_000_000,
        "settings": {"search": "full search alone (core.search), up to run arrangement"},
    },
    "plain-lost-canfield.jsonl": {"budget": 100_000_000},
    "plain-lost-canfield-400m.jsonl": {"budget": 400_000_000},
    "peer-forty-thieves-lost.jsonl": {"settings": {"timeout": 120}},
    "peer-forty-thieves-lost-300s.jsonl": {
        "settings": {"timeout": 300, "cache_capacity": 50_000_000}
    },
}


def git(*args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=dataset.ROOT, capture_output=True, text=True, check=True
    )
    return done.stdout


def default_rev() -> str:
    """The last commit that has ``bench/surveys/`` (the last to change either folder, or
    the one before it when that one deleted them)."""
    last = git("rev-list", "-1", "HEAD", "--", *FOLDERS).strip()
    has = subprocess.run(
        ["git", "cat-file", "-e", f"{last}:{FOLDERS[0]}"], cwd=dataset.ROOT, capture_output=True
    )
    return last if has.returncode == 0 else git("rev-parse", f"{last}^").strip()


class Blobs:
    """File contents at commits, through one ``git cat-file --batch``."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            ["git", "cat-file", "--batch"],
            cwd=dataset.ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )

    def read(self, rev: str, path: str) -> str:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(f"{rev}:{path}\n".encode())
        self.process.stdin.flush()
        header = self.process.stdout.readline().split()
        if header[-1] == b"missing":
            raise FileNotFoundError(f"{rev}:{path}")
        data = self.process.stdout.read(int(header[2]) + 1)[:-1]
        return data.decode()

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()


def lines_of(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def changes(rev: str) -> Iterator[tuple[str, str, list[tuple[str, str]]]]:
    """(commit, date, [(status, path)]) of every commit up to ``rev`` that touches the
    folders, oldest first; a rename gives ("R", new path) and ("renamed-from", old path)."""
    log = git("log", "--reverse", "-M", "--format=@%H %cs", "--name-status", rev, "--", *FOLDERS)
    commit, date = "", ""
    touched: list[tuple[str, str]] = []
    for line in log.splitlines():
        if line.startswith("@"):
            if commit:
                yield commit, date, touched
            commit, date = line[1:].split()
            touched = []
        elif line.strip():
            status, *paths = line.split("\t")
            if status.startswith("R"):
                touched += [("renamed-from", paths[0]), ("R", paths[1])]
            else:
                touched.append((status[0], paths[0]))
    if commit:
        yield commit, date, touched


def first_appearances(
    rev: str, blobs: Blobs
) -> tuple[
    dict[str, dict[tuple[str, int], int]],
    list[tuple[str, str]],
    dict[str, str],
    dict[str, list[str]],
]:
    """For every path the folders ever held: (line, k) -> the index of the first commit whose
    version of the file holds ``k`` copies of ``line``. Also the commits (hash, date) in
    order, the renames (old -> new), and the last lines of the files deleted."""
    seen: dict[str, dict[tuple[str, int], int]] = {}
    commits: list[tuple[str, str]] = []
    renames: dict[str, str] = {}
    deleted: dict[str, list[str]] = {}
    last: dict[str, list[str]] = {}
    for index, (commit, date, touched) in enumerate(changes(rev)):
        commits.append((commit, date))
        renamed_from = [path for status, path in touched if status == "renamed-from"]
        for status, path in touched:
            if not path.endswith(".jsonl") or status == "renamed-from":
                continue
            if status == "D":
                deleted[path] = last.get(path, [])
                continue
            if status == "R":
                renames[renamed_from.pop(0)] = path
            last[path] = lines_of(blobs.read(commit, path))
            marks = seen.setdefault(path, {})
            for line, count in Counter(last[path]).items():
                for k in range(1, count + 1):
                    marks.setdefault((line, k), index)
    return seen, commits, renames, {p: v for p, v in deleted.items() if p not in renames}


def ancestors(
    final: dict[str, list[str]], renames: dict[str, str], deleted: dict[str, list[str]]
) -> dict[str, list[str]]:
    """Each final file's own path, the paths renamed into it, and the deleted files merged
    into it: of the files of the same game and budget, the one that holds most of a
    deleted file's last lines (a merge may drop rows searched twice)."""
    out = {path: [path] for path in final}
    for old, new in renames.items():
        out[new].append(old)
    for gone, lines in deleted.items():
        prefix = re.sub(r"-[^-]+\.jsonl$", "", gone)
        held = {
            path: sum((Counter(lines) & Counter(kept)).values())
            for path, kept in final.items()
            if path.startswith(prefix)
        }
        best = max(held.values(), default=0)
        targets = [path for path, count in held.items() if count == best]
        if not best or len(targets) != 1:
            raise SystemExit(f"{gone}: deleted, and no one file holds most of its lines")
        out[targets[0]].append(gone)
        print(f"{gone}: merged into {targets[0]} ({best} of {len(lines)} lines)", file=sys.stderr)
    return out


def shape(path: str) -> tuple[str, dict[str, Any]]:
    """A file's row shape and what its name (or the docs, :data:`DOCUMENTED`) says: kind,
    game, budget, settings."""
    name = Path(path).name
    known = DOCUMENTED.get(name, {})
    survey = SURVEY_NAME.match(name)
    if path.startswith("bench/surveys/") and survey and survey["game"] in VARIANTS:
        part = survey["name"]
        return "survey", {
            "kind": "early-survey" if not part and survey["millions"] == "1" else "survey",
            "game": survey["game"],
            "budget": int(survey["millions"]) * 1_000_000,
            "settings": {"name": part} if part else {},
        }
    stem = Path(name).stem
    if name == "unsolvable-reproved.jsonl":
        return "survey", {"kind": "reproof", "game": "", **known}
    if stem.startswith("plain-lost-"):
        settings = {"name": stem, "search": "plain (core.exhaustive)"}
        return "plain", {"budget": known.get("budget"), "settings": settings}
    if stem.startswith("peer-"):
        return "peer", {
            "settings": {"solver": "solvitaire", "name": stem, **known.get("settings", {})}
        }
    if stem.startswith("soundness"):
        return "soundness", {"budget": None, "settings": {"name": stem}}
    raise SystemExit(f"{path}: no row shape for this file")


def record(path: str, row: dict[str, Any]) -> dict[str, Any]:
    kind, told = shape(path)
    source = path
    if kind == "survey":
        return dataset.survey_row(
            row,
            game=told["game"],
            budget=told.get("budget"),
            settings=told.get("settings", {}),
            source=source,
            kind=told["kind"],
        )
    if kind == "plain":
        return dataset.plain_row(
            row, budget=told["budget"], settings=told["settings"], source=source
        )
    if kind == "peer":
        return dataset.peer_row(row, settings=told["settings"], source=source)
    return dataset.soundness_row(row, budget=None, settings=told["settings"], source=source)


def rebuilt(row: dict[str, Any]) -> dict[str, Any]:
    """The JSON object a table row was made from (the inverse of the row shapes)."""
    settings, extra = json.loads(row["settings"]), json.loads(row["extra"])
    kind = row["kind"]
    if kind in ("survey", "early-survey", "reproof"):
        out: dict[str, Any] = {"deal": row["deal"], "result": row["verdict"]}
        out["positions"] = row["positions"]
        if kind == "reproof":
            out |= {"game": row["game"], "seconds": row["seconds"]}
        else:
            out["elapsed_ms"] = round(row["seconds"] * 1000)
        if kind != "reproof":  # its settings are the docs' words, not the row's
            out |= {k: settings[k] for k in ("search", "via") if k in settings}
        return out | extra
    if kind == "plain":
        return (
            {"game": row["game"], "deal": row["deal"], "plain": row["verdict"]}
            | {
                "plain_positions": row["positions"],
                "seconds": row["seconds"],
            }
            | extra
        )
    if kind == "peer":
        return {"game": row["game"], "deal": row["deal"], "seconds": row["seconds"]} | extra
    out = {"game": row["game"]} | extra
    if row["verdict"] is not None:
        out["plain"] = row["verdict"]
    if row["positions"] is not None:
        out["plain_positions"] = row["positions"]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rev", default=None, help="the commit to read the files from")
    parser.add_argument("--out", type=Path, default=dataset.DATASET)
    args = parser.parse_args(argv)
    if args.out.exists():
        raise SystemExit(f"{args.out} exists: the import makes a new dataset (remove it first)")
    rev = args.rev or default_rev()
    print(f"reading the files of {rev}", file=sys.stderr)
    paths = [
        path
        for path in git("ls-tree", "-r", "--name-only", rev, "--", *FOLDERS).split()
        if path.endswith(".jsonl")
    ]
    blobs = Blobs()
    final = {path: lines_of(blobs.read(rev, path)) for path in paths}
    seen, commits, renames, deleted = first_appearances(rev, blobs)
    blobs.close()
    family = ancestors(final, renames, deleted)
    rows = []
    for path in paths:
        copies: Counter[str] = Counter()
        for line in final[path]:
            copies[line] += 1
            key = (line, copies[line])
            first = min(seen[a][key] for a in family[path] if key in seen.get(a, {}))
            commit, date = commits[first]
            rows.append({**record(path, json.loads(line)), "commit": commit, "date": date})
    connection = dataset.connect(args.out)
    dataset.append(connection, rows)
    stored = list(connection.execute("SELECT * FROM searches ORDER BY id"))
    lines = sum(len(lines) for lines in final.values())
    originals = [json.loads(line) for path in paths for line in final[path]]
    lost = [
        row["source"]
        for row, original in zip(stored, originals, strict=True)
        if rebuilt(dict(row)) != original
    ]
    if len(stored) != lines or lost:
        raise SystemExit(f"{len(stored)} rows for {lines} lines; rows that differ: {lost[:5]}")
    connection.execute("VACUUM")
    connection.close()
    print(f"{len(paths)} files, {lines} lines: {len(stored)} rows, each its line ({args.out})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
