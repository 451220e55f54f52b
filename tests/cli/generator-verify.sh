#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# systemd-analyze verify on a unit with the generator's drop-in: the unit
# loads cleanly with the project's entropy-ready.target, and the drop-in
# really takes effect: against a probe target ordered After= the unit,
# systemd finds the ordering cycle that Wants= + After= create (and finds
# none without the drop-in).
# Usage: generator-verify.sh GENERATOR SOURCE_DIR CONF_FILE
# (GENERATOR: the test twin, its root from $EG_TEST_ROOT)
set -eu
gen=$1 src=$2 conf_file=$3
if ! command -v systemd-analyze >/dev/null 2>&1; then
        echo "SKIP: systemd-analyze not installed"
        exit 77
fi
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# verify puts the directory of the unit it is given first in the search
# path: the unit lives alone in svc/, the targets elsewhere.
mkdir -p "$tmp/svc" "$tmp/units" "$tmp/normal" "$tmp/probe"
cat >"$tmp/svc/eg-test.service" <<'UNIT'
[Unit]
Description=A unit that needs a seeded pool

[Service]
Type=oneshot
ExecStart=/bin/true
UNIT
mkdir -p "$tmp/root$(dirname "$conf_file")"
printf '[Gate]\nUnits=eg-test.service\n' >"$tmp/root$conf_file"
SYSTEMD_LOG_TARGET=console EG_TEST_ROOT="$tmp/root" "$gen" "$tmp/normal" "$tmp/normal" "$tmp/normal" ||
        fail "generator exited $?"
[ -f "$tmp/normal/eg-test.service.d/50-entropy-gate.conf" ] || fail "no drop-in written"

# The project's own target when the source tree has a plain one, else a stand-in.
if [ -f "$src/units/entropy-ready.target" ] && ! grep -q @ "$src/units/entropy-ready.target"; then
        cp "$src/units/entropy-ready.target" "$tmp/units/"
else
        printf '[Unit]\nDescription=Entropy is ready\n' >"$tmp/units/entropy-ready.target"
fi
verify() {
        # The trailing ':' keeps the system's unit path (sysinit.target & co).
        SYSTEMD_UNIT_PATH="$1:" systemd-analyze verify --man=no "$tmp/svc/eg-test.service" >"$tmp/out" 2>&1
}

verify "$tmp/units:$tmp/normal" || fail "verify failed: $(cat "$tmp/out")"
if grep -E 'eg-test|entropy-ready' "$tmp/out"; then fail "verify complained"; fi

# Probe: a target ordered after the unit. With the drop-in that is a cycle.
printf '[Unit]\nDescription=probe\nAfter=eg-test.service\n' >"$tmp/probe/entropy-ready.target"
verify "$tmp/probe:$tmp/units:$tmp/normal" || true
# systemd names the cycle from whichever of its two jobs it meets first.
grep -Eq 'Found ordering cycle on (entropy-ready\.target|eg-test\.service)/start' "$tmp/out" ||
        fail "the drop-in did not take effect: $(cat "$tmp/out")"
verify "$tmp/probe:$tmp/units" || true
if grep -q 'ordering cycle' "$tmp/out"; then fail "cycle without the drop-in: the probe proves nothing"; fi
echo "generator-verify: ok"
