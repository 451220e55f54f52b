#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# entropy-gate-generator against a temp output dir: Units= from the file and
# its drop-ins plus entropy_gate.units= give one drop-in each; invalid names
# and our own units are skipped with a message; nothing lands elsewhere.
# Usage: generator-basic.sh GENERATOR
set -eu
gen=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$tmp/conf.d" "$tmp/normal" "$tmp/early" "$tmp/late"
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
        SYSTEMD_LOG_TARGET=console ENTROPY_GATE_CONF="$tmp/main.conf" ENTROPY_GATE_CONF_DIR="$tmp/conf.d" \
                ENTROPY_GATE_PROC_CMDLINE="$1" "$gen" "$tmp/normal" "$tmp/early" "$tmp/late" 2>"$tmp/stderr"
}

run 'ro quiet entropy_gate.units=tls-keys.target,../../etc/passwd.service,x.socket' || fail "generator exited $?"
cat "$tmp/stderr"

expected='[Unit]
Wants=entropy-ready.target
After=entropy-ready.target'
for u in ssh.service getty@tty1.service cert@.service tls-keys.target x.socket; do
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
grep -q "entropy-gate.service cannot be ordered after entropy-ready.target" "$tmp/stderr" ||
        fail "no message for entropy-gate.service"

# Nothing configured: no output at all, exit 0.
rm -rf "$tmp/normal" && mkdir "$tmp/normal"
printf '' >"$tmp/main.conf"
rm -f "$tmp/conf.d/50-more.conf"
run 'ro' || fail "generator exited $? with nothing configured"
[ -z "$(ls -A "$tmp/normal")" ] || fail "wrote drop-ins with nothing configured"
[ ! -s "$tmp/stderr" ] || fail "messages with nothing configured: $(cat "$tmp/stderr")"

# A bad key is reported with file and line.
printf '[Gate]\nUnits=a.service\nTimeout=soon\n' >"$tmp/main.conf"
run '' || fail "generator exited $?"
grep -q "main.conf:3: Invalid Timeout=soon" "$tmp/stderr" || fail "no file:line warning: $(cat "$tmp/stderr")"
[ -f "$tmp/normal/a.service.d/50-entropy-gate.conf" ] || fail "a bad key stopped the rest"

# Usage errors.
if "$gen" 2>/dev/null; then fail "ran without arguments"; fi
if SYSTEMD_LOG_TARGET=console ENTROPY_GATE_CONF="$tmp/main.conf" ENTROPY_GATE_PROC_CMDLINE='' \
        "$gen" "$tmp/does-not-exist" 2>/dev/null; then
        fail "succeeded with a missing output dir"
fi
echo "generator-basic: ok"
