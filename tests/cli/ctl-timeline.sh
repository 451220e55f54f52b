#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# entropyctl timeline on this host: it prints what exists, in order, and
# says what was not found rather than failing (a build host may have no
# journal and no systemd). With recorded seed and gate results the events
# appear in time order. The VM tier checks the full boot.
# Usage: ctl-timeline.sh ENTROPYCTL
set -eu
ctl=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

ENTROPY_GATE_RUN_DIR=$tmp/run "$ctl" timeline >"$tmp/out" || fail "timeline exited $?"
cat "$tmp/out"
grep -q '^ *0\.000000s  kernel started$' "$tmp/out" || fail "no kernel start"
# Without results, each missing source is named.
grep -q "not found  entropy-seed's result" "$tmp/out" || fail "missing seed result not reported"
grep -q "not found  entropy-gate's release" "$tmp/out" || fail "missing gate result not reported"

mkdir "$tmp/run"
printf 'ACTION=credited\nBITS=256\nREASON=\nBOOTTIME_USEC=2500000\n' >"$tmp/run/seed"
printf 'OUTCOME=ready\nREADY_AT_START=no\nSTART_BOOTTIME_USEC=2000000\nEND_BOOTTIME_USEC=3250000\nWAITED_USEC=1250000\n' >"$tmp/run/gate"
ENTROPY_GATE_RUN_DIR=$tmp/run "$ctl" timeline >"$tmp/out" || fail "timeline exited $?"
cat "$tmp/out"
grep -q '^ *2\.500000s  entropy-seed: seed loaded, credited 256 bits$' "$tmp/out" || fail "seed event wrong"
grep -q '^ *3\.250000s  entropy-gate released: ready, waited 1\.250s$' "$tmp/out" || fail "gate event wrong"
# The timed lines are in non-decreasing order.
grep -E '^ *[0-9]+\.[0-9]{6}s  ' "$tmp/out" | awk '{ t = $1 + 0; if (t < last) exit 1; last = t }' ||
        fail "events out of order"
echo "ctl-timeline: ok"
