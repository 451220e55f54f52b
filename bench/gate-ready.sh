#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The gate's ready path, measured: exec until READY=1 arrives, for
# entropy-gate against bench/baseline.c (the same probe and one sendmsg, and
# nothing else), interleaved, on this machine's initialized pool. Prints
# both medians and their ratio (target: at most 1.15), and fails if
# entropy-gate links anything but libc.
#
# usage: bench/gate-ready.sh [ITERATIONS]   (default 2000; BUILD=dir to reuse a build)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
iterations=${1:-2000}
build=${BUILD:-$src/build-bench}
cc=${CC:-cc}
cflags=${CFLAGS:--O3 -DNDEBUG}

if [ ! -x "$build/src/gate/entropy-gate" ] || [ -n "$(find "$src/src" -newer "$build/src/gate/entropy-gate" -name '*.[ch]' 2>/dev/null | head -1)" ]; then
        echo "Building entropy-gate in $build ..."
        cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DENTROPY_GATE_TESTS=OFF \
                -DENTROPY_GATE_CTL=OFF >/dev/null
        cmake --build "$build" --target entropy-gate -j"$(nproc)" >/dev/null
fi
gate=$build/src/gate/entropy-gate

echo "ldd $gate:"
ldd "$gate" | sed 's/^/  /'
if ldd "$gate" | grep -Ev '^[[:space:]]*(linux-vdso\.so|libc\.so|/[^ ]*ld-linux)' | grep -q .; then
        echo "FAIL: entropy-gate links more than libc"
        exit 1
fi

# The baseline gets the flags CMAKE_BUILD_TYPE=Release gives the gate.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2086
$cc $cflags -o "$tmp/baseline" "$src/bench/baseline.c"
# shellcheck disable=SC2086
$cc $cflags -o "$tmp/bench-ready" "$src/bench/bench-ready.c"
mkdir "$tmp/run"

# The gate's result file goes to a scratch directory, not /run; it still
# reads /proc/cmdline and looks for its configuration file, as at boot.
echo "exec until READY=1, $iterations runs each, interleaved:"
ENTROPY_GATE_RUN_DIR=$tmp/run "$tmp/bench-ready" "$iterations" "$gate" "$tmp/baseline"
