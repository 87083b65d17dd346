"""The native core's layout (docs/native-core.md): no C function above a cyclomatic
complexity of 20, and every reduction file (``reduce_*.c``) saying in its header why it
loses no win and, in its ``Reduction`` value, whether the full search may use it."""

from __future__ import annotations

import re
from pathlib import Path

import lizard  # type: ignore[import-untyped]

from app.solver import core

NATIVE = Path(__file__).resolve().parents[2] / "app" / "solver" / "native"
MOST_COMPLEX = 20

# Functions allowed above the bound: none; no function may join it.
NOT_YET_SPLIT: set[tuple[str, str]] = set()


def test_no_native_function_is_too_complex() -> None:
    found = []
    for path in sorted([*NATIVE.glob("*.c"), *NATIVE.glob("*.h")]):
        for function in lizard.analyze_file(str(path)).function_list:
            if (path.name, function.name) in NOT_YET_SPLIT:
                continue
            if function.cyclomatic_complexity > MOST_COMPLEX:
                found.append(
                    f"{path.name}:{function.start_line} {function.name} "
                    f"{function.cyclomatic_complexity}"
                )
    assert not found, "above a complexity of 20: " + ", ".join(found)


def test_every_reduction_says_why_and_whether_a_proof_may_use_it() -> None:
    files = sorted(NATIVE.glob("reduce_*.c"))
    assert len(files) >= 8
    for path in files:
        text = path.read_text()
        header = " ".join(text[: text.index("*/")].replace("*", " ").split())
        assert text.startswith("/*") and "sound for proofs of loss" in header.lower(), path.name
        assert "docs/solver.md" in header or "docs/native-core.md" in header, path.name
        values = re.findall(r"const Reduction \w+ = \{(.*?)\};", text, re.S)
        assert values, path.name
        for value in values:
            assert re.search(r"\.sound_for_loss = (true|false)", value), path.name


def reduction_soundness() -> dict[str, bool]:
    """Each reduction's name in C and its `sound_for_loss` flag."""
    flags = {}
    for path in NATIVE.glob("reduce_*.c"):
        for name, value in re.findall(
            r"const Reduction (\w+) = \{(.*?)\};", path.read_text(), re.S
        ):
            flags[name] = "sound_for_loss = true" in value
    return flags


def wanted_bodies() -> dict[str, str]:
    """Each reduction's name in C and the body of its `wanted` function ("" for none)."""
    bodies = {}
    for path in NATIVE.glob("reduce_*.c"):
        text = path.read_text()
        for name, value in re.findall(r"const Reduction (\w+) = \{(.*?)\};", text, re.S):
            function = re.search(r"\.wanted = (\w+)", value)
            body = ""
            if function:
                found = re.search(
                    rf"static bool {function.group(1)}\(const Limits \*limits\)\s*\{{(.*?)\}}",
                    text,
                    re.S,
                )
                assert found, (path.name, name)
                body = " ".join(found.group(1).split())
            bodies[name] = body
    return bodies


def test_the_full_search_lists_only_reductions_sound_for_proofs_of_loss() -> None:
    """Its exhaustion answers `unsolvable`: every reduction it may run must keep a win.
    The driver lists a reduction that is not sound only in a narrow search, and each such
    reduction wants narrow searches only; the full search's names are the sound ones."""
    source = (NATIVE / "search.c").read_text()
    listed = source[source.index("static const Reduction *const LIST[] = {") :]
    names = re.findall(r"&(\w+)", listed[: listed.index("};")])
    flags = reduction_soundness()
    assert set(names) == set(flags), names
    assert len([name for name in names if flags[name]]) == len(core.FULL_REDUCTIONS)
    assert ": !limits->narrow;" in source  # an unsound reduction is left out of full searches
    bodies = wanted_bodies()
    for name in names:
        if not flags[name]:
            assert bodies[name].startswith("return limits->narrow"), (name, bodies[name])
    assert any(not flags[name] for name in names)
