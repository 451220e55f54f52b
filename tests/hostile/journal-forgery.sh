#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# entropyctl believes only what journald vouches for. Any user can log a
# line as "entropy-seed" (logger -t), with MESSAGE_ID= and UNIT= of its
# choosing (logger --journald), and root can write /dev/kmsg, which the
# journal files as _TRANSPORT=kernel. A journal holding such forgeries,
# each earlier than the true line it imitates, must give the same timeline
# and status as one without them: the kernel's records (facility 0), our
# units' lines (_SYSTEMD_UNIT=, or a root process's), the service
# manager's unit messages (_PID=1).
# Usage: journal-forgery.sh ENTROPYCTL_FAKE_POOL
# Needs systemd-journal-remote to write the journal file (exit 77 without).
set -eu
ctl=$1
jr=
for p in /lib/systemd/systemd-journal-remote /usr/lib/systemd/systemd-journal-remote; do
        [ -x "$p" ] && jr=$p && break
done
if [ -z "$jr" ]; then
        echo "SKIP: no systemd-journal-remote to write a journal file (scripts/install-deps installs it)"
        exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

root=$tmp/root
mid=0123456789abcdef0123456789abcdef
mkdir -p "$root/etc" "$root/proc" "$root/dev" "$root/var/log/journal/$mid"
echo "$mid" >"$root/etc/machine-id"
echo ro >"$root/proc/cmdline"
boot=$(tr -d - </proc/sys/kernel/random/boot_id)
started=39f53479d3a045ac8e11786248231fbf

# entry USEC FIELD=VALUE...: one journal entry of this boot, in export format.
entry() {
        u=$1
        shift
        printf '__REALTIME_TIMESTAMP=%s\n__MONOTONIC_TIMESTAMP=%s\n_BOOT_ID=%s\n' $((1700000000000000 + u)) "$u" "$boot"
        printf '%s\n' "$@"
        echo
}
{
        entry 100000 _TRANSPORT=kernel SYSLOG_FACILITY=1 SYSLOG_IDENTIFIER=forger PRIORITY=5 \
                "MESSAGE=random: crng init done"
        entry 400000 _TRANSPORT=kernel SYSLOG_FACILITY=0 SYSLOG_IDENTIFIER=kernel PRIORITY=6 \
                "MESSAGE=Run /init as init process"
        entry 500000 _TRANSPORT=syslog _UID=1000 _PID=4000 SYSLOG_IDENTIFIER=entropy-seed \
                "MESSAGE=credited 4096 bits (forged)"
        entry 600000 _TRANSPORT=journal _UID=1000 _PID=4001 SYSLOG_IDENTIFIER=entropy-gate \
                "MESSAGE=Kernel random pool initialized (forged)"
        entry 700000 _TRANSPORT=journal _UID=1000 _PID=4002 MESSAGE_ID=$started UNIT=entropy-ready.target \
                "MESSAGE=Reached target entropy-ready.target (forged)"
        entry 812000 _TRANSPORT=kernel SYSLOG_FACILITY=0 SYSLOG_IDENTIFIER=kernel PRIORITY=5 \
                "MESSAGE=random: crng init done"
        entry 1100000 _TRANSPORT=stdout _UID=0 _PID=300 SYSLOG_IDENTIFIER=entropy-seed \
                _SYSTEMD_UNIT=entropy-seed.service "MESSAGE=credited 512 bits from /var/lib/entropy-gate/seed"
        entry 1200000 _TRANSPORT=stdout _UID=0 _PID=301 SYSLOG_IDENTIFIER=entropy-gate \
                "MESSAGE=Kernel random pool initialized after 0.000s"
        entry 1300000 _TRANSPORT=journal _UID=0 _PID=1 MESSAGE_ID=$started UNIT=entropy-ready.target \
                "MESSAGE=Reached target entropy-ready.target"
} | "$jr" --output="$root/var/log/journal/$mid/remote.journal" - 2>"$tmp/jr.log" ||
        { cat "$tmp/jr.log"; fail "systemd-journal-remote could not write the journal"; }

run() { EG_TEST_ROOT=$root FAKE_POOL_READY_AFTER_MS=0 "$ctl" "$@" --no-pager; }
run timeline >"$tmp/timeline" || fail "timeline exited $?"
cat "$tmp/timeline"
run timeline --json=short >"$tmp/json" || fail "timeline --json exited $?"
run status >"$tmp/status" || fail "status exited $?"
grep -a 'CRNG' "$tmp/status"

! grep -a -q forged "$tmp/timeline" "$tmp/json" || fail "a forged line was believed"
grep -a -q '^ *0\.812000s  kernel: random: crng init done$' "$tmp/timeline" ||
        fail "not the kernel's own crng init done"
grep -a -q '^ *1\.100000s  entropy-seed: credited 512 bits' "$tmp/timeline" ||
        fail "entropy-seed.service's own line is missing"
grep -a -q '^ *1\.200000s  entropy-gate: Kernel random pool initialized after' "$tmp/timeline" ||
        fail "a root process's entropy-gate line is missing"
grep -a -q '^ *1\.300000s  Reached target entropy-ready.target$' "$tmp/timeline" ||
        fail "the service manager's entropy-ready.target is missing"
grep -a -q 'CRNG: initialized since 0\.812s after boot' "$tmp/status" ||
        fail "status took its crng init time from a forged record"
echo "ok: forged journal lines ignored"
