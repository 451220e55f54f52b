#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# entropy-gate-initrd, the sequence an initrd without a service manager runs,
# with the scripted pool: in a private mount namespace, tmpfs over /run and
# /sys/firmware (a fake qemu fw_cfg and SMBIOS type 11 entry), a file over
# /dev/kmsg (the log) and over /proc/cmdline. Checked: the credential is
# imported from fw_cfg, from SMBIOS as text and as base64, never over one
# already there; entropy-seed load --credential-only gets it; the gate waits
# on a cold pool and the log says so with the gate's own record; a timeout
# with fail exits 3 and says so; entropy_gate.initrd=0 skips the gate. The
# steps alone, as dracut's units in an initrd with systemd run them
# (load-credential, gate), log the same lines and exit with the status of
# the program they ran.
# Usage: initrd-helper.sh HELPER GATE_FAKEPOOL SEED_FAKEPOOL
set -u
helper_src=$1 gate=$2 seed=$3
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
ok() { echo "ok: $*"; }

if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
        echo "SKIP: needs root and mount namespaces (unshare -m) to stand in for /run, /sys/firmware and /dev/kmsg"
        exit 77
fi

# The helper as built, calling the binaries linked with the scripted pool.
helper=$tmp/entropy-gate-initrd
sed -e "s|^GATE=.*|GATE=$gate|" -e "s|^SEED=.*|SEED=$seed|" "$helper_src" >"$helper"
chmod +x "$helper"
grep -q "^GATE=$gate\$" "$helper" && grep -q "^SEED=$seed\$" "$helper" ||
        { echo "FAIL: could not point the helper at the test binaries"; exit 1; }

cred=$(head -c 64 /dev/urandom | od -An -tx1 | tr -d ' \n')   # 64 bytes as hex

# scenario NAME CMDLINE SETUP ARGS...: run the helper with ARGS in a fresh
# namespace; SETUP is shell run inside it first (with $fw and $dmi set).
# Leaves $tmp/NAME/{kmsg,out,rc,run/}.
scenario() {
        name=$1 cmdline=$2 setup=$3
        shift 3
        d=$tmp/$name
        mkdir -p "$d/run"
        : >"$d/kmsg"
        echo "$cmdline" >"$d/cmdline"
        unshare -m sh -c '
                set -e
                d=$1 setup=$2 helper=$3
                shift 3
                mount --make-rprivate /
                mount -t tmpfs tmpfs /run
                mount -t tmpfs tmpfs /sys/firmware
                fw=/sys/firmware/qemu_fw_cfg/by_name/opt/io.systemd.credentials
                dmi=/sys/firmware/dmi/entries
                mount --bind "$d/kmsg" /dev/kmsg
                mount --bind "$d/cmdline" /proc/cmdline
                eval "$setup"
                set +e
                "$helper" "$@" >"$d/out" 2>&1
                echo $? >"$d/rc"
                cp -a /run/. "$d/run/"
        ' sh "$d" "$setup" "$helper" "$@"
        echo "--- $name (exit $(cat "$d/rc" 2>/dev/null)): kernel log"
        sed 's/^/    /' "$d/kmsg"
        [ -s "$d/out" ] && sed 's/^/    stderr: /' "$d/out"
}
has_log() { grep -qF -- "$2" "$tmp/$1/kmsg"; }
record() { sed -n "s/^$3=//p" "$tmp/$1/run/entropy-gate/$2"; }
cred_file() { echo "$tmp/$1/run/credentials/@system/entropy-gate.seed"; }

export FAKE_POOL_READY_AFTER_MS=300

# fw_cfg, as qemu -fw_cfg name=opt/io.systemd.credentials/entropy-gate.seed,file=...
scenario fwcfg "console=ttyS0" "mkdir -p \$fw/entropy-gate.seed && printf %s $cred >\$fw/entropy-gate.seed/raw" run
[ "$(cat "$tmp/fwcfg/rc")" = 0 ] && ok "fwcfg: exit 0" || fail "fwcfg: exit $(cat "$tmp/fwcfg/rc")"
[ "$(cat "$(cred_file fwcfg)" 2>/dev/null)" = "$cred" ] &&
        ok "fwcfg: the credential is in /run/credentials/@system, byte for byte" ||
        fail "fwcfg: /run/credentials/@system/entropy-gate.seed does not hold the fw_cfg bytes"
mode=$(stat -c %a "$(cred_file fwcfg)" 2>/dev/null)
[ "$mode" = 600 ] || [ "$mode" = 400 ] && ok "fwcfg: the credential is readable by root only ($mode)" ||
        fail "fwcfg: the credential has mode $mode"
has_log fwcfg "<6>entropy-gate-initrd: imported credential entropy-gate.seed from qemu fw_cfg" &&
        ok "fwcfg: the kernel log says where it came from" || fail "fwcfg: no import line in the kernel log"
[ "$(record fwcfg seed CREDENTIAL)" = mixed ] &&
        ok "fwcfg: entropy-seed load --credential-only mixed it (CreditCredentialWithoutMemory= is off)" ||
        fail "fwcfg: the seed record says CREDENTIAL=$(record fwcfg seed CREDENTIAL)"
has_log fwcfg "entropy-seed mixed credential entropy-gate.seed into the pool without crediting it" ||
        fail "fwcfg: the kernel log does not say the credential was mixed"
[ "$(record fwcfg gate READY_AT_START)" = no ] && [ "$(record fwcfg gate OUTCOME)" = ready ] &&
        ok "fwcfg: the gate found the pool cold and was released" ||
        fail "fwcfg: gate record READY_AT_START=$(record fwcfg gate READY_AT_START) OUTCOME=$(record fwcfg gate OUTCOME)"
w=$(record fwcfg gate WAITED_USEC)
has_log fwcfg "<5>entropy-gate-initrd: released: the kernel random pool is initialized, entropy-gate waited" &&
        has_log fwcfg "WAITED_USEC=$w)" && ok "fwcfg: the kernel log says the gate waited, with its record (WAITED_USEC=$w)" ||
        fail "fwcfg: the kernel log does not say how long the gate waited"
# The line before the wait comes before the line after it.
before=$(grep -n 'waiting for the kernel random pool' "$tmp/fwcfg/kmsg" | cut -d: -f1)
after=$(grep -n 'released:' "$tmp/fwcfg/kmsg" | cut -d: -f1)
[ -n "$before" ] && [ -n "$after" ] && [ "$before" -lt "$after" ] &&
        ok "fwcfg: 'waiting' (line $before) before 'released' (line $after)" || fail "fwcfg: log order"

# SMBIOS type 11, text and binary: header (type 11, length 5, handle), count, strings.
smbios() {   # smbios FILE STRING...
        f=$1
        shift
        { printf '\013\005\000\000\002'; for s in "$@"; do printf '%s\000' "$s"; done; printf '\000'; } >"$f"
}
smbios "$tmp/dmi-text" "io.systemd.credential:other=x" "io.systemd.credential:entropy-gate.seed=$cred"
b64=$(printf %s "$cred" | head -c 32 | base64 -w0)
smbios "$tmp/dmi-binary" "io.systemd.credential.binary:entropy-gate.seed=$b64"
scenario smbios-text "" "mkdir -p \$dmi/11-0 && cp $tmp/dmi-text \$dmi/11-0/raw" import-credential
[ "$(cat "$(cred_file smbios-text)" 2>/dev/null)" = "$cred" ] && ok "smbios-text: imported io.systemd.credential:" ||
        fail "smbios-text: not imported"
scenario smbios-binary "" "mkdir -p \$dmi/11-0 && cp $tmp/dmi-binary \$dmi/11-0/raw" import-credential
[ "$(cat "$(cred_file smbios-binary)" 2>/dev/null)" = "$(printf %s "$cred" | head -c 32)" ] &&
        ok "smbios-binary: imported io.systemd.credential.binary:, base64-decoded" || fail "smbios-binary: not imported"
has_log smbios-binary "imported credential entropy-gate.seed from SMBIOS type 11" || fail "smbios-binary: no log line"

# A credential already there (systemd imported it) is left alone.
scenario present "" "mkdir -p /run/credentials/@system \$fw/entropy-gate.seed && echo systemd >/run/credentials/@system/entropy-gate.seed && echo fwcfg >\$fw/entropy-gate.seed/raw" import-credential
[ "$(cat "$(cred_file present)")" = systemd ] && ok "present: an existing credential is not replaced" ||
        fail "present: the existing credential was replaced"

# None at all: said so, and the gate still runs.
scenario none "" "" run
[ "$(cat "$tmp/none/rc")" = 0 ] && has_log none "no credential entropy-gate.seed" &&
        [ "$(record none seed CREDENTIAL)" = none ] && ok "none: no credential, said so, gate released" ||
        fail "none: exit $(cat "$tmp/none/rc"), CREDENTIAL=$(record none seed CREDENTIAL)"

# A timeout with fail from the kernel command line: exit 3, said loudly.
FAKE_POOL_READY_AFTER_MS=never scenario timeout "entropy_gate.timeout=200ms entropy_gate.on_timeout=fail" "" run
[ "$(cat "$tmp/timeout/rc")" = 3 ] && ok "timeout: exit 3" || fail "timeout: exit $(cat "$tmp/timeout/rc")"
has_log timeout "<3>entropy-gate-initrd: gave up waiting for the kernel random pool (exit status 3, OUTCOME=timeout-fail" &&
        ok "timeout: the kernel log says the gate gave up, at error level" || fail "timeout: no error line"

# entropy_gate.initrd=0: no gate in the initrd for this boot, said so.
FAKE_POOL_READY_AFTER_MS=never scenario disabled "quiet entropy_gate.initrd=0" "" run
[ "$(cat "$tmp/disabled/rc")" = 0 ] && has_log disabled "<4>entropy-gate-initrd: entropy_gate.initrd=0" &&
        [ ! -e "$tmp/disabled/run/entropy-gate/gate" ] && ok "disabled: entropy_gate.initrd=0 skips the gate, with a warning" ||
        fail "disabled: exit $(cat "$tmp/disabled/rc")"

# The steps alone, as entropy-seed-initrd.service and entropy-gate-initrd.service
# run them: a credential systemd imported, loaded and said so, no gate.
scenario load "" "mkdir -p /run/credentials/@system && printf %s $cred >/run/credentials/@system/entropy-gate.seed" load-credential
[ "$(cat "$tmp/load/rc")" = 0 ] && [ "$(record load seed CREDENTIAL)" = mixed ] &&
        has_log load "entropy-seed mixed credential entropy-gate.seed into the pool without crediting it" &&
        ok "load-credential: entropy-seed loaded the credential, the kernel log says so" ||
        fail "load-credential: exit $(cat "$tmp/load/rc"), CREDENTIAL=$(record load seed CREDENTIAL)"
! has_log load "waiting for the kernel random pool" && [ ! -e "$tmp/load/run/entropy-gate/gate" ] &&
        ok "load-credential: no gate" || fail "load-credential: the gate ran"
# ... and the gate: the same two lines as run's, the record in the second.
scenario gate "" "" gate
[ "$(cat "$tmp/gate/rc")" = 0 ] && [ "$(record gate gate READY_AT_START)" = no ] &&
        has_log gate "<5>entropy-gate-initrd: waiting for the kernel random pool" &&
        has_log gate "WAITED_USEC=$(record gate gate WAITED_USEC))" &&
        ok "gate: the gate waited on a cold pool, the kernel log says so with its record" ||
        fail "gate: exit $(cat "$tmp/gate/rc"), READY_AT_START=$(record gate gate READY_AT_START)"
! has_log gate "credential" && [ ! -e "$tmp/gate/run/entropy-gate/seed" ] &&
        ok "gate: no credential, no entropy-seed" || fail "gate: the credential step ran"
# Its failure is the unit's (OnFailure=emergency.target).
FAKE_POOL_READY_AFTER_MS=never scenario gate-timeout "entropy_gate.timeout=200ms entropy_gate.on_timeout=fail" "" gate
[ "$(cat "$tmp/gate-timeout/rc")" = 3 ] && has_log gate-timeout "<3>entropy-gate-initrd: gave up waiting" &&
        ok "gate: a timeout with fail exits 3, said at error level" ||
        fail "gate: a timeout with fail: exit $(cat "$tmp/gate-timeout/rc")"

rc=0; "$helper" bogus >/dev/null 2>"$tmp/usage.err" || rc=$?
[ $rc -eq 2 ] && grep -q "unknown verb 'bogus'" "$tmp/usage.err" &&
        ok "usage: an unknown verb exits 2, named" || fail "usage: an unknown verb: exit $rc, $(cat "$tmp/usage.err")"
rc=0; "$helper" >/dev/null 2>"$tmp/usage.err" || rc=$?
[ $rc -eq 2 ] && grep -q "missing verb" "$tmp/usage.err" &&
        ok "usage: no verb exits 2" || fail "usage: no verb: exit $rc, $(cat "$tmp/usage.err")"
rc=0; "$helper" --help >"$tmp/usage.out" 2>&1 || rc=$?
[ $rc -eq 0 ] && grep -q "^usage: .*import-credential" "$tmp/usage.out" &&
        ok "usage: --help answers on stdout, exit 0" || fail "usage: --help: exit $rc, $(cat "$tmp/usage.out")"
exit $failed
