#!/usr/bin/env bash
# The native core under AddressSanitizer and UndefinedBehaviorSanitizer: build
# app.solver._core with them into a temporary directory (the source tree is left as it
# is), run the differential tests (tests/solver/test_native_core.py, or the -k
# expression in NATIVE_SANITIZED_TESTS; then a sample of the search's,
# tests/solver/test_native_search.py, the -k expression in NATIVE_SANITIZED_SEARCH;
# then the run-arrangement functions', tests/solver/test_arrangements.py, or the
# -k expression in NATIVE_SANITIZED_ARRANGED; then the beam's, tests/solver/test_beam.py;
# then the shorter lines', tests/solver/test_lines.py; then the plain search's on larger
# positions, tests/solver/test_exhaustive.py; then the relaxed tableau's searches,
# tests/solver/test_relaxation.py -k "lost_deal or with_it and True") against that
# build, and fail on any report.
#
# The relaxed tableau's sample leaves out the searches the other files already run (the
# search with and without the test, not up to arrangement): the whole suite runs them
# against the optimised build, and the relaxed test's native code runs here in the lost
# deal's search (15,475 positions, each asking it), the arranged search with it, and the
# beam's passes (test_beam.py).
#
#     scripts/native_sanitized.sh            # PYTHON=.venv/bin/python by default
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd)"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
SAMPLE="${NATIVE_SANITIZED_TESTS:-}"
SEARCH_SAMPLE="${NATIVE_SANITIZED_SEARCH:-late_positions or switched_off or near_the_end or won_or or hand_built or position_budget or full_table or deadline or bad_limits or passed_over or whole_cycle or rank-and-file-True}"
ARRANGED_SAMPLE="${NATIVE_SANITIZED_ARRANGED:-}"
WORK="$(mktemp -d /tmp/native-sanitized.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1"
# SOLVER_CHECKS: the core checks what it keeps (the piles' run starts) after every move.
CHECKS="-DSOLVER_CHECKS"
echo "== building app.solver._core with $FLAGS"
# -fno-wrapv: CPython compiles with -fwrapv, which would hide signed overflow from UBSan.
CFLAGS="$FLAGS $CHECKS -fno-wrapv" LDFLAGS="$FLAGS" "$PYTHON" setup.py -q build_ext \
    --build-lib "$WORK/lib" --build-temp "$WORK/build" >"$WORK/build.log" 2>&1 \
    || { cat "$WORK/build.log"; exit 1; }

# A copy of the package and its tests, with the sanitized core in place of any other.
mkdir "$WORK/src"
cp -r app tests seeds pyproject.toml "$WORK/src/"
find "$WORK/src" \( -name '_core*.so' -o -name __pycache__ \) -prune -exec rm -rf {} +
cp "$WORK"/lib/app/solver/_core*.so "$WORK/src/app/solver/"

export LD_PRELOAD
LD_PRELOAD="$(gcc -print-file-name=libasan.so)"
# CPython frees some memory only at exit: leaks are not what this looks for. Reports go
# to files where the runtime allows it, and pytest runs with -s, since its output
# capture would swallow a report that ends the run.
export ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:log_path=$WORK/report"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$WORK/report"
export PYTHONMALLOC=malloc  # every Python allocation through ASan's malloc
cd "$WORK/src"
"$PYTHON" -c 'import sys, app.solver._core as c; print("== core:", c.__file__); sys.exit(not c.__file__.startswith(sys.argv[1]))' "$WORK/src"

echo "== tests/solver/test_native_core.py${SAMPLE:+ -k $SAMPLE}"
status=0
"$PYTHON" -m pytest -q -s -p no:cacheprovider tests/solver/test_native_core.py \
    ${SAMPLE:+-k "$SAMPLE"} >"$WORK/tests.log" 2>&1 || status=$?
cat "$WORK/tests.log"
echo "== tests/solver/test_native_search.py -k $SEARCH_SAMPLE"
"$PYTHON" -m pytest -q -s -p no:cacheprovider tests/solver/test_native_search.py \
    -k "$SEARCH_SAMPLE" >>"$WORK/tests.log" 2>&1 || status=$?
tail -n 1 "$WORK/tests.log"
echo "== tests/solver/test_arrangements.py${ARRANGED_SAMPLE:+ -k $ARRANGED_SAMPLE}"
"$PYTHON" -m pytest -q -s -p no:cacheprovider tests/solver/test_arrangements.py \
    ${ARRANGED_SAMPLE:+-k "$ARRANGED_SAMPLE"} >>"$WORK/tests.log" 2>&1 || status=$?
tail -n 1 "$WORK/tests.log"
echo "== tests/solver/test_beam.py"
"$PYTHON" -m pytest -q -s -p no:cacheprovider tests/solver/test_beam.py \
    >>"$WORK/tests.log" 2>&1 || status=$?
tail -n 1 "$WORK/tests.log"
echo "== tests/solver/test_lines.py"
"$PYTHON" -m pytest -q -s -p no:cacheprovider tests/solver/test_lines.py \
    >>"$WORK/tests.log" 2>&1 || status=$?
tail -n 1 "$WORK/tests.log"
echo "== tests/solver/test_exhaustive.py -k 'not mirror_meets'"
"$PYTHON" -m pytest -q -s -p no:cacheprovider tests/solver/test_exhaustive.py \
    -k "not mirror_meets" >>"$WORK/tests.log" 2>&1 || status=$?
tail -n 1 "$WORK/tests.log"
echo "== tests/solver/test_relaxation.py -k 'lost_deal or with_it and True'"
"$PYTHON" -m pytest -q -s -p no:cacheprovider tests/solver/test_relaxation.py \
    -k "lost_deal or with_it and True" >>"$WORK/tests.log" 2>&1 || status=$?
tail -n 3 "$WORK/tests.log"  # a report, if any, is printed whole below
if compgen -G "$WORK/report.*" >/dev/null \
    || grep -qE "runtime error:|ERROR: AddressSanitizer|SUMMARY: [A-Za-z]+Sanitizer" "$WORK/tests.log"; then
    cat "$WORK"/report.* 2>/dev/null || true
    grep -E -A40 "runtime error:|ERROR: AddressSanitizer|SUMMARY: [A-Za-z]+Sanitizer" \
        "$WORK/tests.log" | head -n 120 || true
    echo "== sanitizer report above"
    exit 1
fi
if [ "$status" -ne 0 ]; then
    echo "== tests failed (exit $status)"
    exit "$status"
fi
echo "== clean: no sanitizer report"
