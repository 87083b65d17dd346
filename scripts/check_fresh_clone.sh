#!/usr/bin/env bash
# A fresh clone must pass its own tests: clone the committed HEAD into an
# empty temporary directory, so that nothing lies beside it, give it its own virtual
# environment (the original tree's .venv would import the original tree), run the
# README's test command (`make test`, the whole suite) there, and check that no code or
# test names a folder outside the repository. Uncommitted changes are not part of the
# check: commit first.
#
# Usage: scripts/check_fresh_clone.sh [make arguments, e.g. PYTEST_ARGS=-q]
#        (PYTHON=python3.12 to pick the interpreter)
# Exit status: 0 when the clone passes; make's own status when the tests fail;
# 1 for any other failure.
set -euo pipefail

top="$(git rev-parse --show-toplevel)"
head="$(git -C "$top" rev-parse HEAD)"
export PYTHON="${PYTHON:-python3}"  # the interpreter make builds the venv with

tmp="$(mktemp -d "${TMPDIR:-/tmp}/fresh-clone.XXXXXX")"
cleanup() { rm -rf "$tmp"; }
trap cleanup EXIT
tmp="$(cd "$tmp" && pwd -P)"  # the real path, to compare with where Python imports from
clone="$tmp/solitaire"

fail() {
    echo "check_fresh_clone: FAILED: $*" >&2
    exit 1
}

if [ -n "$(git -C "$top" status --porcelain --untracked-files=no)" ]; then
    echo "check_fresh_clone: note: uncommitted changes are not checked (HEAD $head only)"
fi

echo "== clone of HEAD $head into $clone"
git clone -q "$top" "$clone" || fail "git clone of $top"
if [ "$(git -C "$clone" rev-parse HEAD)" != "$head" ]; then
    # A detached HEAD is not what a clone checks out by default.
    git -C "$clone" fetch -q origin "$head" && git -C "$clone" checkout -q --detach "$head" ||
        fail "cannot check out $head in the clone"
fi
[ "$(git -C "$clone" rev-parse HEAD)" = "$head" ] || fail "the clone is not at $head"

cd "$clone"
# Nothing from the calling environment may lead Python back to the original tree.
unset PYTHONPATH PYTHONHOME PYTHONSTARTUP PYTHONUSERBASE VIRTUAL_ENV

echo "== no reference to a folder outside the repository in app/ tests/ bench/ research/ scripts/"
# The patterns are spelled so that this script does not match itself.
set +e
found="$(grep -rnI -e '\.\./shared' -e '/share[d]/' app tests bench research scripts)"
status=$?
set -e
case "$status" in
    0) echo "$found" >&2; fail "the lines above reach outside the repository" ;;
    1) ;;
    *) fail "grep exited with status $status" ;;
esac

echo "== the README's test command in the clone: make test $*"
# make test builds the clone's own .venv (the original tree's would import the
# original tree) and runs the whole suite; arguments go to make (e.g. PYTEST_ARGS=-q).
set +e
make test "$@"
status=$?
set -e
where="$(.venv/bin/python -c 'import app; print(app.__file__)')" || fail "import app"
case "$where" in
    "$clone"/*) ;;
    *) fail "the clone's interpreter imports app from $where, not from the clone" ;;
esac
case "$status" in
    0) ;;
    *) echo "check_fresh_clone: FAILED: make test exited with status $status" >&2; exit "$status" ;;
esac

echo "check_fresh_clone: OK (HEAD $head, ${SECONDS}s)"
