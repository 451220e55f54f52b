#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The image builders' recipes of docs/image-builders.md, run as a builder
# would run them, on constructed trees:
#  - each recipe file in docs/recipes/ appears verbatim in the document, so
#    what people copy is what is tested;
#  - mkosi.finalize with mkosi's $BUILDROOT, and debootstrap-image.sh, for
#    one image for many machines: the tree is clean afterwards (check-image
#    exits 0, machine ID "uninitialized") and its first boot credits nothing;
#  - the same for one device (DEVICE_MACHINE_ID=, a MACHINE_ID argument):
#    the device's very first boot credits its seed;
#  - openwrt-device-files.sh: a FILES= tree laid over an image with the
#    OpenWrt package's configuration; the device's first boot credits it.
# A boot is entropy-seed load with the scripted pool, inside the tree.
# Usage: image-recipes.sh SOURCE_DIR ENTROPYCTL ENTROPY_SEED ENTROPY_SEED_FAKEPOOL CONF_FILE
set -u
src=$1 ctl=$(readlink -f "$2") seed=$(readlink -f "$3") seed_fake=$(readlink -f "$4") conf=$5
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
ok() { echo "ok: $*"; }
recipes=$src/docs/recipes
doc=$src/docs/image-builders.md

if [ "$(id -u)" -ne 0 ]; then
        echo "SKIP: a seed is credited only when owned by root (rule 6): run as root"
        exit 77
fi

# ---------------------------------------------------------------- the document
# Every fenced block of the document, one file each.
awk -v dir="$tmp" '
        /^```/ { if (inblock) { inblock = 0; close(f) } else { inblock = 1; n++; f = dir "/block-" n; printf "" > f } next }
        inblock { print > f }' "$doc"
for r in "$recipes"/*; do
        found=0
        for b in "$tmp"/block-*; do
                [ -e "$b" ] && cmp -s "$r" "$b" && found=1
        done
        [ "$found" = 1 ] && ok "docs/image-builders.md shows $(basename "$r") verbatim" ||
                fail "docs/image-builders.md does not show docs/recipes/$(basename "$r") verbatim"
done

# ---------------------------------------------------------------- helpers
# The programs by name, as the recipes call them.
mkdir -p "$tmp/bin"
ln -s "$ctl" "$tmp/bin/entropyctl"
ln -s "$seed" "$tmp/bin/entropy-seed"
PATH=$tmp/bin:$PATH
export PATH

# A tree as a build leaves it: services and package scripts ran in it.
dirty_tree() {
        t=$1
        mkdir -p "$t/etc" "$t/var/lib/entropy-gate" "$t/var/lib/systemd"
        chmod 0700 "$t/var/lib/entropy-gate"
        echo 0123456789abcdef0123456789abcdef >"$t/etc/machine-id"
        head -c 116 /dev/urandom >"$t/var/lib/entropy-gate/seed"
        head -c 512 /dev/urandom >"$t/var/lib/systemd/random-seed"
}

# boot TREE: entropy-seed load as the first boot of TREE would run it (a
# cold pool, a fresh boot id, an empty /run); prints the record's ACTION.
boot() {
        t=$1
        mkdir -p "$t/proc/sys/kernel/random"
        cat /proc/sys/kernel/random/uuid | tr -d '-' >"$t/proc/sys/kernel/random/boot_id"
        rm -rf "$t/run"
        mkdir -p "$t/run"
        FAKE_POOL_READY_AFTER_MS=never "$seed_fake" --root="$t" load >"$t.boot.log" 2>&1
        sed -n 's/^ACTION=//p' "$t/run/entropy-gate/seed" 2>/dev/null
}

check_clean() {   # check_clean NAME TREE
        out=$("$ctl" check-image "$2" 2>&1) && ok "$1: check-image finds the tree clean" ||
                fail "$1: check-image still finds: $out"
        [ "$(cat "$2/etc/machine-id" 2>/dev/null)" = uninitialized ] &&
                ok "$1: machine ID reset to uninitialized" || fail "$1: machine ID is '$(cat "$2/etc/machine-id")'"
        a=$(boot "$2")
        [ "$a" = not-credited ] && ok "$1: the first boot of a machine made from it credits nothing" ||
                fail "$1: the first boot says ACTION=$a: $(cat "$2.boot.log")"
}

check_device() {   # check_device NAME TREE MACHINE_ID
        [ "$(cat "$2/etc/machine-id")" = "$3" ] && ok "$1: machine ID $3" ||
                fail "$1: machine ID is '$(cat "$2/etc/machine-id")', not $3"
        [ ! -e "$2/var/lib/systemd/random-seed" ] && ok "$1: the build's shared seeds are gone" ||
                fail "$1: the build's systemd seed is still there"
        a=$(boot "$2")
        [ "$a" = credited ] && ok "$1: the device's very first boot credits its own seed ($(tail -n 1 "$2.boot.log"))" ||
                fail "$1: the device's first boot says ACTION=$a: $(cat "$2.boot.log")"
}

mid=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')

# ---------------------------------------------------------------- mkosi
# mkosi runs finalize scripts with the tree in $BUILDROOT (and its own
# variables beside it) from the directory of the configuration.
t=$tmp/mkosi-golden
dirty_tree "$t"
(cd "$tmp" && env BUILDROOT="$t" OUTPUTDIR="$tmp" SRCDIR="$tmp" sh "$recipes/mkosi.finalize") ||
        fail "mkosi.finalize (many machines) failed"
check_clean mkosi-golden "$t"

t=$tmp/mkosi-device
dirty_tree "$t"
(cd "$tmp" && env BUILDROOT="$t" OUTPUTDIR="$tmp" SRCDIR="$tmp" DEVICE_MACHINE_ID="$mid" sh "$recipes/mkosi.finalize") ||
        fail "mkosi.finalize (one device) failed"
check_device mkosi-device "$t" "$mid"

# ---------------------------------------------------------------- debootstrap
t=$tmp/debootstrap-golden
dirty_tree "$t"
sh "$recipes/debootstrap-image.sh" "$t" || fail "debootstrap-image.sh (many machines) failed"
check_clean debootstrap-golden "$t"

t=$tmp/debootstrap-device
dirty_tree "$t"
sh "$recipes/debootstrap-image.sh" "$t" "$mid" || fail "debootstrap-image.sh (one device) failed"
check_device debootstrap-device "$t" "$mid"

# ---------------------------------------------------------------- OpenWrt
# The image builder lays FILES= over the image, whose entropy-gate package
# brought its configuration (Directory=/etc/entropy-gate); OpenWrt has no
# machine ID of its own.
f=$tmp/files-0042
sh "$recipes/openwrt-device-files.sh" "$f" "$mid" >"$tmp/openwrt.log" 2>&1 ||
        { cat "$tmp/openwrt.log"; fail "openwrt-device-files.sh failed"; }
t=$tmp/openwrt-image
mkdir -p "$t$(dirname "$conf")"
cp "$src/packaging/openwrt/files/entropy-gate.conf" "$t$conf"
cp -a "$f/." "$t/"
[ "$(stat -c '%a %U' "$f/etc/entropy-gate" 2>/dev/null)" = "700 root" ] &&
        [ "$(stat -c '%a %U' "$f/etc/entropy-gate/seed" 2>/dev/null)" = "600 root" ] &&
        ok "openwrt: the FILES= tree holds etc/entropy-gate/seed, root's, 0600 in 0700" ||
        fail "openwrt: etc/entropy-gate/seed missing or with the wrong owner or mode"
[ ! -e "$f/var" ] && ok "openwrt: nothing under /var (a tmpfs on OpenWrt)" || fail "openwrt: the tree has /var"
check_device openwrt "$t" "$mid"
# A second boot credits the replacement the first one wrote, not the same seed.
a=$(boot "$t")
[ "$a" = credited ] && ok "openwrt: the second boot credits the seed the first one wrote" ||
        fail "openwrt: second boot ACTION=$a"

exit $failed
