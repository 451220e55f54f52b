#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The generator never makes an ordering cycle with the units of this
# system's distribution. Every service, socket, timer and path unit
# installed under /lib/systemd/system (templates with an instance) is named
# in Units=; the generator gates what it accepts and refuses the rest. Then
# systemd-analyze verify builds one start transaction that pulls in the
# seed helper, the gate, entropy-ready.target and every gated unit at once:
# a unit the gate or the seed helper is ordered after would close a cycle
# there, which systemd reports as "Found ordering cycle". The same probe
# with a drop-in written by hand for systemd-remount-fs.service (which the
# generator refuses) must find one: the method can fail.
# Usage: generator-cycles.sh GENERATOR CONF_FILE UNITS_BUILD_DIR
# (GENERATOR: the test twin, its root from $EG_TEST_ROOT)
set -eu
gen=$1 conf_file=$2 units=$3
if ! command -v systemd-analyze >/dev/null 2>&1; then
        echo "SKIP: systemd-analyze not installed"
        exit 77
fi
sysdir=/lib/systemd/system
[ -d "$sysdir" ] || sysdir=/usr/lib/systemd/system
if [ ! -f "$sysdir/systemd-remount-fs.service" ]; then
        echo "SKIP: no systemd units in $sysdir to test against"
        exit 77
fi
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$tmp/root$(dirname "$conf_file")" "$tmp/root/proc" "$tmp/normal" "$tmp/ours" "$tmp/probe" "$tmp/bad"
: >"$tmp/root/proc/cmdline"
for u in entropy-seed.service entropy-gate.service entropy-ready.target; do
        [ -f "$units/$u" ] || fail "no $units/$u: build the project first"
        cp "$units/$u" "$tmp/ours/"
done

# Every candidate, by name; a template gets an instance.
names=$(cd "$sysdir" && ls | grep -E '\.(service|socket|timer|path)$' | sed 's/@\./@eg-test./' | sort -u)
n_names=$(echo "$names" | wc -l)
{ printf '[Gate]\nUnits='; echo $names; } >"$tmp/root$conf_file"
SYSTEMD_LOG_TARGET=console EG_TEST_ROOT="$tmp/root" "$gen" "$tmp/normal" 2>"$tmp/gen.log" ||
        fail "generator exited $?: $(cat "$tmp/gen.log")"
gated=$(cd "$tmp/normal" && ls | sed 's/\.d$//')
n_gated=$(echo "$gated" | grep -c . || true)
n_refused=$(grep -c 'would make an ordering cycle' "$tmp/gen.log" || true)
echo "$n_names units named: $n_gated gated, $n_refused refused"
[ "$n_gated" -gt 10 ] || fail "only $n_gated units gated: the test proves little"

# verify takes the directory of the unit file it is given first in its path.
probe() {   # probe DIR UNIT... -> $tmp/verify.out
        dir=$1
        shift
        { printf '[Unit]\nDescription=probe\nWants=entropy-seed.service entropy-ready.target'
          for u in "$@"; do printf ' %s' "$u"; done
          printf '\n'; } >"$tmp/probe/eg-probe.target"
        SYSTEMD_UNIT_PATH="$tmp/probe:$dir:$tmp/ours:" \
                systemd-analyze verify --man=no "$tmp/probe/eg-probe.target" >"$tmp/verify.out" 2>&1 || true
}

# Without any drop-in: the distribution's own units make no cycle.
probe "$tmp/empty" $gated
if grep -q 'ordering cycle' "$tmp/verify.out"; then
        fail "a cycle without any drop-in: $(grep -A3 'ordering cycle' "$tmp/verify.out")"
fi

# With the generator's drop-ins: still none.
probe "$tmp/normal" $gated
if grep -q 'ordering cycle' "$tmp/verify.out"; then
        # Name the culprits, one probe each.
        for u in $gated; do
                probe "$tmp/normal" "$u"
                grep -q 'ordering cycle' "$tmp/verify.out" && echo "cycle through $u"
        done
        fail "the generator's drop-ins make an ordering cycle: $(grep -A5 'ordering cycle' "$tmp/verify.out" | head -20)"
fi

# The control: a drop-in the generator refuses to write closes a cycle.
grep -q 'Not ordering systemd-remount-fs.service after entropy-ready.target' "$tmp/gen.log" ||
        fail "systemd-remount-fs.service was not refused"
mkdir -p "$tmp/bad/systemd-remount-fs.service.d"
printf '[Unit]\nWants=entropy-ready.target\nAfter=entropy-ready.target\n' \
        >"$tmp/bad/systemd-remount-fs.service.d/50-entropy-gate.conf"
probe "$tmp/bad" systemd-remount-fs.service
grep -q 'Found ordering cycle' "$tmp/verify.out" ||
        fail "the control found no cycle: the probe proves nothing: $(cat "$tmp/verify.out")"
echo "generator-cycles: ok"
