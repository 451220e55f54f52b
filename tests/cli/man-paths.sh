#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The man pages name the files this build really uses. Configure three scratch
# builds, a /usr/local one (with the configuration under /usr/local/etc and
# the seed under /var/local, as the FHS puts /usr/local's variable data), one
# with the defaults (/usr/local, /etc/entropy-gate.conf) and a distribution
# one (/usr, sysconfdir /etc), and check the generated pages against the
# paths compiled into the programs (generated/paths.h):
#  - entropy-gate.conf(5) names CONF_FILE in SYNOPSIS and FILES, its
#    drop-in directory, and the example under the documentation directory;
#  - every absolute path of ours in every page (anything naming entropy-*
#    or entropyctl) lies under a configured location, so no page still
#    says /etc/entropy-gate.conf in a build that reads another file.
# Usage: man-paths.sh SOURCE_DIR CMAKE C_COMPILER
set -eu
src=$1 cmake=$2 cc=$3
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# The value of "#define NAME "value"" in paths.h.
define() { sed -n "s/^#define $1 *\"\(.*\)\"\$/\1/p" "$2"; }
# A cache entry's value.
cached() { sed -n "s/^$1:[A-Z]*=//p" "$2"; }
# A page as text: the roff escapes the pages use inside paths removed.
plain() { sed -e 's/\\-/-/g' -e 's/\\%//g' -e 's/\\&//g' "$1"; }
# The lines of section $1 (.SH NAME) of page $2.
section() { plain "$2" | awk -v s=".SH $1" '/^\.SH/ { on = ($0 == s); next } on'; }

# check NAME EXPECTED_CONF EXPECTED_DOCDIR EXPECTED_SEED_DIR CMAKE_ARGS...
check() {
        name=$1 want_conf=$2 want_doc=$3 want_seed=$4
        shift 4
        b=$tmp/$name
        if ! "$cmake" -S "$src" -B "$b" -DCMAKE_C_COMPILER="$cc" \
                -DENTROPY_GATE_TESTS=OFF -DENTROPY_GATE_CTL=OFF "$@" >"$tmp/$name.log" 2>&1; then
                cat "$tmp/$name.log"
                fail "$name: cmake could not configure $*"
                return
        fi
        paths=$b/generated/paths.h man=$b/man
        conf=$(define CONF_FILE "$paths")
        seed=$(define SEED_DIR_DEFAULT "$paths")
        run=$(define RUN_DIR_DEFAULT "$paths")
        sbin=$(define SBINDIR "$paths")
        bin=$(define BINDIR "$paths")
        unitdir=$(cached SYSTEMD_SYSTEM_UNIT_DIR "$b/CMakeCache.txt")
        gendir=$(cached SYSTEMD_SYSTEM_GENERATOR_DIR "$b/CMakeCache.txt")
        itdir=$(cached ENTROPY_GATE_INITRAMFS_TOOLS_DIR "$b/CMakeCache.txt")
        dracutdir=$(cached ENTROPY_GATE_DRACUT_MODULES_DIR "$b/CMakeCache.txt")
        initdirs=
        for v in OPENRC_DIR RUNIT_DIR RUNIT_SV_DIR S6_DIR SYSVINIT_DIR; do
                initdirs="$initdirs $(cached ENTROPY_GATE_$v "$b/CMakeCache.txt")"
        done
        libexec=$(cached CMAKE_INSTALL_LIBEXECDIR "$b/CMakeCache.txt")
        case $libexec in /*) ;; *) libexec=$(cached CMAKE_INSTALL_PREFIX "$b/CMakeCache.txt")/$libexec ;; esac
        echo "$name: CONF_FILE=$conf SEED_DIR_DEFAULT=$seed RUN_DIR_DEFAULT=$run"

        # The build reads what this configuration asks for, or the rest proves nothing.
        [ "$conf" = "$want_conf" ] || fail "$name: paths.h has CONF_FILE $conf, expected $want_conf"
        [ "$seed" = "$want_seed" ] || fail "$name: paths.h has SEED_DIR_DEFAULT $seed, expected $want_seed"

        page=$man/entropy-gate.conf.5
        if [ ! -f "$page" ]; then
                fail "$name: entropy-gate.conf.5 was not generated"
                return
        fi
        section SYNOPSIS "$page" | grep -qxF ".I $conf" ||
                fail "$name: entropy-gate.conf(5) SYNOPSIS does not name $conf"
        section SYNOPSIS "$page" | grep -qxF ".I $conf.d/*.conf" ||
                fail "$name: entropy-gate.conf(5) SYNOPSIS does not name $conf.d/*.conf"
        for f in "$conf" "$conf.d/*.conf" "$want_doc/entropy-gate.conf"; do
                section FILES "$page" | grep -qxF ".I $f" ||
                        fail "$name: entropy-gate.conf(5) FILES does not name $f"
        done
        section '[Seed] SECTION' "$page" | grep -qF "$seed" ||
                fail "$name: entropy-gate.conf(5) does not give $seed as the default Directory="
        plain "$man/entropy-seed.8" | grep -qF "$seed/seed" ||
                fail "$name: entropy-seed(8) does not name $seed/seed"

        # Every path of ours, in every page, under a configured location.
        for p in "$man"/*.[1-8]; do
                plain "$p" | grep -oE '(^|[[:space:]("=])/[^[:space:]"(),;]*' |
                        sed -e 's/^[[:space:]("=]//' -e 's/\.$//' |
                        grep -E 'entropy-|entropyctl' | sort -u |
                        sed "s|^|$(basename "$p") |"
        done >"$tmp/$name.paths"
        n=0 bad=0
        while read -r pg path; do
                n=$((n + 1))
                case $path in
                "$conf" | "$conf".d | "$conf".d/*) ;;
                "$seed" | "$seed"/*) ;;
                /tmp/tree"$seed" | /tmp/tree"$seed"/*) ;;   # entropy-seed(8)'s example, a scratch tree
                "$run" | "$run"/*) ;;
                "$sbin"/* | "$bin"/*) ;;
                "$unitdir"/* | "$gendir"/*) ;;
                "$itdir"/* | "$dracutdir"/* | "$libexec"/entropy-gate/*) ;;
                "$want_doc"/*) ;;
                /run/credentials/@system/entropy-gate.seed) ;;   # systemd's, not this build's
                /run/service/entropy-gate) ;;   # s6's scan directory, not this build's
                /sys/firmware/qemu_fw_cfg/by_name/opt/io.systemd.credentials/entropy-gate.seed/raw) ;;   # the kernel's
                /var/lib/prometheus/node-exporter/*) ;;   # node_exporter's textfile directory (Debian's), not this build's
                *)
                        ok=0
                        # The init systems' service definitions (entropy-gate-init(7)).
                        for d in $initdirs; do
                                case $path in "$d"/*) ok=1 ;; esac
                        done
                        [ "$ok" = 1 ] || { fail "$name: $pg names $path, which is not where this build puts it"; bad=1; }
                        ;;
                esac
        done <"$tmp/$name.paths"
        [ "$n" -gt 0 ] || fail "$name: found no paths in the generated pages at all"
        [ "$bad" -ne 0 ] || echo "ok: $name: $n paths in the pages, each where this build puts it"
}

check usr-local /usr/local/etc/entropy-gate.conf /usr/local/share/doc/entropy-gate \
        /var/local/lib/entropy-gate \
        -DCMAKE_INSTALL_PREFIX=/usr/local -DENTROPY_GATE_STATE_DIR=/var/local/lib/entropy-gate \
        -DENTROPY_GATE_CONF_FILE=/usr/local/etc/entropy-gate.conf
# The default: /etc/entropy-gate.conf whatever the prefix.
check default /etc/entropy-gate.conf /usr/local/share/doc/entropy-gate /var/lib/entropy-gate
check usr /etc/entropy-gate.conf /usr/share/doc/entropy-gate /var/lib/entropy-gate \
        -DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_INSTALL_SYSCONFDIR=/etc

exit $failed
