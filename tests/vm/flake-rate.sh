#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The flake rate of the VM tiers: runs the whole VM suite N times in a row
# and prints, per tier and per check, how often it passed and failed.
#
# The suite is what CTest knows under the label "vm" in the build directory
# (tests/vm.cmake registers it), so this runs exactly what CI runs, one tier
# at a time, in CTest's order. Each tier prints its checks as
#   [vm]   ok   ID  description     or     [vm]   FAIL ID  description
# with IDs that carry no live values; a check a run did not reach (a tier
# that died early) counts as "absent".
#
# Usage: tests/vm/flake-rate.sh N [--build-dir DIR] [--log-dir DIR] [-R REGEX]
#        tests/vm/flake-rate.sh --tally LASTTEST.LOG...
#   --build-dir DIR  a configured build directory (default: build)
#   --log-dir DIR    where each run's output goes (default: DIR/vm-flake)
#   -R REGEX         only the VM tests whose CTest name matches (e.g. crash)
#   --tally          no run: the same table from runs already made, one
#                    CTest log (Testing/Temporary/LastTest.log, which keeps
#                    every test's output) per run, e.g. of CI's build-ci
# Exit: 0 when every check passed in every run, 1 otherwise, 2 on usage.
# Run as root, like the tiers; EG_VM_CACHE etc. pass through.

set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)

usage() { echo "usage: $0 N [--build-dir DIR] [--log-dir DIR] [-R REGEX] | --tally LASTTEST.LOG..." >&2; exit 2; }
[ $# -ge 1 ] || usage
tally=0
if [ "$1" = --tally ]; then
    shift
    [ $# -ge 1 ] || usage
    tally=1
    runs=$#
    log_dir=$(mktemp -d)
    trap 'rm -rf "$log_dir"' EXIT
    results=$log_dir/results.tsv
    runs_tsv=$log_dir/runs.tsv
    : >"$results"
    : >"$runs_tsv"
    i=0
    for f in "$@"; do
        i=$((i + 1))
        [ -r "$f" ] || { echo "cannot read $f" >&2; exit 2; }
        # A test's block starts with "N/M Test: NAME" and ends with its
        # "Test time = S sec" and "Test Passed." (or Failed, Skipped...).
        awk -v i="$i" -v runs="$runs_tsv" -v res="$results" '
            /^[0-9]+\/[0-9]+ Test: / { name = $3; vm = 0; next }
            name == "" { next }
            /^\[vm\]   (ok|FAIL) / { vm = 1; print i "\t" name "\t" $3 "\t" $2 >>res; next }
            /^Test time = / { secs = $4; next }
            /^Test (Passed|Failed)/ || /^Test .*(Skipped|Not Run|Timeout)/ {
                if (name ~ /^vm-/) {
                    rc = /^Test Passed/ ? 0 : /Skipped/ ? 77 : 1
                    printf "%d\t%s\t%d\t%d\n", i, name, rc, secs >>runs
                }
                name = ""
            }' "$f"
    done
fi
if [ "$tally" = 0 ]; then
runs=$1; shift
case $runs in ''|*[!0-9]*) usage ;; esac
[ "$runs" -ge 1 ] || usage
build=$src/build log_dir= regex=
while [ $# -gt 0 ]; do
    case $1 in
        --build-dir) build=$2; shift 2 ;;
        --log-dir) log_dir=$2; shift 2 ;;
        -R) regex=$2; shift 2 ;;
        *) usage ;;
    esac
done
build=$(cd "$build" 2>/dev/null && pwd) || { echo "no build directory '$build' (configure it with cmake first)" >&2; exit 2; }
log_dir=${log_dir:-$build/vm-flake}
mkdir -p "$log_dir"

# name<TAB>command (shell-quoted) of every VM test, from CTest itself.
tests=$(cd "$build" && ctest -L vm ${regex:+-R "$regex"} --show-only=json-v1 | python3 -c '
import json, shlex, sys
for t in json.load(sys.stdin)["tests"]:
    print(t["name"] + "\t" + shlex.join(t["command"]))
')
[ -n "$tests" ] || { echo "CTest knows no VM test in $build" >&2; exit 2; }

results=$log_dir/results.tsv   # run, tier, check, ok|FAIL|absent
runs_tsv=$log_dir/runs.tsv     # run, tier, exit status, seconds
: >"$results"
: >"$runs_tsv"
start=$(date +%s)
for i in $(seq "$runs"); do
    while IFS=$'\t' read -r name cmd; do
        log=$log_dir/run$i-$name.log
        printf '[flake] run %d/%d: %s ... ' "$i" "$runs" "$name" >&2
        t0=$(date +%s)
        (cd "$build" && eval "$cmd") >"$log" 2>&1 </dev/null
        rc=$?
        t=$(( $(date +%s) - t0 ))
        printf 'status %d, %d s\n' "$rc" "$t" >&2
        printf '%d\t%s\t%d\t%d\n' "$i" "$name" "$rc" "$t" >>"$runs_tsv"
        sed -n 's/^\[vm\]   \(ok\|FAIL\) *\([^ ]*\) .*/\1\t\2/p' "$log" |
            awk -v i="$i" -v t="$name" -F'\t' '{ print i "\t" t "\t" $2 "\t" $1 }' >>"$results"
    done <<<"$tests"
done
fi

# The table: every check a tier ever reported, with its count per outcome.
if [ "$tally" = 1 ]; then
    printf '\nVM flake rate: %d run(s) of the VM suite, from their CTest logs\n\n' "$runs"
else
    printf '\nVM flake rate: %d run(s) of the VM suite, %d min\n\n' "$runs" $(( ($(date +%s) - start) / 60 ))
fi
awk -F'\t' -v runs="$runs" '
    FNR == NR { rc[$2] += ($3 != 0 && $3 != 77); skip[$2] += ($3 == 77); secs[$2] += $4; n[$2]++
                if (!($2 in seen_tier)) { seen_tier[$2] = 1; tiers[++nt] = $2 }; next }
    { key = $2 SUBSEP $3
      if (!(key in seen)) { seen[key] = 1; order[$2, ++nc[$2]] = $3 }
      cnt[key, $4]++; got[key, $1] = 1 }
    END {
        printf "%-16s %-7s %-7s %-7s %s\n", "tier", "passed", "failed", "skipped", "mean time"
        for (t = 1; t <= nt; t++) {
            tn = tiers[t]
            printf "%-16s %-7d %-7d %-7d %d s\n", tn, n[tn] - rc[tn] - skip[tn], rc[tn], skip[tn], secs[tn] / n[tn]
        }
        printf "\n%-16s %-34s %5s %5s %6s\n", "tier", "check", "ok", "FAIL", "absent"
        bad = 0
        for (t = 1; t <= nt; t++) {
            tn = tiers[t]
            for (c = 1; c <= nc[tn]; c++) {
                id = order[tn, c]; key = tn SUBSEP id
                absent = 0
                for (r = 1; r <= runs; r++) if (!((key, r) in got)) absent++
                ok = cnt[key, "ok"] + 0; fail = cnt[key, "FAIL"] + 0
                # A check reported more than once per run counts each time.
                printf "%-16s %-34s %5d %5d %6d%s\n", tn, id, ok, fail, absent, (fail || absent) ? "  <--" : ""
                if (fail || absent) bad++
            }
        }
        for (t = 1; t <= nt; t++) bad += rc[tiers[t]]
        printf "\n%s\n", bad ? "FLAKY OR BROKEN: see the rows marked <-- and the logs in " logs : "0 failures"
        exit bad ? 1 : 0
    }' "$runs_tsv" logs="$log_dir" "$results"
