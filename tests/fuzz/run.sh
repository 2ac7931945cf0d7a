#!/usr/bin/env bash
# Builds the libFuzzer targets (preset `fuzz`), makes seed corpora from the
# compat files, runs each target for SECONDS_PER_TARGET (default 60), then
# replays every committed regression input. Exits non-zero on any crash.
#
#   tests/fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]
#
# Environment: MINDRECORD_COMPAT_DIR (default ../shared/compat beside the
# checkout), FUZZ_JOBS (build jobs, default 2), FUZZ_RSS_MB (default 2048).
# Crashes are written to build-fuzz/artifacts/<target>/; copy a minimized one
# (./build-fuzz/tests/fuzz/<target> -minimize_crash=1 -runs=10000 FILE) to
# tests/fuzz/regressions/<target>/ once fixed.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
SECONDS_PER_TARGET=${1:-60}
shift || true
COMPAT=${MINDRECORD_COMPAT_DIR:-$ROOT/../shared/compat}
BUILD=$ROOT/build-fuzz
BIN=$BUILD/tests/fuzz
ALL_TARGETS=(header recovery page_walker row_codec int_packing index shard_reader
             mnist cifar pickle voc coco tfrecord csv text_file csv_source image_decode encryption compression remote
             cache_entry op_spec audio vectors celeba catalog)
if [ $# -gt 0 ]; then TARGETS=("$@"); else TARGETS=("${ALL_TARGETS[@]}"); fi

cmake --preset fuzz >/dev/null
cmake --build "$BUILD" -j "${FUZZ_JOBS:-2}" --target fuzzers

# Seeds: cut from the compat files at run time (never copied into the repo).
SEEDS=$BUILD/seeds
rm -rf "$SEEDS"
mkdir -p "$SEEDS"
if [ -d "$COMPAT" ]; then
  # Debian's interpreter has Pillow (seeds of the other image formats); the first python3 on PATH may not.
  PY=/usr/bin/python3
  [ -x "$PY" ] || PY=python3
  "$PY" "$ROOT/tests/fuzz/make_seeds.py" "$COMPAT" "$SEEDS"
else
  echo "run.sh: $COMPAT not found: fuzzing from empty corpora" >&2
fi

# op_spec: a dictionary of the op names and parameter keys the specs use.
{ grep -o '{"[A-Za-z0-9]*", &' "$ROOT/pipeline/ops/make_op.cc" | sed 's/{"\([A-Za-z0-9]*\)", &/"\\"\1\\""/'
  grep -ho '"[a-z_0-9]*":' "$ROOT/tests/fuzz/op_specs.jsonl" | sort -u | sed 's/"\([a-z_0-9]*\)":/"\\"\1\\":"/'; } >"$BUILD/op_spec.dict"

status=0
for t in "${TARGETS[@]}"; do
  exe=$BIN/${t}_fuzz
  corpus=$BUILD/corpus/$t
  artifacts=$BUILD/artifacts/$t
  mkdir -p "$corpus" "$artifacts" "$SEEDS/$t"
  echo "== $t: ${SECONDS_PER_TARGET}s"
  log=$BUILD/artifacts/$t.log
  if ! "$exe" -max_total_time="$SECONDS_PER_TARGET" -timeout=20 -rss_limit_mb="${FUZZ_RSS_MB:-2048}" \
        -max_len=1200000 -print_final_stats=1 -artifact_prefix="$artifacts/" \
        $( [ "$t" = op_spec ] && echo "-dict=$BUILD/op_spec.dict" ) \
        "$corpus" "$SEEDS/$t" >"$log" 2>&1; then
    echo "!! $t: crash (log $log, inputs in $artifacts/)"
    grep -m1 -A30 -E "ERROR: |runtime error|deadly signal" "$log" || tail -40 "$log"
    status=1
  fi
  grep -E "^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)" "$log" | tr '\n' ' '
  echo
  regressions=$ROOT/tests/fuzz/regressions/$t
  if [ -d "$regressions" ] && [ -n "$(ls -A "$regressions")" ]; then
    if ! "$exe" -runs=1 "$regressions"/* >"$log.regressions" 2>&1; then
      echo "!! $t: a regression input fails again (log $log.regressions)"
      tail -40 "$log.regressions"
      status=1
    else
      echo "   $t: $(ls "$regressions" | wc -l) regression inputs pass"
    fi
  fi
done
exit $status
