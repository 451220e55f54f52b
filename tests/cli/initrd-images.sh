#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The gate in real initrds, built by Debian's own generators:
#  - a scratch build installed under a temporary prefix (the hook and the
#    module take every path from the build's configuration);
#  - initramfs-tools' mkinitramfs with our hook and boot script: the
#    binaries (with their libraries), the helper, the configuration and its
#    drop-in, qemu_fw_cfg and the helper's tools are in the image, the boot
#    script runs in init-top after udev, no seed is ever copied; then the
#    boot script runs inside the unpacked image (chroot), against its own
#    libraries, and releases;
#  - dracut (dracut-core, run from a private copy of its module directory so
#    the host's is untouched), with systemd in the initrd (the two units,
#    pulled in by initrd.target, verified by systemd-analyze) and without
#    (the pre-trigger hook); lsinitrd lists what went in.
# Nothing touches the host's /boot or its generators' configuration.
# Usage: initrd-images.sh SOURCE_DIR CMAKE C_COMPILER
set -u
src=$1 cmake=$2 cc=$3
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
failed=0 ran=0
fail() { echo "FAIL: $*"; failed=1; }
ok() { echo "ok: $*"; }

if [ "$(id -u)" -ne 0 ]; then
        echo "SKIP: building initrds needs root (chroot, device nodes, root-owned files)"
        exit 77
fi

# ---------------------------------------------------------------- the build
p=$tmp/inst
b=$tmp/build
if ! "$cmake" -S "$src" -B "$b" -DCMAKE_C_COMPILER="$cc" -DENTROPY_GATE_TESTS=OFF -DENTROPY_GATE_CTL=OFF \
        -DCMAKE_INSTALL_PREFIX="$p/usr" -DCMAKE_INSTALL_SYSCONFDIR="$p/etc" -DENTROPY_GATE_CONF_FILE="$p/etc/entropy-gate.conf" \
        -DENTROPY_GATE_STATE_DIR="$p/var/lib/entropy-gate" \
        -DENTROPY_GATE_INITRAMFS_TOOLS_DIR="$p/usr/share/initramfs-tools" \
        -DENTROPY_GATE_DRACUT_MODULES_DIR="$p/usr/lib/dracut/modules.d" >"$tmp/cmake.log" 2>&1 ||
   ! "$cmake" --build "$b" -j2 >>"$tmp/cmake.log" 2>&1 ||
   ! "$cmake" --install "$b" >>"$tmp/cmake.log" 2>&1; then
        cat "$tmp/cmake.log"
        echo "FAIL: the scratch build did not configure, build or install"
        exit 1
fi
sbin=$p/usr/sbin
helper=$(find "$p" -path '*/entropy-gate/entropy-gate-initrd' -type f)
[ -n "$helper" ] || { echo "FAIL: the build installed no entropy-gate-initrd"; exit 1; }
conf=$p/etc/entropy-gate.conf
mkdir -p "$conf.d" "$p/var/lib/entropy-gate"
printf '[Seed]\nCreditCredentialWithoutMemory=yes\n' >"$conf"
printf '[Gate]\nWarnAfter=5s\n' >"$conf.d/50-initrd-test.conf"
# A seed on the build host must never reach an initrd image.
printf 'not a real seed\n' >"$p/var/lib/entropy-gate/seed"

# settings NAME FILE: the image's configuration holds the settings of the
# file and of its drop-in (written by entropy-seed initrd-config).
settings() {
        grep -qx 'WarnAfter=5s' "$2" && grep -qx 'CreditCredentialWithoutMemory=yes' "$2" &&
                ok "$1: the configuration's and its drop-in's settings are in the image" ||
                fail "$1: the image's configuration lacks the settings: $(cat "$2" 2>&1)"
}

# The files every initrd must hold (paths inside the image, no leading /).
want_common() {
        for f in "$sbin/entropy-gate" "$sbin/entropy-seed" "$helper" "$conf"; do
                echo "${f#/}"
        done
}

# check_list NAME LISTING PATH...: each PATH is in LISTING (one path a line).
check_list() {
        name=$1 listing=$2
        shift 2
        for f in "$@"; do
                if grep -qxF "$f" "$listing"; then
                        ok "$name: $f"
                else
                        fail "$name: $f is not in the image"
                fi
        done
        # The configuration's settings as one file, never the files.
        if grep -q 'entropy-gate\.conf\.d' "$listing"; then
                fail "$name: the drop-in directory went into the image: $(grep 'entropy-gate\.conf\.d' "$listing")"
        fi
        if grep -q 'var/lib/entropy-gate' "$listing"; then
                fail "$name: the seed directory went into the image: $(grep 'var/lib/entropy-gate' "$listing")"
        else
                ok "$name: no seed in the image"
        fi
}

# ---------------------------------------------------------------- initramfs-tools
kver=
for d in /lib/modules/*/modules.dep; do
        [ -e "$d" ] && kver=$(basename "$(dirname "$d")")
done
if ! command -v mkinitramfs >/dev/null; then
        echo "note: initramfs-tools not installed (apt-get install initramfs-tools): not tested"
elif [ -z "$kver" ]; then
        echo "note: no kernel under /lib/modules (apt-get install linux-image-amd64): initramfs-tools not tested"
else
        ran=1
        c=$tmp/initramfs-tools
        mkdir -p "$c/hooks" "$c/scripts/init-top"
        # A local configuration directory, as an administrator's
        # /etc/initramfs-tools is: our hook and boot script in it.
        cat >"$c/initramfs.conf" <<-EOF
		MODULES=list
		BUSYBOX=auto
		COMPRESS=gzip
		EOF
        : >"$c/modules"
        cp "$p/usr/share/initramfs-tools/hooks/entropy-gate" "$c/hooks/"
        cp "$p/usr/share/initramfs-tools/scripts/init-top/entropy-gate" "$c/scripts/init-top/"
        if ! mkinitramfs -d "$c" -o "$tmp/initrd.img" "$kver" >"$tmp/mkinitramfs.log" 2>&1; then
                cat "$tmp/mkinitramfs.log"
                fail "mkinitramfs with our hook failed"
        else
                lsinitramfs "$tmp/initrd.img" | sed 's|^\./||' >"$tmp/initramfs-tools.list"
                check_list initramfs-tools "$tmp/initramfs-tools.list" $(want_common) \
                        scripts/init-top/entropy-gate usr/bin/tr usr/bin/tail usr/bin/base64
                grep -q '/qemu_fw_cfg\.ko' "$tmp/initramfs-tools.list" &&
                        ok "initramfs-tools: qemu_fw_cfg.ko" || fail "initramfs-tools: qemu_fw_cfg.ko is not in the image"
                # The libraries copy_exec found, so the binaries run there.
                lib=$(ldd "$sbin/entropy-gate" | awk '$3 ~ /^\// { print $3 }' | head -n 1)
                [ -z "$lib" ] || grep -q "$(basename "$lib")\$" "$tmp/initramfs-tools.list" ||
                        fail "initramfs-tools: entropy-gate's $lib is not in the image"
                echo "--- initramfs-tools image: our files"
                grep -E 'entropy|qemu_fw_cfg' "$tmp/initramfs-tools.list" | sed 's/^/    /'

                x=$tmp/initramfs-tools.root
                mkdir -p "$x"
                (cd "$x" && unmkinitramfs "$tmp/initrd.img" .) || fail "unmkinitramfs failed"
                # unmkinitramfs puts an early (microcode) archive beside main/.
                [ -d "$x/main" ] && x=$x/main
                settings initramfs-tools "$x$conf"
                order=$(sed -n 's|^/scripts/init-top/\([^ ]*\) .*|\1|p' "$x/scripts/init-top/ORDER" | tr '\n' ' ')
                echo "init-top order: $order"
                case " $order" in
                *" udev entropy-gate "* | *" udev "*" entropy-gate "*) ok "initramfs-tools: the boot script runs in init-top after udev" ;;
                *) fail "initramfs-tools: init-top order is '$order', not udev then entropy-gate" ;;
                esac
                # The boot script as init would run it, inside the image: the
                # image's shell, binaries and libraries, its /run.
                mkdir -p "$x/proc" "$x/dev" "$x/run"
                out=$(unshare -m sh -c "mount -t proc proc '$x/proc' && chroot '$x' /bin/sh /scripts/init-top/entropy-gate" 2>&1)
                rc=$?
                echo "$out" | sed 's/^/    boot script: /'
                [ "$rc" -eq 0 ] && ok "initramfs-tools: the boot script ran inside the image and exited 0" ||
                        fail "initramfs-tools: the boot script inside the image exited $rc"
                echo "$out" | grep -q 'entropy-gate-initrd: released' ||
                        fail "initramfs-tools: the boot script did not say the gate released"
                grep -qx 'OUTCOME=ready' "$x/run/entropy-gate/gate" 2>/dev/null &&
                        ok "initramfs-tools: the gate's record in the image's /run says OUTCOME=ready" ||
                        fail "initramfs-tools: no gate record with OUTCOME=ready in the image's /run"
        fi
fi

# ---------------------------------------------------------------- dracut
if ! command -v dracut >/dev/null || [ ! -d /usr/lib/dracut/modules.d ]; then
        echo "note: dracut not installed (apt-get install dracut-core): not tested"
else
        ran=1
        # A private copy of dracut's modules with ours beside them, so the
        # host's dracut is left as it is.
        d=$tmp/dracut
        mkdir -p "$d/base" "$d/conf.d"
        cp -a /usr/lib/dracut/. "$d/base/"
        cp -a "$p/usr/lib/dracut/modules.d/90entropy-gate" "$d/base/modules.d/"
        # build NAME MODULES: an initrd of exactly those modules, without a
        # kernel (the module installs no driver of its own but these two).
        build() {
                dracutbasedir=$d/base dracut --no-kernel --no-hostonly --no-compress --force \
                        --conf /dev/null --confdir "$d/conf.d" -m "$2" "$d/$1.img" >"$d/$1.log" 2>&1 ||
                        { cat "$d/$1.log"; fail "dracut ($1: $2) failed"; return 1; }
                grep -q 'Including module: entropy-gate' "$d/$1.log" ||
                        { cat "$d/$1.log"; fail "dracut ($1) did not include the entropy-gate module"; return 1; }
                lsinitrd "$d/$1.img" >"$d/$1.lsinitrd" 2>&1
                awk '$1 ~ /^[-dl]/ { p = $9; sub(/^\.\//, "", p); print p }' "$d/$1.lsinitrd" >"$d/$1.list"
                echo "--- dracut image ($1): lsinitrd, our files"
                grep -E 'entropy|pre-trigger/' "$d/$1.lsinitrd" | sed 's/^/    /'
        }
        if build systemd "systemd systemd-initrd entropy-gate"; then
                check_list dracut-systemd "$d/systemd.list" $(want_common) \
                        usr/lib/systemd/system/entropy-seed-initrd.service \
                        usr/lib/systemd/system/entropy-gate-initrd.service \
                        etc/systemd/system/initrd.target.wants/entropy-gate-initrd.service
                grep -q 'pre-trigger/.*entropy-gate' "$d/systemd.list" &&
                        fail "dracut-systemd: the hook for initrds without systemd is in a systemd initrd"
                u=$d/systemd.root
                mkdir -p "$u"
                (cd "$u" && lsinitrd --unpack "$d/systemd.img" >/dev/null 2>&1)
                settings dracut-systemd "$u$conf"
                unit=$u/usr/lib/systemd/system/entropy-gate-initrd.service
                for want in 'Before=cryptsetup-pre.target initrd.target' 'Wants=entropy-seed-initrd.service cryptsetup-pre.target' \
                            'ConditionPathExists=/etc/initrd-release' 'DefaultDependencies=no' 'Type=oneshot' \
                            'Before=clevis-luks-askpass.service clevis-luks-askpass.path' 'TimeoutStartSec=infinity' \
                            "ExecStart=$helper gate"; do
                        grep -qxF "$want" "$unit" && ok "dracut-systemd: entropy-gate-initrd.service has $want" ||
                                fail "dracut-systemd: entropy-gate-initrd.service lacks $want"
                done
                grep -qx "ExecStart=$helper load-credential" \
                        "$u/usr/lib/systemd/system/entropy-seed-initrd.service" &&
                        ok "dracut-systemd: entropy-seed-initrd.service runs the helper's load-credential" ||
                        fail "dracut-systemd: entropy-seed-initrd.service does not run the helper's load-credential"
                if command -v systemd-analyze >/dev/null; then
                        v=$(systemd-analyze verify --man=no "$unit" \
                                "$u/usr/lib/systemd/system/entropy-seed-initrd.service" 2>&1 | grep -E 'entropy-(gate|seed)-initrd')
                        [ -z "$v" ] && ok "dracut-systemd: systemd-analyze verify finds nothing in the units" ||
                                fail "dracut-systemd: systemd-analyze verify: $v"
                fi
        fi
        if build nosystemd "base entropy-gate"; then
                check_list dracut-nosystemd "$d/nosystemd.list" $(want_common) \
                        usr/lib/dracut/hooks/pre-trigger/01-entropy-gate-hook.sh usr/bin/tr usr/bin/tail usr/bin/base64
                grep -q 'entropy-gate-initrd.service' "$d/nosystemd.list" &&
                        fail "dracut-nosystemd: systemd units in an initrd without systemd"
        fi
fi

if [ "$ran" -eq 0 ]; then
        echo "SKIP: neither initramfs-tools (with a kernel) nor dracut is installed (scripts/install-deps installs both)"
        exit 77
fi
exit $failed
