#!/usr/bin/env bash
# Installs the built project into a temporary prefix, then builds and runs
# tests/install/consumer against it twice: through find_package(mindrecord)
# and through pkg-config. Checks that internal headers (runtime.h, cv_util.h,
# ...) are not installed and that the umbrella header compiles on its own.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR CXX_COMPILER [CXX_FLAGS [EXE_LINKER_FLAGS]]
# (the flags the library was built with, e.g. a sanitizer's).
set -euo pipefail
build=$1 src=$2 cxx=$3 cxxflags=${4:-} ldflags=${5:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
inc="$tmp/prefix/include/mindrecord"
for internal in pipeline/runtime.h pipeline/ops/cv_util.h mindrecord/append_journal.h index/index_writer.h; do
  if [ -e "$inc/$internal" ]; then echo "internal header installed: $internal"; exit 1; fi
done
test -f "$inc/mindrecord/mindrecord.h" && test -f "$inc/mindrecord/version.h"
test -f "$tmp/prefix/bin/mindrecord"

echo "== find_package(mindrecord)"
cmake -S "$src/tests/install/consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="$cxxflags" \
  -DCMAKE_EXE_LINKER_FLAGS="$ldflags" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
mkdir "$tmp/out1"
"$tmp/consumer/consumer" "$tmp/out1"

echo "== pkg-config mindrecord"
pcdir=$(dirname "$(find "$tmp/prefix" -name mindrecord.pc)")
flags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs --static mindrecord)
# shellcheck disable=SC2086  # word splitting of the flag lists is intended
"$cxx" -std=c++20 -O1 $cxxflags -o "$tmp/consumer_pc" "$src/tests/install/consumer/main.cc" $flags $ldflags
mkdir "$tmp/out2"
"$tmp/consumer_pc" "$tmp/out2"
# The installed CLI reads what the consumer wrote.
"$tmp/prefix/bin/mindrecord" verify "$tmp/out2/data0"
