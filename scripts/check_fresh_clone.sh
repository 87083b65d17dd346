#!/usr/bin/env bash
# A fresh clone must pass its own tests (issue 11): clone the committed HEAD into an
# empty temporary directory, so that nothing lies beside it, give it its own virtual
# environment (the original tree's .venv would import the original tree), run the
# engine tests there, and check that no code or test names a folder outside the
# repository. Uncommitted changes are not part of the check: commit first.
#
# Usage: scripts/check_fresh_clone.sh   (PYTHON=python3.12 to pick the interpreter)
# Exit status: 0 when the clone passes; pytest's own status when the tests fail;
# 1 for any other failure.
set -euo pipefail

top="$(git rev-parse --show-toplevel)"
head="$(git -C "$top" rev-parse HEAD)"
python="${PYTHON:-python3}"

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

echo "== no reference to a folder outside the repository in app/ tests/ bench/ scripts/"
# The patterns are spelled so that this script does not match itself.
set +e
found="$(grep -rnI -e '\.\./shared' -e '/share[d]/' app tests bench scripts)"
status=$?
set -e
case "$status" in
    0) echo "$found" >&2; fail "the lines above reach outside the repository" ;;
    1) ;;
    *) fail "grep exited with status $status" ;;
esac

echo "== virtual environment inside the clone"
"$python" -m venv .venv || fail "$python -m venv"
.venv/bin/python -m pip install -q -e '.[test]' || fail "pip install -e '.[test]'"
where="$(.venv/bin/python -c 'import app; print(app.__file__)')" || fail "import app"
case "$where" in
    "$clone"/*) ;;
    *) fail "the clone's interpreter imports app from $where, not from the clone" ;;
esac

echo "== engine tests in the clone"
set +e
.venv/bin/python -m pytest -q -p no:cacheprovider tests/engine
status=$?
set -e
case "$status" in
    0) ;;
    5) fail "pytest collected no tests (status 5)" ;;
    *) echo "check_fresh_clone: FAILED: pytest exited with status $status" >&2; exit "$status" ;;
esac

echo "check_fresh_clone: OK (HEAD $head, ${SECONDS}s)"
