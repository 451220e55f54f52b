#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# A long Units= list does not make the generator a cost at boot: at most
# 1024 units are gated, the first ones in configuration order (files, then
# the kernel command line), and more is an error that says so (exit 1), not
# a silent cut; skipped names are reported one by one up to 32, then
# counted in one message; repeats give one drop-in. How the cost grows with
# the list is measured by bench/generator-units, not here.
# Usage: generator-limits.sh GENERATOR CONF_FILE
# (GENERATOR: the test twin, its root from $EG_TEST_ROOT)
set -eu
gen=$1 conf_file=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

root=$tmp/root
mkdir -p "$root$conf_file.d" "$root/proc"
run() {   # run CMDLINE -> $tmp/out, $tmp/stderr, $rc
        rm -rf "$tmp/out" && mkdir "$tmp/out"
        printf '%s\n' "$1" >"$root/proc/cmdline"
        rc=0
        SYSTEMD_LOG_TARGET=console EG_TEST_ROOT="$root" "$gen" "$tmp/out" 2>"$tmp/stderr" || rc=$?
}
names() {   # names PREFIX FROM TO: PREFIX-FROM.service ... PREFIX-TO.service
        seq -f "$1-%05g.service" "$2" "$3" | tr '\n' ' '
}

# 1100 units: 1000 in the file, 50 in a drop-in, 50 on the command line.
{ echo '[Gate]'; echo "Units=$(names a 1 1000)"; } >"$root$conf_file"
{ echo '[Gate]'; echo "Units=$(names b 1 50)"; } >"$root$conf_file.d/50-more.conf"
run "ro entropy_gate.units=$(names c 1 50 | tr ' ' ',' | sed 's/,$//')"
[ "$rc" = 1 ] || fail "exit $rc with 1100 units to gate, expected 1"
n=$(ls "$tmp/out" | wc -l)
[ "$n" = 1024 ] || fail "$n drop-ins written, expected 1024"
[ -d "$tmp/out/a-01000.service.d" ] && [ -d "$tmp/out/b-00024.service.d" ] ||
        fail "not the first units in configuration order"
[ ! -e "$tmp/out/b-00025.service.d" ] && [ ! -e "$tmp/out/c-00001.service.d" ] ||
        fail "a unit past the limit was gated"
grep -q "more than 1024 units to gate: b-00025.service and the units after it are not gated" "$tmp/stderr" ||
        fail "no message for the limit: $(tail -3 "$tmp/stderr")"

# Exactly 1024, with repeats: fine.
{ echo '[Gate]'; echo "Units=$(names a 1 1000)"; echo "Units=$(names a 1 1000)"; } >"$root$conf_file"
{ echo '[Gate]'; echo "Units=$(names b 1 24)"; } >"$root$conf_file.d/50-more.conf"
run "entropy_gate.units=a-00001.service,b-00001.service"
[ "$rc" = 0 ] || fail "exit $rc with 1024 units: $(tail -3 "$tmp/stderr")"
[ "$(ls "$tmp/out" | wc -l)" = 1024 ] || fail "expected 1024 drop-ins with repeats"
[ ! -s "$tmp/stderr" ] || fail "messages for 1024 units: $(head -3 "$tmp/stderr")"

# 2000 skipped names (invalid, refused): 32 messages and one count.
{ echo '[Gate]'; echo "Units=ssh.service $(names bad 1 1000 | sed 's/\.service/.bogus/g') $(names var 1 1000 | sed 's/\.service/.mount/g')"; } \
        >"$root$conf_file"
rm -f "$root$conf_file.d/50-more.conf"
run ""
[ "$rc" = 0 ] || fail "exit $rc with skipped names"
[ "$(ls "$tmp/out")" = ssh.service.d ] || fail "expected only ssh.service gated: $(ls "$tmp/out" | head)"
n=$(grep -c -e "Invalid unit name" -e "Not ordering" "$tmp/stderr" || true)
[ "$n" = 32 ] || fail "$n names reported one by one, expected 32"
grep -q "Skipped 1968 more invalid or refused names" "$tmp/stderr" || fail "no count: $(tail -2 "$tmp/stderr")"
[ "$(wc -l <"$tmp/stderr")" = 33 ] || fail "$(wc -l <"$tmp/stderr") lines of messages, expected 33"
echo "generator-limits: ok"
