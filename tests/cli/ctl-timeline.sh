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

# The fake-pool entropyctl takes its root from $EG_TEST_ROOT (a test seam).
EG_TEST_ROOT=$tmp "$ctl" timeline >"$tmp/out" || fail "timeline exited $?"
cat "$tmp/out"
grep -q '^ *0\.000000s  kernel started$' "$tmp/out" || fail "no kernel start"
# Without results, each missing source is named.
grep -q "not found  entropy-seed's result" "$tmp/out" || fail "missing seed result not reported"
grep -q "not found  entropy-gate's release" "$tmp/out" || fail "missing gate result not reported"

mkdir -p "$tmp/run/entropy-gate"
printf 'ACTION=credited\nBITS=256\nREASON=\nBOOTTIME_USEC=2500000\n' >"$tmp/run/entropy-gate/seed"
printf 'OUTCOME=ready\nREADY_AT_START=no\nSTART_BOOTTIME_USEC=2000000\nEND_BOOTTIME_USEC=3250000\nWAITED_USEC=1250000\n' >"$tmp/run/entropy-gate/gate"
EG_TEST_ROOT=$tmp "$ctl" timeline >"$tmp/out" || fail "timeline exited $?"
cat "$tmp/out"
grep -q '^ *2\.500000s  entropy-seed: seed loaded, credited 256 bits$' "$tmp/out" || fail "seed event wrong"
grep -q '^ *3\.250000s  entropy-gate released: ready, waited 1\.250s$' "$tmp/out" || fail "gate event wrong"
# How the pool most likely became ready: one line, and in --json.
grep -q '^     provenance  most likely ready by the saved seed entropy-seed credited (256 bits)' "$tmp/out" ||
        fail "no provenance line for a credited seed"
EG_TEST_ROOT=$tmp "$ctl" timeline --json=short >"$tmp/json" || fail "timeline --json exited $?"
grep -q '"provenance":{"verdict":"seed","text":"most likely ready by the saved seed' "$tmp/json" ||
        fail "no provenance in --json: $(cat "$tmp/json")"
# The timed lines are in non-decreasing order.
grep -E '^ *[0-9]+\.[0-9]{6}s  ' "$tmp/out" | awk '{ t = $1 + 0; if (t < last) exit 1; last = t }' ||
        fail "events out of order"
# The VM tier's order checker must pass a good boot and fail a bad one.
order="$(dirname "$0")/ctl-timeline-order.sh"
cat >"$tmp/good" <<'TL'
      0.000000s  kernel started
      3.000000s  entropy-seed.service: starting (load)
      3.100000s  kernel: random: crng init done
      3.150000s  entropy-seed: seed loaded, credited 2048 bits
      4.000000s  entropy-gate.service: starting
      4.100000s  entropy-gate released: ready, waited 0.000s
      4.200000s  entropy-ready.target reached
      9.000000s  eg-vm-gated.service started (ordered after entropy-ready.target)
TL
sh "$order" --seeded "$tmp/good" eg-vm-gated.service >"$tmp/order" || { cat "$tmp/order"; fail "good timeline refused"; }
sed 's/^      4.200000s  entropy-ready/      9.500000s  entropy-ready/' "$tmp/good" >"$tmp/bad"
if sh "$order" "$tmp/bad" eg-vm-gated.service >"$tmp/order"; then fail "unit before the target accepted"; fi
grep -v 'crng init done' "$tmp/good" >"$tmp/bad"
if sh "$order" "$tmp/bad" >"$tmp/order"; then fail "missing crng init accepted"; fi
sed 's/credited 2048 bits/not credited: first boot/' "$tmp/good" >"$tmp/bad"
if sh "$order" --seeded "$tmp/bad" >"$tmp/order"; then fail "uncredited seed accepted with --seeded"; fi
echo "ctl-timeline: ok"
