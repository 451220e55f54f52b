#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The initrd's switch entropy_gate.initrd=0, against command lines the
# shell splits differently from the kernel. foo="x entropy_gate.initrd=0" is
# one parameter to the kernel (whose value holds a space), so the gate must
# still run; "quiet<0xA0>entropy_gate.initrd=0" is two to the kernel, so the
# switch is set. The helper (as built, pointed at the test binaries) runs in
# a private mount namespace with its own /proc/cmdline, /run and /dev/kmsg;
# the dracut unit must ask the same question. NOTIFY_SOCKET= on the command
# line, which the kernel hands init as a variable, is not answered.
# Usage: initrd-cmdline.sh HELPER GATE_FAKEPOOL SEED_FAKEPOOL DRACUT_GATE_UNIT(.in)
set -u
helper_src=$1 gate=$2 seed=$3 unit=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
ok() { echo "ok: $*"; }

if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
        echo "SKIP: needs root and mount namespaces (unshare -m) to stand in for /proc/cmdline, /run and /dev/kmsg"
        exit 77
fi

helper=$tmp/entropy-gate-initrd
sed -e "s|^GATE=.*|GATE=$gate|" -e "s|^SEED=.*|SEED=$seed|" "$helper_src" >"$helper"
chmod +x "$helper"

# run NAME: the helper with $tmp/NAME/cmdline as the kernel command line.
run() {
        d=$tmp/$1
        mkdir -p "$d/run"
        : >"$d/kmsg"
        unshare -m sh -c '
                d=$1 helper=$2
                mount --make-rprivate /
                mount -t tmpfs tmpfs /run
                mount --bind "$d/kmsg" /dev/kmsg
                mount --bind "$d/cmdline" /proc/cmdline
                "$helper" run >"$d/out" 2>&1
                echo $? >"$d/rc"
                cp -a /run/. "$d/run/"
        ' sh "$d" "$helper"
}
# gated NAME CMDLINE / skipped NAME CMDLINE: what must happen.
gated() {
        mkdir -p "$tmp/$1" && printf '%s\n' "$2" >"$tmp/$1/cmdline" && run "$1"
        if [ -e "$tmp/$1/run/entropy-gate/gate" ] && ! grep -q "not waiting" "$tmp/$1/kmsg"; then
                ok "$1: the gate ran"
        else
                fail "$1: the gate did not run for: $2"; sed 's/^/    /' "$tmp/$1/kmsg"
        fi
}
skipped() {
        mkdir -p "$tmp/$1" && printf '%s\n' "$2" >"$tmp/$1/cmdline" && run "$1"
        if [ ! -e "$tmp/$1/run/entropy-gate/gate" ] && grep -q "entropy_gate.initrd=0" "$tmp/$1/kmsg"; then
                ok "$1: the gate was skipped, said so"
        else
                fail "$1: the gate was not skipped for: $2"; sed 's/^/    /' "$tmp/$1/kmsg"
        fi
}

export FAKE_POOL_READY_AFTER_MS=100
gated quoted-value 'quiet foo="x entropy_gate.initrd=0"'
gated quoted-value-more 'foo="x entropy_gate.initrd=0" bar ro'
gated quoted-tab "$(printf 'foo="x\tentropy_gate.initrd=0"')"
gated after-dashes 'ro -- entropy_gate.initrd=0'
gated invalid 'entropy_gate.initrd=perhaps'
skipped nbsp "$(printf 'quiet\240entropy_gate.initrd=0')"
skipped plain 'ro entropy_gate.initrd=0 quiet'
skipped quoted-whole 'ro "entropy_gate.initrd=off"'

# A parameter the kernel does not know with a '=' and no '.' in its name
# reaches init as a variable: NOTIFY_SOCKET= on the command line is in
# the environment of initramfs-tools' init and of dracut's hooks, where no
# service manager listens. The gate must not answer it: one that names
# nothing made it exit 1 with the pool ready, and the initrd panicked.
mkdir -p "$tmp/notify-socket" && printf 'quiet NOTIFY_SOCKET=/nonexistent/notify\n' >"$tmp/notify-socket/cmdline"
NOTIFY_SOCKET=/nonexistent/notify run notify-socket
if [ "$(cat "$tmp/notify-socket/rc")" = 0 ] && grep -qx 'OUTCOME=ready' "$tmp/notify-socket/run/entropy-gate/gate"; then
        ok "notify-socket: NOTIFY_SOCKET from the kernel command line is not answered; the gate released"
else
        fail "notify-socket: exit $(cat "$tmp/notify-socket/rc") with NOTIFY_SOCKET from the kernel command line"
        sed 's/^/    /' "$tmp/notify-socket/kmsg" "$tmp/notify-socket/out"
fi

# The dracut unit (an initrd with systemd) asks the gate the same question.
if grep -q '^ExecCondition=.*entropy-gate --initrd-enabled$' "$unit"; then
        ok "dracut unit: ExecCondition asks entropy-gate --initrd-enabled"
else
        fail "dracut unit: $unit does not ask entropy-gate --initrd-enabled"
fi
exit $failed
