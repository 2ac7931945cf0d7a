#!/usr/bin/env bash
# Runs the benchmark suite and writes benchmarks/results/REPORT.md with PNG plots.
#
#   bash benchmarks/run.sh [--scale F] [--runs N] [--warmup N] [--workloads records,images,open]
#                          [--build-dir DIR] [--python-dir DIR] [--no-build] [--out DIR] [--work DIR]
#   bash benchmarks/run.sh --smoke --build-dir DIR   # every benchmark at a tiny size (CTest)
#
# --scale multiplies every workload size (1 = 200k records, 20k JPEGs, 1M
# records for the open test). Generated JPEGs are kept in the work folder
# between runs; everything else written there is removed. The PyTorch rows
# and the Python row loops against python3-lmdb (rows_vs_lmdb.py, with the
# records workload) need the Python module (--python-dir, default
# BUILD/python; a build with -DMINDRECORD_BUILD_PYTHON=ON) and are left out
# without it.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build
SCALE=1 RUNS=5 WARMUP=1 SMOKE=0 BUILD_IT=1
WORKLOADS=records,images,open
OUT=$ROOT/benchmarks/results
WORK=${TMPDIR:-/tmp}/mr_bench
while [ $# -gt 0 ]; do
  case $1 in
    --scale) SCALE=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --workloads) WORKLOADS=$2; shift 2 ;;
    --build-dir) BUILD=$2; shift 2 ;;
    --python-dir) PYDIR=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --no-build) BUILD_IT=0; shift ;;
    --smoke) SMOKE=1; shift ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
PY=/usr/bin/python3  # Debian's, with python3-matplotlib
PYDIR=${PYDIR:-$BUILD/python}

if [ "$SMOKE" = 1 ]; then
  # Tiny sizes, one run each, nothing built or written outside a temp folder.
  TMP=$(mktemp -d)
  trap 'rm -rf "$TMP"' EXIT
  B=$BUILD/benchmarks
  SMOKE_EXTRA=()
  "$B/formats_bench" --scale 0.001 --runs 1 --warmup 0 --work "$TMP/work" --out "$TMP/results.json"
  # Without --out it writes nothing (a one-workload run from the checkout never overwrites the committed results).
  (cd "$TMP" && "$B/formats_bench" --scale 0.001 --runs 1 --warmup 0 --work "$TMP/work" --workloads open >/dev/null 2>&1)
  [ -z "$(find "$TMP" -name results.json -not -path "$TMP/results.json" -not -path "$TMP/work/*")" ]
  "$B/convert_bench" --images 20 --dir "$TMP/convert" >/dev/null
  for src in "$ROOT"/benchmarks/*_bench.cc; do  # the Google Benchmark programs
    name=$(basename "$src" .cc)
    case $name in formats_bench|convert_bench) continue ;; esac
    MR_BENCH_ROWS=500 MR_BENCH_IMAGES=16 "$B/$name" --benchmark_min_time=0.001 >/dev/null
  done
  if ls "$PYDIR"/mindrecord/_core*.so >/dev/null 2>&1; then
    PYTHONPATH=$PYDIR "$PY" "$ROOT/benchmarks/torch_bench.py" --images-dir "$(ls -d "$TMP"/work/images_*/src)" \
      --mindrecord-cli "$BUILD/mindrecord" --count 32 --runs 1 --warmup 0 --max-workers 1 --work "$TMP" \
      --out "$TMP/torch.json" >/dev/null
    PYTHONPATH=$PYDIR "$PY" "$ROOT/benchmarks/recipe_bench.py" --count 32 --runs 1 --warmup 0 --max-workers 1 \
      --work "$TMP/recipes" --out "$TMP/recipes.json" >/dev/null
    PYTHONPATH=$PYDIR "$PY" "$ROOT/benchmarks/rows_vs_lmdb.py" --rows 2000 --runs 1 --min-round 0 --work "$TMP" \
      --out "$TMP/python.json" >/dev/null
    PYTHONPATH=$PYDIR "$PY" "$ROOT/benchmarks/python_code_bench.py" --rows 512 --runs 1 --json "$TMP/code.json" \
      >/dev/null
    PYTHONPATH=$PYDIR "$PY" "$ROOT/benchmarks/listing_bench.py" --files 200 --lines 2000 --runs 1 >/dev/null
    PYTHONPATH=$PYDIR "$PY" "$ROOT/benchmarks/startup_bench.py" --cli "$BUILD/mindrecord" --runs 1 >/dev/null
    SMOKE_EXTRA=(--extra "$TMP/python.json" --extra "$TMP/torch.json" --extra "$TMP/recipes.json")
  fi
  "$PY" "$ROOT/benchmarks/report.py" "$TMP/results.json" "${SMOKE_EXTRA[@]}" --out "$TMP/report"
  test -s "$TMP/report/REPORT.md"
  [ ${#SMOKE_EXTRA[@]} = 0 ] || grep -q "Python row loops" "$TMP/report/REPORT.md"
  echo "benchmarks smoke run: OK"
  exit 0
fi

if [ "$BUILD_IT" = 1 ]; then
  [ -f "$BUILD/build.ninja" ] || (cd "$ROOT" && cmake --preset default)
  cmake --build "$BUILD" --target formats_bench core_bench ops_bench pipeline_bench convert_bench mindrecord_cli -j2
  cmake --build "$BUILD" --target mindrecord_python -j2 || echo "run.sh: no Python module; PyTorch rows left out" >&2
fi
mkdir -p "$OUT" "$WORK"
echo "run.sh: scale $SCALE, $RUNS runs after $WARMUP warm-up; load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
# One formats_bench run per workload, each followed by the Python runs of
# its data: the Python row loops read the records workload's kind of rows
# right after it, not after the images workload has filled the page cache
# with gigabytes (the kernel's reclaim after that slowed their ~0.1 s rounds
# by up to a quarter, and unevenly).
RESULTS=() EXTRA=()
for WL in records images open; do
  case ",$WORKLOADS," in *,$WL,*) ;; *) continue ;; esac
  "$BUILD/benchmarks/formats_bench" --scale "$SCALE" --runs "$RUNS" --warmup "$WARMUP" --workloads "$WL" \
    --work "$WORK" --out "$OUT/formats_$WL.json"
  RESULTS+=("$OUT/formats_$WL.json")
  ls "$PYDIR"/mindrecord/_core*.so >/dev/null 2>&1 || continue
  case $WL in
    records)
      ROWS=$("$PY" -c "print(max(2000, round(200000 * $SCALE)))")
      PYTHONPATH=$PYDIR "$PY" "$ROOT/benchmarks/rows_vs_lmdb.py" --rows "$ROWS" --runs "$RUNS" --work "$WORK" \
        --out "$OUT/python.json" && EXTRA+=(--extra "$OUT/python.json") ;;
    images)
      N=$("$PY" -c "print(max(32, round(20000 * $SCALE)))")
      COUNT=$("$PY" -c "print(max(32, round(1000 * $SCALE)))")
      PYTHONPATH=$PYDIR "$PY" "$ROOT/benchmarks/torch_bench.py" --images-dir "$WORK/images_$N/src" \
        --mindrecord-cli "$BUILD/mindrecord" --count "$COUNT" --runs "$RUNS" --warmup "$WARMUP" --work "$WORK" \
        --out "$OUT/torch.json" && EXTRA+=(--extra "$OUT/torch.json")
      RC=$("$PY" -c "print(max(32, round(512 * $SCALE)))")
      PYTHONPATH=$PYDIR "$PY" "$ROOT/benchmarks/recipe_bench.py" --images-dir "$WORK/images_$N/src" --count "$RC" \
        --runs "$RUNS" --warmup "$WARMUP" --work "$WORK/recipes" --out "$OUT/recipes.json" &&
        EXTRA+=(--extra "$OUT/recipes.json") ;;
  esac
done
[ ${#RESULTS[@]} -gt 0 ] || { echo "run.sh: --workloads $WORKLOADS names none of records, images, open" >&2; exit 2; }
"$PY" "$ROOT/benchmarks/report.py" "${RESULTS[@]}" "${EXTRA[@]}" --out "$OUT" --build-dir "$BUILD"
echo "run.sh: wrote $OUT/REPORT.md" >&2
