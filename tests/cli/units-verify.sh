#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Install the project into a temporary DESTDIR and check every unit it
# installs: `systemd-analyze verify` with that tree as --root (so ExecStart=
# paths resolve to the binaries just installed, and nothing of this host's
# own units or man pages is consulted), every Documentation=man: reference
# installed too, and `systemd-analyze security --offline=yes` on every
# service at or below its threshold in unit-security-thresholds.
# Usage: units-verify.sh BUILD_DIR SOURCE_DIR UNIT_DIR MAN_DIR
set -eu
build=$1 src=$2 unitdir=$3 mandir=$4
thresholds=$src/tests/cli/unit-security-thresholds

if ! command -v systemd-analyze >/dev/null 2>&1; then
        echo "SKIP: systemd-analyze not installed, cannot verify the units"
        exit 77
fi
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

DESTDIR=$tmp/root cmake --install "$build" >"$tmp/install.log" 2>&1 || {
        cat "$tmp/install.log"; echo "FAIL: cmake --install"; exit 1; }
root=$tmp/root

# Every template becomes an installed unit.
units=
for tmpl in "$src"/units/*.in; do
        name=$(basename "$tmpl" .in)
        [ -f "$root$unitdir/$name" ] || fail "$name not installed into $unitdir"
        units="$units $name"
done
[ -n "$units" ] || fail "no units/*.in found"
echo "units:$units"

# Deterministic: the host's systemd configuration plays no part. Only the
# host's own unit files join ours, without replacing any, so that the
# metrics unit's default dependencies (sysinit.target, shutdown.target)
# resolve as on an installed system.
hostunits=
for d in /usr/lib/systemd/system /lib/systemd/system; do
        [ -f "$d/sysinit.target" ] && { hostunits=$d; break; }
done
[ -n "$hostunits" ] || fail "no sysinit.target on this host to verify the units against"
mkdir -p "$root/usr/lib/systemd/system"
cp -rn "$hostunits/." "$root/usr/lib/systemd/system/" 2>/dev/null || :
# Never the host's copy of one of ours (a package installed here).
for name in $units; do
        [ "$root/usr/lib/systemd/system" -ef "$root$unitdir" ] || rm -rf "$root/usr/lib/systemd/system/$name"
done
cd "$root$unitdir"
export SYSTEMD_LOG_LEVEL=info SYSTEMD_LOG_COLOR=0 SYSTEMD_PAGER=cat
# shellcheck disable=SC2086
if ! systemd-analyze verify --man=no --root="$root" $units >"$tmp/verify.log" 2>&1; then
        fail "systemd-analyze verify failed"
fi
# Warnings ("Unknown key ..., ignoring") do not change the exit status:
# any output at all is a failure.
if [ -s "$tmp/verify.log" ]; then
        sed 's/^/  verify: /' "$tmp/verify.log"
        fail "systemd-analyze verify printed diagnostics"
else
        echo "ok: systemd-analyze verify, no diagnostics"
fi

for name in $units; do
        for ref in $(sed -n 's/^Documentation=//p' "$name"); do
                case $ref in
                man:*\(*\))
                        page=${ref#man:}; page=${page%%(*}
                        sect=${ref##*\(}; sect=${sect%)}
                        if [ -f "$root$mandir/man$sect/$page.$sect" ]; then
                                echo "ok: $name: $ref installed"
                        else
                                fail "$name: $ref is not installed ($mandir/man$sect/$page.$sect)"
                        fi
                        ;;
                esac
        done
done

if ! systemd-analyze --help 2>/dev/null | grep -q -- '--offline'; then
        # systemd < 250 cannot rate a unit that is not loaded.
        echo "SKIP: this systemd-analyze has no security --offline; the exposure levels were not checked"
        [ "$failed" -eq 0 ] && exit 77
        exit 1
fi
for name in $units; do
        case $name in *.service) ;; *) continue ;; esac
        limit=$(awk -v u="$name" '$1 == u { print $2 }' "$thresholds")
        if [ -z "$limit" ]; then
                fail "$name has no line in $thresholds"
                continue
        fi
        systemd-analyze security --offline=yes --root="$root" --no-pager "$name" >"$tmp/sec.log" 2>&1 || true
        score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9][0-9]*\.[0-9]\).*/\1/p' "$tmp/sec.log")
        if [ -z "$score" ]; then
                cat "$tmp/sec.log"
                fail "$name: no exposure level in the security report"
                continue
        fi
        if awk -v s="$score" -v l="$limit" 'BEGIN { exit !(s <= l) }'; then
                echo "ok: $name exposure $score <= $limit"
        else
                grep '✗' "$tmp/sec.log" | sed 's/^/  /' || true
                fail "$name exposure $score > $limit"
        fi
done

exit $failed
