#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# "entropy-seed load" next to "systemd-random-seed load": wall time (median
# of hyperfine runs, both seed files on the same file system, so both pay
# for their fsyncs) and system call count (strace -c). Nothing of this host
# is modified: entropy-seed uses a temporary seed and run directory and
# --no-credit (it only mixes into the pool, as systemd-random-seed does by
# default), and systemd-random-seed runs in a private mount namespace with
# a temporary directory bind-mounted over /var/lib/systemd.
#
# usage: bench/seed-load.sh [RUNS]   (default 300; BUILD=dir to reuse a build; as root)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-300}
build=${BUILD:-$src/build-bench}
srs=/lib/systemd/systemd-random-seed

[ "$(id -u)" -eq 0 ] || { echo "needs root (mount namespace for systemd-random-seed)"; exit 1; }
for tool in hyperfine strace unshare python3; do
        command -v $tool >/dev/null || { echo "needs $tool"; exit 1; }
done
[ -x $srs ] || srs=/usr/lib/systemd/systemd-random-seed

if [ ! -x "$build/src/seed/entropy-seed" ] || [ -n "$(find "$src/src" -newer "$build/src/seed/entropy-seed" -name '*.[ch]' 2>/dev/null | head -1)" ]; then
        echo "Building entropy-seed in $build ..."
        cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DENTROPY_GATE_TESTS=OFF \
                -DENTROPY_GATE_CTL=OFF >/dev/null
        cmake --build "$build" --target entropy-seed -j"$(nproc)" >/dev/null
fi
seed=$build/src/seed/entropy-seed

tmp=$(mktemp -d /var/tmp/eg-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/srs"
export ENTROPY_GATE_RUN_DIR="$tmp/run" ENTROPY_GATE_PROC_CMDLINE=
"$seed" --seed-dir="$tmp/seed" save 2>/dev/null

# shellcheck disable=SC2016
unshare -m --propagation private sh -c '
        set -e
        mount --bind "$1/srs" /var/lib/systemd
        "$2" save
        hyperfine -N --warmup 20 --runs "$4" --export-json "$1/times.json" \
                "$2 load" "$3 --no-credit --seed-dir=$1/seed load" >/dev/null 2>&1
        strace -f -c -o "$1/srs.count" "$2" load
' sh "$tmp" "$srs" "$seed" "$runs"
strace -f -c -o "$tmp/seed.count" "$seed" --no-credit --seed-dir="$tmp/seed" load 2>/dev/null

python3 - "$tmp" <<'EOF'
import json, statistics, sys
tmp = sys.argv[1]
res = json.load(open(f"{tmp}/times.json"))["results"]
def calls(path):
    # "% time  seconds  usecs/call  calls  [errors]  total"
    return open(path).read().strip().splitlines()[-1].split()[3]
for r, count in zip(res, ("srs.count", "seed.count")):
    name = r["command"].split()[0].rsplit("/", 1)[-1]
    print(f"{name + ' load':28} median {statistics.median(r['times']) * 1000:6.2f} ms"
          f"  (user {r['user'] * 1000:.2f} ms, sys {r['system'] * 1000:.2f} ms)"
          f"  {calls(f'{tmp}/{count}')} system calls")
EOF
