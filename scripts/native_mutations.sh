#!/usr/bin/env bash
# Do the solver's tests catch a broken core? Each mutation below breaks the C core in one
# way (a wrong key, a reduction made unsound, an off-by-one in move generation), builds
# it into a temporary directory (the source tree is left as it is) and runs the tests
# that must catch it: the run fails if any mutation is not applied, does not build, or
# passes its tests. `.ci/run` runs it.
#
#     scripts/native_mutations.sh            # PYTHON=.venv/bin/python by default
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd)"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
WORK="$(mktemp -d /tmp/native-mutations.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

survived=0

# mutate NAME FILE SED-EXPRESSION PYTEST-ARGS...
mutate() {
    local name="$1" file="$2" expression="$3"
    shift 3
    local src="$WORK/$name"
    mkdir -p "$src"
    cp -r app tests seeds setup.py pyproject.toml "$src/"
    find "$src" \( -name '_core*.so' -o -name __pycache__ \) -prune -exec rm -rf {} +
    sed -i -e "$expression" "$src/$file"
    if cmp -s "$file" "$src/$file"; then
        echo "== $name: the mutation did not apply to $file (the code moved?)"
        survived=1
        return
    fi
    if ! (cd "$src" && CFLAGS="-O1" "$PYTHON" setup.py -q build_ext --inplace \
            >"$WORK/$name.build.log" 2>&1); then
        cat "$WORK/$name.build.log"
        echo "== $name: the mutated core does not build"
        survived=1
        return
    fi
    local status=0
    (cd "$src" && "$PYTHON" -m pytest -q -x -p no:cacheprovider "$@" >"$WORK/$name.log" 2>&1) \
        || status=$?
    if [ "$status" -eq 1 ]; then
        echo "== $name: caught ($(grep -m1 -E '^FAILED' "$WORK/$name.log" || tail -n 1 "$WORK/$name.log"))"
    else
        tail -n 20 "$WORK/$name.log"
        echo "== $name: NOT caught (pytest exit $status)"
        survived=1
    fi
}

# The plain key depends on the order of the tableau piles (it must not).
mutate "key-order" app/solver/native/keys.c \
    's/uint64_t fresh = pile_key(&p->tableau\[i\]);/uint64_t fresh = pile_key(\&p->tableau[i]) * (uint64_t)(i + 1);/' \
    tests/solver/test_native_core.py -k "key"

# Obligations without the moves of the uncovered run that no combined move covers.
mutate "obligations" app/solver/native/followups.c \
    's/n += uncovered_run_moves(t, p, index, last, narrow, out + n);/n += 0;/' \
    tests/solver/test_native_search.py -k "whole_cycle"

# Runs one card shorter than they are.
mutate "run-length" app/solver/native/movegen.c \
    's/for (int count = 2; count <= longest; count++) {/for (int count = 2; count < longest; count++) {/' \
    tests/solver/test_native_core.py -k "every_corpus_position"

# Deferred draws made unsound: after a bare draw, nothing but another draw.
mutate "deferred-all" app/solver/native/reduce_deferred.c \
    's/return frame->drawn != NOT_DRAWN \&\& deferred(s, line, len, frame->drawn);/return frame->drawn != NOT_DRAWN \&\& line[0].move.action != DRAW;/' \
    tests/solver/test_reductions.py -k "full_search_gives_the_plain_search_verdict"

if [ "$survived" -ne 0 ]; then
    echo "== a mutation was not caught (above)"
    exit 1
fi
echo "== every mutation caught"
