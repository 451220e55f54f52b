#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The service definitions for init systems other than systemd, run as their
# init system would run them, with stand-ins for the programs and for the
# init system's shell functions:
#  - OpenWrt: a value in /etc/config/entropy-gate that entropy-gate refuses
#    (a typo, an empty option) must not turn the wait off: exit status 2
#    comes before any waiting, and procd starts dropbear next.
#    An option or section type it does not read turns crediting off.
#  - sysvinit: the same for ENTROPY_GATE_OPTS in /etc/default/entropy-gate,
#    and OpenRC for gate_timeout, gate_on_timeout and gate_opts.
#  - OpenRC: entropy-seed load failing must still leave the service started,
#    or OpenRC never runs its stop, the save at shutdown.
#  - every one: a NOTIFY_SOCKET in the environment (from the kernel command
#    line, a container manager) is never handed to the gate.
# Usage: init-scripts.sh SOURCE_DIR ENTROPY_GATE
set -u
src=$1 gate=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
ok() { echo "ok: $*"; }

# A gate that takes what entropy-gate(8) takes (the real one parses the
# command line: with --help it exits 0 or 2 and waits for nothing), logs
# each command line (and a NOTIFY_SOCKET it was given), and is never ready: --timeout=0 times out (3), and so
# does every other wait (FAKE_GATE_RC).
cat >"$tmp/entropy-gate" <<EOF
#!/bin/sh
echo "\$*" >>"\$FAKE_LOG"
[ -n "\${NOTIFY_SOCKET-}" ] && echo "NOTIFY_SOCKET=\$NOTIFY_SOCKET \$*" >>"$tmp/notify.log"
"$gate" "\$@" --help >/dev/null 2>&1 || exit
[ "\$1" = --timeout=0 ] && exit "\${FAKE_READY_RC:-3}"
[ -n "\${FAKE_RECORD-}" ] && echo "OUTCOME=\$FAKE_RECORD" >"$tmp/run/entropy-gate/gate"
exit "\${FAKE_GATE_RC:-3}"
EOF
printf '#!/bin/sh\necho "seed $*" >>"$FAKE_LOG"\nexit "${FAKE_SEED_RC:-0}"\n' >"$tmp/entropy-seed"
chmod +x "$tmp/entropy-gate" "$tmp/entropy-seed"
export FAKE_LOG

# openwrt NAME TIMEOUT ON_TIMEOUT WARN_AFTER [CREDIT [UCI_STRICT_RC]]:
# boot() with these UCI values (unset: the option's default), in a
# subshell; its log in $tmp/NAME.log. $tmp/uci-file is the file. As on
# OpenWrt, config_load reads it leniently (uci -S: a line that does not
# parse is dropped, the rest loaded, status 0); UCI_STRICT_RC is what a
# strict "uci export" of it says (1: it does not parse).
# config_get_bool is OpenWrt's (/lib/functions.sh): a value it does not
# know is its default.
openwrt() {
        FAKE_LOG=$tmp/$1.log
        : >"$FAKE_LOG"
        (
                uci_timeout=$2 uci_on_timeout=$3 uci_warn_after=$4
                [ $# -ge 5 ] && uci_credit=$5
                uci_strict_rc=${6:-0}
                . "$src/packaging/openwrt/files/entropy-gate.init"
                GATE=$tmp/entropy-gate SEED=$tmp/entropy-seed UCI_FILE=$tmp/uci-file
                MACHINE_ID=$tmp/machine-id RUN=$tmp/run UCI=fake_uci
                fake_uci() {
                        [ "$*" = "-q -c $tmp export uci-file" ] || { echo "uci $*" >>"$FAKE_LOG"; return 99; }
                        return "$uci_strict_rc"
                }
                # OpenWrt's uci_load: each section and option of the
                # file (uci_data: config/option/list lines) passed to
                # config_cb, option_cb and list_cb, then config_cb alone.
                config_load() {
                        [ -e "$UCI_FILE" ] || return 0
                        config() { config_cb "$@"; }
                        option() { option_cb "$@"; }
                        list() { list_cb "$@"; }
                        eval "${uci_data-}"
                        config_cb
                }
                reset_cb() { config_cb() { :; }; option_cb() { :; }; list_cb() { :; }; }
                reset_cb
                # Sections of type TYPE: uci_TYPE_sections (the one named
                # TYPE, as shipped, by default); uci_SECTION_OPTION for
                # one of them.
                config_foreach() {
                        local f=$1 s
                        eval "for s in \${uci_$2_sections-$2}; do \"\$f\" \"\$s\"; done"
                }
                # As OpenWrt's: an option set to '' reads as the default
                # (\${CONFIG_...:-default}), never as ''.
                config_get() { eval "$1=\${uci_$2_$3-\${uci_$3-}}"; eval "$1=\${$1:-\$4}"; }
                config_get_bool() {
                        local _tmp
                        config_get _tmp "$2" "$3" "$4"
                        case "$_tmp" in
                        1|on|true|yes|enabled) _tmp=1 ;;
                        0|off|false|no|disabled) _tmp=0 ;;
                        *) _tmp="$4" ;;
                        esac
                        eval "$1=\$_tmp"
                }
                kmsg() { echo "kmsg: $*" >>"$FAKE_LOG"; }
                mkdir() { :; }
                start() { :; }
                boot
        )
        echo $? >"$tmp/$1.rc"
}

# The last wait, that is the last gate run but the --timeout=0 check.
last_wait() { grep -v '^--timeout=0 ' "$tmp/$1.log" | grep '^--' | tail -n 1; }

openwrt valid 45s fail 5s
if [ "$(last_wait valid)" = "--timeout=45s --on-timeout=fail --warn-after=5s" ] &&
   [ "$(grep -c '^--' "$tmp/valid.log")" = 2 ]; then
        ok "openwrt: valid settings reach the gate as they are"
else
        fail "openwrt: valid settings: $(cat "$tmp/valid.log")"
fi

for c in "timeout=30 s:30 s:fail:10s" "on_timeout=Proceed:30s:Proceed:10s" \
         "warn_after=off:30s:fail:off" "timeout=-1:-1:fail:10s"; do
        name=${c%%:*} rest=${c#*:}
        t=${rest%%:*} rest=${rest#*:}
        o=${rest%%:*} w=${rest#*:}
        n=bad-$(echo "$name" | tr -c 'a-z0-9\n' _)
        openwrt "$n" "$t" "$o" "$w"
        if [ "$(last_wait "$n")" = "--timeout=30s --on-timeout=fail" ] &&
           [ "$(cat "$tmp/$n.rc")" = 3 ] && grep -q '^kmsg: invalid setting' "$tmp/$n.log"; then
                ok "openwrt: $name: refused by the gate, the boot still waits 30s (fail), and says why"
        else
                fail "openwrt: $name: the wait was not made with the defaults (exit $(cat "$tmp/$n.rc")): $(cat "$tmp/$n.log")"
        fi
done

# A value longer than the kernel takes for one argument (128 KiB): the
# shell cannot run the gate with it at all (exit status 126, "Argument
# list too long"), which is no more a wait than a refused value is. The
# boot must still wait with the defaults, and say why.
huge=$(head -c 200000 /dev/zero | tr '\0' 1)
openwrt huge-value "${huge}s" fail 10s
if [ "$(last_wait huge-value)" = "--timeout=30s --on-timeout=fail" ] &&
   [ "$(cat "$tmp/huge-value.rc")" = 3 ] && grep -q '^kmsg: .*waiting with the defaults' "$tmp/huge-value.log"; then
        ok "openwrt: a timeout of 200000 bytes: the boot still waits 30s (fail), and says why"
else
        fail "openwrt: a timeout of 200000 bytes: the wait was not made with the defaults (exit $(cat "$tmp/huge-value.rc")): $(cut -c 1-300 "$tmp/huge-value.log")"
fi

# An option set to '' never reaches the gate: OpenWrt's config_get reads
# it as the default. The wait is then the default one, and says so.
: >"$tmp/uci-file"
uci_data="config gate 'gate'; option timeout ''"
openwrt timeout-empty "" fail 10s
unset uci_data
if [ "$(last_wait timeout-empty)" = "--timeout=30s --on-timeout=fail --warn-after=10s" ] &&
   grep -q "^kmsg: invalid setting .*timeout=''" "$tmp/timeout-empty.log"; then
        ok "openwrt: timeout '': the boot waits 30s (fail), and says why"
else
        fail "openwrt: timeout '': $(cat "$tmp/timeout-empty.log")"
fi
rm -f "$tmp/uci-file"

# The credit switch fails closed, as Credit= in /etc/entropy-gate.conf
# does: a value that is not a boolean, or a configuration file that uci
# cannot parse (config_load drops the bad line and succeeds; a strict
# uci export fails), must not credit.
: >"$tmp/uci-file"
for c in "credit-typo:of:0" "credit-empty::0" "credit-quoted:'0':0" "credit-off:off:0" "credit-yes:yes:0" \
         "unparsed:0:1" "unparsed-on:1:1"; do
        name=${c%%:*} rest=${c#*:}
        v=${rest%%:*} lrc=${rest#*:}
        # What config_load hands the callbacks for it (config_get reads
        # '' as its default).
        uci_data="config seed 'seed'; option credit '$v'"
        openwrt "$name" 30s fail 10s "$v" "$lrc"
        unset uci_data
        case $name in
        credit-yes) want="seed load" ;;
        *) want="seed load --no-credit" ;;
        esac
        if [ "$(grep '^seed load' "$tmp/$name.log")" = "$want" ] &&
           { [ "$want" = "seed load" ] || [ "$v" = off ] || grep -q '^kmsg: .*not crediting' "$tmp/$name.log"; }; then
                ok "openwrt: $name (credit='$v', strict uci export $lrc): '$want', and says why"
        else
                fail "openwrt: $name (credit='$v', strict uci export $lrc): not '$want' with a reason: $(cat "$tmp/$name.log")"
        fi
done
# "uci add entropy-gate seed" makes a section with no name, as does a
# "config seed" line with none: the switch there is the admin's word too.
uci_seed_sections="seed cfg02a1b2" uci_cfg02a1b2_credit=0
openwrt anonymous-section 30s fail 10s
unset uci_seed_sections uci_cfg02a1b2_credit
if [ "$(grep '^seed load' "$tmp/anonymous-section.log")" = "seed load --no-credit" ]; then
        ok "openwrt: credit '0' in a section with no name: not crediting"
else
        fail "openwrt: credit '0' in a section with no name was not heeded: $(cat "$tmp/anonymous-section.log")"
fi
# The same for the wait: a gate section with no name, added after the
# shipped one, says how long to wait as surely; "infinity" there must not
# become 30s, with dropbear's host key made from an unseeded pool after it.
uci_gate_sections="gate cfg03c4d5e" uci_cfg03c4d5e_timeout=infinity uci_cfg03c4d5e_on_timeout=proceed
openwrt anonymous-gate-section 30s fail 10s
unset uci_gate_sections uci_cfg03c4d5e_timeout uci_cfg03c4d5e_on_timeout
if [ "$(last_wait anonymous-gate-section)" = "--timeout=infinity --on-timeout=proceed --warn-after=10s" ]; then
        ok "openwrt: timeout 'infinity' in a gate section with no name: the boot waits as it says"
else
        fail "openwrt: a gate section with no name was not heeded: $(cat "$tmp/anonymous-gate-section.log")"
fi

# An option or a section type the script does not know is read by
# nobody: "option Credit '0'" as entropy-gate.conf(5) spells the key, or a
# typo, would credit against the admin's word. As an unknown key in
# /etc/entropy-gate.conf does, it turns crediting off, and says so.
for c in "Credit:config seed 'seed'; option Credit 0" "credits:config seed 'seed'; option credits 0" \
         "Seed:config Seed 'seed'; option credit 0" "timout:config gate 'gate'; option timout 10s" \
         "known:config gate 'gate'; option timeout 30s; config seed 'seed'; option credit 1; list credit 1"; do
        name=unknown-${c%%:*} uci_data=${c#*:}
        openwrt "$name" 30s fail 10s
        case $name in
        unknown-known) want="seed load" ;;
        *) want="seed load --no-credit" ;;
        esac
        if [ "$(grep '^seed load' "$tmp/$name.log")" = "$want" ] &&
           { [ "$want" = "seed load" ] || grep -q '^kmsg: unknown setting .*not crediting' "$tmp/$name.log"; }; then
                ok "openwrt: $name ($uci_data): '$want'"
        else
                fail "openwrt: $name ($uci_data): not '$want' with a reason: $(cat "$tmp/$name.log")"
        fi
done
unset uci_data
rm -f "$tmp/uci-file"
openwrt no-file 30s fail 10s 1 1
if [ "$(grep '^seed load' "$tmp/no-file.log")" = "seed load" ]; then
        ok "openwrt: no /etc/config/entropy-gate at all: credits as shipped"
else
        fail "openwrt: no /etc/config/entropy-gate at all: $(cat "$tmp/no-file.log")"
fi

# OpenWrt has no /run (procd makes /tmp/run, and /var is a link to tmp):
# without the runtime directory's parent entropy-seed keeps no ledger and
# credits nothing, ever. boot() links /run to /var/run where it is
# missing, and leaves one that is there alone.
rm -rf "$tmp/run"
openwrt run-missing 30s fail 10s
if [ -L "$tmp/run" ] && [ "$(readlink "$tmp/run")" = /var/run ]; then
        ok "openwrt: no /run: linked to /var/run before the load"
else
        fail "openwrt: no /run: $(ls -ld "$tmp/run" 2>&1)"
fi
rm -f "$tmp/run"
mkdir "$tmp/run"
openwrt run-there 30s fail 10s
if [ -d "$tmp/run" ] && [ ! -L "$tmp/run" ]; then
        ok "openwrt: a /run that is there is kept"
else
        fail "openwrt: a /run that was there: $(ls -ld "$tmp/run" 2>&1)"
fi
rmdir "$tmp/run"

# From here on a runtime directory of this test's own: boot() links a
# missing one to /var/run, where this machine's gate keeps its record.
mkdir "$tmp/run"

# The machine-id, made once the pool is ready: where there is none, where
# it is empty, and where an image reset for cloning left "uninitialized"
# (entropyctl check-image --fix), which would otherwise make every boot a
# first boot that never credits; one that is there is kept.
for c in "none:" "empty:-" "uninitialized:uninitialized" "zeros:00000000000000000000000000000000" \
         "kept:0123456789abcdef0123456789abcdef"; do
        name=${c%%:*} v=${c#*:}
        rm -f "$tmp/machine-id"
        case $v in
        '') ;;
        -) : >"$tmp/machine-id" ;;
        *) echo "$v" >"$tmp/machine-id" ;;
        esac
        FAKE_READY_RC=0 FAKE_GATE_RC=0 openwrt "mid-$name" 30s fail 10s
        now=$(cat "$tmp/machine-id" 2>/dev/null)
        if [ "$name" = kept ]; then
                [ "$now" = "$v" ] && ok "openwrt: a machine-id is kept" ||
                        fail "openwrt: the machine-id $v became '$now'"
        elif echo "$now" | grep -qx '[0-9a-f]\{32\}' && [ "$now" != "$v" ]; then
                ok "openwrt: machine-id $name: made ($now)"
        else
                fail "openwrt: machine-id $name: not made, it says '$now'"
        fi
done

# Whether the wait ended ready is what the gate recorded: asking it again
# (--timeout=0) would overwrite the record of the wait with one of no time,
# a "timeout-proceed" turned into "timeout-fail", and a pool initialized a
# moment after the timeout with proceed would make the machine-id the
# record says was made unseeded.
mkdir "$tmp/run/entropy-gate"
for c in "timeout-proceed:0" "ready:3"; do
        rec=${c%%:*} probe=${c#*:}
        rm -f "$tmp/machine-id" "$tmp/run/entropy-gate/gate"
        FAKE_RECORD=$rec FAKE_READY_RC=$probe FAKE_GATE_RC=0 openwrt "rec-$rec" 30s proceed 10s
        runs=$(grep -c '^--' "$tmp/rec-$rec.log")
        made=no
        [ -s "$tmp/machine-id" ] && made=yes
        want=no
        [ "$rec" = ready ] && want=yes
        if [ "$runs" = 1 ] && [ "$made" = "$want" ] &&
           [ "$(cat "$tmp/run/entropy-gate/gate")" = "OUTCOME=$rec" ]; then
                ok "openwrt: a wait recorded as $rec is kept as it is, machine-id made: $made"
        else
                fail "openwrt: a wait recorded as $rec: $runs gate runs, machine-id made: $made," \
                        "record: $(cat "$tmp/run/entropy-gate/gate" 2>&1)"
        fi
done
# No record from the gate (it could not write one), and at its name what
# is not one: a FIFO there would block a read of it, and the boot with it,
# for ever. The gate is asked again, as where there is nothing.
rm -f "$tmp/machine-id" "$tmp/run/entropy-gate/gate"
mkfifo "$tmp/run/entropy-gate/gate"
(sleep 10; : >"$tmp/run/entropy-gate/gate") &
waker=$!
start=$(date +%s)
FAKE_READY_RC=0 FAKE_GATE_RC=0 openwrt rec-fifo 30s fail 10s
took=$(($(date +%s) - start))
kill "$waker" 2>/dev/null
wait "$waker" 2>/dev/null
if [ "$took" -lt 5 ] && [ -s "$tmp/machine-id" ]; then
        ok "openwrt: a FIFO at the gate's record is not read, the gate is asked"
else
        fail "openwrt: a FIFO at the gate's record blocked the boot ${took}s (until written to)," \
                "machine-id made: $([ -s "$tmp/machine-id" ] && echo yes || echo no)"
fi
rm -rf "$tmp/run/entropy-gate"

# sysvinit's entropy-gate with ENTROPY_GATE_OPTS it refuses: the boot
# goes on whatever the exit status, so it must wait as the configuration
# file says rather than not at all.
sysv=$tmp/sysv
mkdir "$sysv"
sed -e "s|@EG_SBINDIR@|$tmp|g" -e "s|@EG_RUN_DIR@|$tmp/run|g" \
    -e "s|/etc/default/entropy-gate|$sysv/default|g" -e "s|/lib/lsb/init-functions|$sysv/init-functions|g" \
    "$src/init/sysvinit/entropy-gate.in" >"$sysv/entropy-gate"
printf 'log_action_begin_msg() { :; }\nlog_action_end_msg() { :; }\n' >"$sysv/init-functions"
for c in "--timeout=30 s --on-timeout=proceed" "--timout=30s" "--on-timeout=continue"; do
        printf 'ENTROPY_GATE_OPTS="%s"\n' "$c" >"$sysv/default"
        FAKE_LOG=$sysv/log
        : >"$FAKE_LOG"
        sh "$sysv/entropy-gate" start
        if [ "$(tail -n 1 "$FAKE_LOG")" = "" ] && [ "$(grep -c '' "$FAKE_LOG")" = 2 ]; then
                ok "sysvinit: ENTROPY_GATE_OPTS=\"$c\" refused: the gate still waits, as the configuration file says"
        else
                fail "sysvinit: ENTROPY_GATE_OPTS=\"$c\" refused, and no wait followed: $(cat "$FAKE_LOG")"
        fi
done
# One option too long to pass at all (exit status 126): the gate never ran.
printf 'ENTROPY_GATE_OPTS="--timeout=%s"\n' "$huge" >"$sysv/default"
: >"$FAKE_LOG"
sh "$sysv/entropy-gate" start 2>/dev/null
if [ "$(cat "$FAKE_LOG")" = "" ] && [ "$(grep -c '' "$FAKE_LOG")" = 1 ]; then
        ok "sysvinit: an ENTROPY_GATE_OPTS of 200000 bytes: the gate still waits, as the configuration file says"
else
        fail "sysvinit: an ENTROPY_GATE_OPTS of 200000 bytes, and no wait followed: $(cut -c 1-300 "$FAKE_LOG")"
fi

# OpenRC's entropy-gate with settings in its conf.d file that the gate
# refuses: exit status 2 comes before any waiting, and a service only
# ordered after the gate ("after entropy-gate") would start at once, one
# that needs it never. It must wait as the configuration file says.
sed "s|@EG_SBINDIR@|$tmp|g" "$src/init/openrc/entropy-gate.in" >"$tmp/openrc-gate"
for c in "gate_timeout=30 s" "gate_on_timeout=continue" "gate_opts=--timout=30s" "gate_timeout=-h" "gate_timeout=$huge"; do
        FAKE_LOG=$tmp/openrc-gate.log
        : >"$FAKE_LOG"
        (
                ebegin() { :; }
                eend() { return "${1:-0}"; }
                ewarn() { echo "ewarn: $*" >>"$FAKE_LOG"; }
                set +u # as openrc-run runs it: conf.d may leave any unset
                . "$tmp/openrc-gate"
                eval "${c%%=*}=\${c#*=}"
                FAKE_GATE_RC=0 start
        )
        rc=$?
        # The first run is logged unless it could not be run at all.
        if [ "$rc" = 0 ] && [ "$(tail -n 1 "$FAKE_LOG")" = "" ] && grep -q '^ewarn: .*refused' "$FAKE_LOG" &&
           [ "$(grep -c '' "$FAKE_LOG")" = "$([ ${#c} -gt 1000 ] && echo 2 || echo 3)" ]; then
                ok "openrc: $(echo "$c" | cut -c 1-40) refused: the gate still waits, as the configuration file says, and says why"
        else
                fail "openrc: $(echo "$c" | cut -c 1-40) refused, and no wait followed (exit $rc): $(cut -c 1-300 "$FAKE_LOG")"
        fi
done

# A NOTIFY_SOCKET in the environment of a boot without systemd is someone
# else's: a container manager's, meant for the whole container (s6-overlay
# under podman), or a NOTIFY_SOCKET= on the kernel command line, which the
# kernel hands to init as a variable. The gate must not send READY=1 there;
# and one that names nothing made it exit 1 with the pool ready, before
# it wrote --ready-fd: s6 never marked it ready, runit ran it for ever, the
# OpenWrt boot made no machine-id (so never credited), the initrd panicked.
# The services' run scripts end where they stay up (busybox runs sleep
# as a builtin: it is cut, not stood in for).
sed "s|@EG_SBINDIR@|$tmp|g" "$src/init/runit/core-services/05-entropy-gate.sh.in" >"$tmp/runit-05.sh"
for f in runit/sv/entropy-gate s6/entropy-gate; do
        sed -e "s|@EG_SBINDIR@|$tmp|g" -e 's/^\(.*\)exec \(sleep\|s6-pause\).*/\1exit 0/' \
            "$src/init/$f/run.in" >"$tmp/$(echo "${f%%/*}" | tr -d /)-run"
done
printf 'ENTROPY_GATE_OPTS="--timeout=30s"\n' >"$sysv/default"
# no_notify NAME COMMAND: COMMAND (eval'd) with a NOTIFY_SOCKET that names
# nothing in its environment runs the gate, and never with it.
no_notify() {
        : >"$tmp/notify.log"
        FAKE_LOG=$tmp/notify-$1.log
        : >"$FAKE_LOG"
        (
                export NOTIFY_SOCKET=/nonexistent/notify FAKE_READY_RC=0 FAKE_GATE_RC=0
                eval "$2"
        ) >/dev/null 2>&1
        if grep -q '^--\|^$' "$FAKE_LOG" "$tmp/$1.log" 2>/dev/null && [ ! -s "$tmp/notify.log" ]; then
                ok "$1: the gate runs without the NOTIFY_SOCKET of a boot without systemd"
        else
                fail "$1: the gate was given NOTIFY_SOCKET, or did not run: $(cat "$tmp/notify.log" "$FAKE_LOG")"
        fi
}
no_notify openwrt-notify 'openwrt openwrt-notify 30s fail 10s'
no_notify sysvinit-notify 'sh "$sysv/entropy-gate" start'
no_notify openrc-notify 'ebegin() { :; }; eend() { :; }; ewarn() { :; }; set +u; . "$tmp/openrc-gate"; start'
no_notify runit-stage1-notify 'set +u; . "$tmp/runit-05.sh"'
no_notify runit-sv-notify 'sh "$tmp/runit-run"'
no_notify s6-notify 'sh "$tmp/s6-run" 3>/dev/null'

# OpenRC's entropy-seed: start() with a load that fails.
sed "s|@EG_SBINDIR@|$tmp|g" "$src/init/openrc/entropy-seed.in" >"$tmp/openrc-seed"
FAKE_LOG=$tmp/openrc.log
: >"$FAKE_LOG"
(
        ebegin() { :; }
        eend() { return "${1:-0}"; }
        ewend() { return "${1:-0}"; }
        . "$tmp/openrc-seed"
        export FAKE_SEED_RC=1
        start
)
rc=$?
if [ "$rc" = 0 ] && grep -qx 'seed load' "$FAKE_LOG"; then
        ok "openrc: entropy-seed is started even when the load fails, so its stop saves at shutdown"
else
        fail "openrc: entropy-seed start() exits $rc when the load fails: OpenRC would never run its save"
fi

# s6-rc's oneshot: "up" is an execline script; with execlineb at hand, run it.
sed "s|@EG_SBINDIR@|$tmp|g" "$src/init/s6/entropy-seed/up.in" >"$tmp/s6-up"
if command -v execlineb >/dev/null 2>&1; then
        FAKE_LOG=$tmp/s6.log
        : >"$FAKE_LOG"
        FAKE_SEED_RC=1 execlineb -P "$tmp/s6-up"
        rc=$?
        if [ "$rc" = 0 ] && grep -qx 'seed load' "$FAKE_LOG"; then
                ok "s6: the entropy-seed oneshot is up even when the load fails"
        else
                fail "s6: the entropy-seed oneshot's up exits $rc when the load fails: down (the save) never runs"
        fi
else
        echo "SKIP: no execlineb (Debian's execline), s6's up not run; the other checks: $([ $failed = 0 ] && echo passed || echo FAILED)"
        [ $failed = 0 ] && exit 77
fi

exit $failed
