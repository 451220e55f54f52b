#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# entropy-gate-generator against a temp output dir: Units= from the file and
# its drop-ins plus entropy_gate.units= give one drop-in each; invalid names
# and our own units are skipped with a message; nothing lands elsewhere.
# GENERATOR is the test twin, whose root comes from $EG_TEST_ROOT; CONF_FILE
# the configured path of entropy-gate.conf; REAL_GENERATOR the installed
# build, which must ignore the environment.
# Usage: generator-basic.sh GENERATOR CONF_FILE REAL_GENERATOR
set -eu
gen=$1 conf_file=$2 real=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

root=$tmp/root
mkdir -p "$root$conf_file.d" "$root/proc" "$tmp/normal" "$tmp/early" "$tmp/late"
ln -s "$root$conf_file" "$tmp/main.conf"
ln -s "$root$conf_file.d" "$tmp/conf.d"
cat >"$tmp/main.conf" <<'CONF'
[Gate]
Units=ssh.service bad/name.service getty@tty1.service
Units=foo.bogus
CONF
cat >"$tmp/conf.d/50-more.conf" <<'CONF'
[Gate]
Units=ssh.service,cert@.service entropy-gate.service
CONF

run() {
        printf '%s\n' "$1" >"$root/proc/cmdline"
        SYSTEMD_LOG_TARGET=console EG_TEST_ROOT="$root" "$gen" "$tmp/normal" "$tmp/early" "$tmp/late" 2>"$tmp/stderr"
}

run 'ro quiet entropy_gate.units=tls-keys.service,../../etc/passwd.service,x.socket' || fail "generator exited $?"
cat "$tmp/stderr"

expected='[Unit]
Wants=entropy-ready.target
After=entropy-ready.target'
for u in ssh.service getty@tty1.service cert@.service tls-keys.service x.socket; do
        f="$tmp/normal/$u.d/50-entropy-gate.conf"
        [ -f "$f" ] || fail "no drop-in for $u"
        [ "$(grep -v '^#' "$f" | sed '/^$/d')" = "$expected" ] || fail "unexpected content in $f: $(cat "$f")"
done
# Exactly those five, nothing in the early and late dirs, nothing escaped.
n=$(find "$tmp/normal" -type f | wc -l)
[ "$n" = 5 ] || fail "expected 5 drop-ins, found $n: $(find "$tmp/normal")"
[ -z "$(find "$tmp/early" "$tmp/late" -mindepth 1)" ] || fail "wrote into the early or late dir"
[ ! -e "$tmp/etc" ] && [ ! -e "$tmp/passwd.service.d" ] || fail "a name escaped the output dir"

for bad in "'bad/name.service'" "'foo.bogus'" "'../../etc/passwd.service'"; do
        grep -q "Invalid unit name $bad" "$tmp/stderr" || fail "no message for $bad"
done
grep -q "Not ordering entropy-gate.service after entropy-ready.target, it would make an ordering cycle" \
        "$tmp/stderr" || fail "no message for entropy-gate.service"

# Units the gate or the seed helper are ordered after, and whole classes,
# are refused, each with its reason; what remains is gated.
rm -rf "$tmp/normal" && mkdir "$tmp/normal"
printf '[Gate]\nUnits=ssh.service\n' >"$tmp/main.conf"
rm -f "$tmp/conf.d/50-more.conf"
run 'entropy_gate.units=systemd-remount-fs.service,local-fs.target,var-lib.mount,systemd-journald.service' ||
        fail "generator exited $?"
for u in systemd-remount-fs.service local-fs.target var-lib.mount systemd-journald.service; do
        grep -q "Not ordering $u after entropy-ready.target, it would make an ordering cycle: ." "$tmp/stderr" ||
                fail "no refusal for $u: $(cat "$tmp/stderr")"
        [ ! -e "$tmp/normal/$u.d" ] || fail "gated $u"
done
[ "$(ls "$tmp/normal")" = ssh.service.d ] || fail "expected only ssh.service gated: $(ls "$tmp/normal")"

# --help answers on stdout, and writes nothing anywhere.
(cd "$tmp" && "$gen" --help >"$tmp/help" 2>"$tmp/stderr") || fail "--help exited $?"
grep -q "NORMAL_DIR" "$tmp/help" || fail "no usage in --help"
grep -q "$conf_file" "$tmp/help" || fail "--help does not name $conf_file"
[ ! -s "$tmp/stderr" ] && [ ! -e "$tmp/--help" ] || fail "--help was taken for a directory"

# The installed generator reads no path from the environment.
mkdir "$tmp/envtest"
printf '[Gate]\nUnits=envtest.service\n' >"$tmp/env.conf"
SYSTEMD_LOG_TARGET=console ENTROPY_GATE_CONF="$tmp/env.conf" EG_TEST_ROOT="$root" \
        ENTROPY_GATE_PROC_CMDLINE="entropy_gate.units=envtest2.service" "$real" "$tmp/envtest" 2>/dev/null || true
[ -z "$(ls "$tmp/envtest")" ] || fail "the installed generator followed the environment: $(ls "$tmp/envtest")"

# Nothing configured: no output at all, exit 0.
rm -rf "$tmp/normal" && mkdir "$tmp/normal"
printf '' >"$tmp/main.conf"
run 'ro' || fail "generator exited $? with nothing configured"
[ -z "$(ls -A "$tmp/normal")" ] || fail "wrote drop-ins with nothing configured"
[ ! -s "$tmp/stderr" ] || fail "messages with nothing configured: $(cat "$tmp/stderr")"

# A bad key is reported with file and line.
printf '[Gate]\nUnits=a.service\nTimeout=soon\n' >"$tmp/main.conf"
run '' || fail "generator exited $?"
grep -q "$conf_file:3: Invalid Timeout=soon" "$tmp/stderr" || fail "no file:line warning: $(cat "$tmp/stderr")"
[ -f "$tmp/normal/a.service.d/50-entropy-gate.conf" ] || fail "a bad key stopped the rest"

# Usage errors: exit 2, and the message reaches the person who ran it
# (stderr), not the kernel log.
rc=0; "$gen" 2>"$tmp/stderr" || rc=$?
[ "$rc" = 2 ] || fail "ran without arguments: exit $rc, expected 2"
grep -q "Usage: .*NORMAL_DIR" "$tmp/stderr" || fail "no usage message on stderr without arguments"
rc=0; "$gen" --bogus 2>"$tmp/stderr" || rc=$?
[ "$rc" = 2 ] || fail "--bogus: exit $rc, expected 2"
grep -q "Usage: .*NORMAL_DIR" "$tmp/stderr" || fail "no usage message on stderr for --bogus"
if SYSTEMD_LOG_TARGET=console EG_TEST_ROOT="$root" "$gen" "$tmp/does-not-exist" 2>/dev/null; then
        fail "succeeded with a missing output dir"
fi
echo "generator-basic: ok"
