# SPDX-License-Identifier: LGPL-2.1-or-later
# The systemd image of the VM tiers (sourced after lib.sh, not run): a
# debootstrapped Debian 12 tree with systemd as PID 1, the project installed
# (by "dpkg -i" of its Debian packages, or by "cmake --install"), the guest
# programs, booted from a persistent ext4 disk through a tiny initramfs.
# Every tier that boots systemd (the systemd tier, the crash tier) builds its
# image with these functions and adds its own units before vm_sd_mkfs.
#
#   vm_sd_prepare WORK [--debs] build the project (or, with --debs, its
#                               Debian packages: vm_sd_debs), the guest
#                               programs, and fetch the kernel, initramfs
#                               and base tree (sets kdir, initrd,
#                               base_rootfs, guest_tools)
#   vm_sd_assemble ROOT         the base tree with the project and the probe
#                               installed (sets have_ctl, have_gen)
#   vm_sd_enable ROOT UNIT...   systemctl enable inside the tree
#   vm_sd_mkfs ROOT IMG         the tree as an ext4 disk image, 1 GiB
#   vm_sd_boot_report NAME DISK [KERNEL ARGS [QEMU ARGS...]]
#                               boot DISK, unpack its report into
#                               $work/boot/NAME/ (sets rep)
# and, on a report or a powered-off disk: jts, jline, prop, props, rs, pr,
# disk_seed_sha, set_machine_id (below).

EG_VM_SUITE=bookworm
EG_VM_INCLUDE=systemd,systemd-sysv,udev,kmod,dbus
# Where the guest programs live in the image.
EG_VM_GUEST_LIBEXEC=/usr/local/libexec

# The Debian mirror apt already uses (deb822 or one-line sources).
vm_mirror() {
    local m=
    if [ -n "${EG_VM_MIRROR:-}" ]; then echo "$EG_VM_MIRROR"; return; fi
    m=$(awk '/^deb / && $3 ~ /^bookworm$/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)
    if [ -z "$m" ]; then
        m=$(awk 'tolower($1) == "uris:" { u = $2 }
                 tolower($1) == "suites:" && $0 ~ / bookworm( |$)/ && u != "" { print u; exit }' \
            /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
    fi
    echo "${m:-http://deb.debian.org/debian}"
}

# Make the debootstrapped tree a quick, quiet test machine. A tier that
# needs more (the initrd tier) defines vm_customize_rootfs to call this and
# add its part; the cache key covers both.
vm_sd_customize_rootfs() {
    local r=$1 u
    echo egvm >"$r/etc/hostname"
    printf '/dev/vda / ext4 rw,errors=remount-ro 0 1\n' >"$r/etc/fstab"
    # Nothing may hold the console or run on a timer during a test boot.
    for u in serial-getty@ttyS0.service getty@tty1.service console-getty.service \
             apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer \
             e2scrub_all.timer e2scrub_reap.service fstrim.timer \
             systemd-tmpfiles-clean.timer systemd-timesyncd.service; do
        ln -sf /dev/null "$r/etc/systemd/system/$u"
    done
    ln -sf /lib/systemd/system/multi-user.target "$r/etc/systemd/system/default.target"
    # Each test run sets its own machine-id; no legacy seed in the base.
    rm -f "$r/var/lib/systemd/random-seed"
    : >"$r/etc/machine-id"
    rm -rf "$r/var/cache/apt/archives/"*.deb "$r/var/lib/apt/lists/"*
}
declare -F vm_customize_rootfs >/dev/null || vm_customize_rootfs() { vm_sd_customize_rootfs "$1"; }

# The debootstrapped base tree, cached and keyed on every input: suite,
# package list, mirror and the customization above.
vm_debian_rootfs() {
    local mirror key dir
    mirror=$(vm_mirror)
    key=$({ echo "$EG_VM_SUITE $EG_VM_INCLUDE $mirror"; declare -f vm_customize_rootfs vm_sd_customize_rootfs; } |
          sha256sum | cut -c1-16)
    dir=$EG_VM_CACHE/debian-$EG_VM_SUITE-$key
    vm_cache_lock
    if [ ! -e "$dir/.done" ]; then
        vm_log "debootstrapping $EG_VM_SUITE ($EG_VM_INCLUDE) from $mirror into $dir (a minute or two)"
        rm -rf "$dir"
        mkdir -p "$dir"
        nice debootstrap --variant=minbase --include="$EG_VM_INCLUDE" "$EG_VM_SUITE" \
            "$dir/rootfs" "$mirror" >"$dir/debootstrap.log" 2>&1 ||
            { tail -n 30 "$dir/debootstrap.log" >&2; vm_die "debootstrap failed"; }
        vm_customize_rootfs "$dir/rootfs"
        touch "$dir/.done"
    fi
    vm_cache_unlock
    echo "$dir/rootfs"
}

# The initramfs: busybox, the virtio and ext4 modules, the probe, and a
# /init that asks the probe whether the pool is cold, mounts /dev/vda and
# switches to systemd. Keyed on its inputs.
vm_disk_initrd() {
    local kdir=$1 tools=$2 base key out ov
    base=$(vm_busybox_base)
    key=$(cat "$base" "$kdir/version" "$kdir/modules.order" "$EG_VM_DIR/guest/initrd-init.sh" \
              "$tools/eg-vm-probe" | sha256sum | cut -c1-16)
    out=$EG_VM_CACHE/initrd-disk-$key.cpio
    vm_cache_lock
    if [ ! -e "$out" ]; then
        ov=$(mktemp -d)
        mkdir -p "$ov/lib/modules"
        cp "$kdir/modules/"*.ko "$ov/lib/modules/"
        cp "$kdir/modules.order" "$ov/lib/modules/order"
        install -m 0755 "$EG_VM_DIR/guest/initrd-init.sh" "$ov/init"
        install -m 0755 "$tools/eg-vm-probe" "$ov/eg-vm-probe"
        vm_cpio "$ov" "$out.ov"
        cat "$base" "$out.ov" >"$out.tmp"
        rm -rf "$ov" "$out.ov"
        mv "$out.tmp" "$out"
    fi
    vm_cache_unlock
    echo "$out"
}

# The disk initramfs $2 (of kernel cache $1) with one more module, $3 (a .ko
# file), loaded after the others, as $4: for a boot that needs a driver the
# others do not (the fw_cfg credential's, a hardware RNG's). Its work
# directory is $4.d.
vm_disk_initrd_plus() {
    local kdir=$1 initrd=$2 ko=$3 out=$4
    rm -rf "$out.d"
    mkdir -p "$out.d/lib/modules"
    cp "$ko" "$out.d/lib/modules/" || return 1
    { cat "$kdir/modules.order"; basename "$ko"; } >"$out.d/lib/modules/order"
    vm_cpio "$out.d" "$out.ov" && cat "$initrd" "$out.ov" >"$out"
}

# ---------------------------------------------------------------- packages

# The commit whose packages a tier installs: EG_VM_DEB_COMMIT, by default
# the source tree's HEAD. packaging/build-deb packages the files of a commit
# (git archive), never a work tree: uncommitted changes are not in them, so
# commit before testing a change with a package-installing tier.
vm_deb_commit() {
    local rev=${EG_VM_DEB_COMMIT:-HEAD} c changed
    c=$(git -C "$EG_SOURCE_DIR" rev-parse --verify --quiet "$rev^{commit}") ||
        vm_die "the packages are built from a commit, and $rev is none in $EG_SOURCE_DIR (not a git checkout?)"
    # What the packages are built from: everything but the VM tests, which
    # run from the work tree.
    changed=$(git -C "$EG_SOURCE_DIR" diff --name-only "$c" -- . ':(exclude)tests/vm' 2>/dev/null | head -n 5 | tr '\n' ' ')
    [ -z "$changed" ] ||
        vm_log "note: the packages are built from commit ${c:0:12}; the work tree's changes to $changed(...) are not in them"
    echo "$c"
}

# The Debian version in a commit's debian/changelog.
vm_deb_version() {
    git -C "$EG_SOURCE_DIR" show "$1:debian/changelog" |
        sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p'
}

# vm_deb_build COMMIT VERSION|"": the .debs of COMMIT built by
# packaging/build-deb (as VERSION, or as the changelog's version), cached:
# builds of one commit are reproducible (packaging/check-packages proves
# it), so commit, version and the build scripts are the key. No unit tests
# (nocheck): CI runs them on their own. Prints the directory.
vm_deb_build() {
    local commit=$1 version=$2 key dir
    key=$({ echo "$commit $version"; cat "$EG_SOURCE_DIR/packaging/build-deb" "$EG_SOURCE_DIR/packaging/common.sh"; } |
          sha256sum | cut -c1-16)
    dir=$EG_VM_CACHE/debs-${commit:0:12}-$key
    vm_cache_lock
    if [ ! -e "$dir/.done" ]; then
        vm_log "building the .debs of ${commit:0:12}${version:+ as version $version} (packaging/build-deb)"
        rm -rf "$dir"
        mkdir -p "$dir"
        DEB_BUILD_OPTIONS=nocheck nice "$EG_SOURCE_DIR/packaging/build-deb" --commit "$commit" \
            ${version:+--version "$version"} "$dir" >"$dir/build.log" 2>&1 ||
            { tail -n 30 "$dir/build.log" >&2; vm_die "packaging/build-deb failed (log: $dir/build.log)"; }
        touch "$dir/.done"
    fi
    vm_cache_unlock
    echo "$dir"
}

# vm_sd_debs: the packages of the commit under test twice: as the
# changelog's version (installed in the image) and rebuilt as a higher
# version (an upgrade). Sets deb_commit, deb_v1, deb_v2, deb_dir1, deb_dir2.
vm_sd_debs() {
    deb_commit=$(vm_deb_commit) || exit 1
    deb_v1=$(vm_deb_version "$deb_commit")
    [ -n "$deb_v1" ] || vm_die "no version in debian/changelog of ${deb_commit:0:12}"
    deb_v2=$deb_v1+vmupgrade1
    deb_dir1=$(vm_deb_build "$deb_commit" "") && deb_dir2=$(vm_deb_build "$deb_commit" "$deb_v2") ||
        vm_die "could not build the .debs"
    local d v f
    for d in "$deb_dir1:$deb_v1" "$deb_dir2:$deb_v2"; do
        v=${d#*:}
        for f in entropy-gate entropyctl; do
            [ -e "${d%%:*}/${f}_${v}_amd64.deb" ] || vm_die "packaging/build-deb made no ${f}_${v}_amd64.deb"
        done
    done
    vm_log "packages of commit ${deb_commit:0:12}: $deb_v1 (installed), $deb_v2 (the upgrade)"
}

# vm_sd_prepare WORK [--debs]: the project built for /usr in WORK/dist
# (never the caller's build, which may carry sanitizers), or with --debs its
# Debian packages (vm_sd_debs, installed by vm_sd_assemble); the guest
# programs in WORK/guest-tools, the kernel, the disk initramfs and the base
# tree.
vm_sd_prepare() {
    local w=$1
    EG_VM_SD_DEBS=0
    [ "${2:-}" = --debs ] && EG_VM_SD_DEBS=1
    mkdir -p "$w"
    : >"$w/cmake.log"
    if [ "$EG_VM_SD_DEBS" = 1 ]; then
        vm_sd_debs
    else
        vm_log "building the project in $w/dist"
        cmake -S "$EG_SOURCE_DIR" -B "$w/dist" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
            -DCMAKE_INSTALL_PREFIX=/usr -DENTROPY_GATE_TESTS=OFF >"$w/cmake.log" 2>&1 ||
            { cat "$w/cmake.log" >&2; vm_die "cmake configure failed"; }
        cmake --build "$w/dist" -j"$(nproc)" >>"$w/cmake.log" 2>&1 ||
            { tail -n 40 "$w/cmake.log" >&2; vm_die "build failed"; }
    fi
    guest_tools=$w/guest-tools
    vm_guest_tools "$guest_tools"
    kdir=$(vm_kernel_cache) && initrd=$(vm_disk_initrd "$kdir" "$guest_tools") &&
        base_rootfs=$(vm_debian_rootfs) || vm_die "could not prepare the kernel, initramfs or image"
    [ -d "$base_rootfs" ] || vm_die "no debootstrapped tree at '$base_rootfs'"
    EG_VM_SD_WORK=$w
}

# vm_sd_dpkg ROOT DEB...: dpkg -i inside the tree, as an image builder
# installs packages: the maintainer scripts run in the chroot, where no
# systemd runs (they enable units, and start or reload nothing).
vm_sd_dpkg() {
    local root=$1 d=/var/cache/eg-vm/install f; shift
    rm -rf "$root$d"
    mkdir -p "$root$d"
    cp "$@" "$root$d/"
    local debs=()
    for f in "$@"; do debs+=("$d/${f##*/}"); done
    chroot "$root" env DEBIAN_FRONTEND=noninteractive dpkg -i "${debs[@]}" >>"$EG_VM_SD_WORK/cmake.log" 2>&1 ||
        { tail -n 30 "$EG_VM_SD_WORK/cmake.log" >&2; vm_die "dpkg -i failed in the image"; }
    rm -rf "$root$d"
}

# vm_sd_assemble ROOT: a copy of the base tree with the project installed
# (its .debs with dpkg -i after vm_sd_prepare --debs, else cmake --install)
# and the probe in $EG_VM_GUEST_LIBEXEC. Sets have_ctl and have_gen.
vm_sd_assemble() {
    local root=$1 w=$EG_VM_SD_WORK b
    rm -rf "$root"
    cp -a "$base_rootfs" "$root"
    if [ "$EG_VM_SD_DEBS" = 1 ]; then
        vm_sd_dpkg "$root" "$deb_dir1/entropy-gate_${deb_v1}_amd64.deb" "$deb_dir1/entropyctl_${deb_v1}_amd64.deb"
    else
        DESTDIR=$root cmake --install "$w/dist" >>"$w/cmake.log" 2>&1 || vm_die "cmake --install failed"
    fi
    for b in usr/sbin/entropy-gate usr/sbin/entropy-seed; do
        [ -x "$root/$b" ] || vm_die "/$b was not installed"
    done
    have_ctl=0; [ -x "$root/usr/bin/entropyctl" ] && have_ctl=1
    have_gen=0
    if [ -x "$root/lib/systemd/system-generators/entropy-gate-generator" ] ||
       [ -x "$root/usr/lib/systemd/system-generators/entropy-gate-generator" ]; then
        have_gen=1
    fi
    install -d "$root$EG_VM_GUEST_LIBEXEC"
    install -m 0755 "$guest_tools/eg-vm-probe" "$root$EG_VM_GUEST_LIBEXEC/"
}

vm_sd_enable() {   # vm_sd_enable ROOT UNIT...
    local root=$1; shift
    chroot "$root" systemctl enable "$@" >>"$EG_VM_SD_WORK/cmake.log" 2>&1 ||
        { tail -n 20 "$EG_VM_SD_WORK/cmake.log" >&2; vm_die "systemctl enable failed in the image"; }
}

vm_sd_mkfs() {   # vm_sd_mkfs ROOT IMG
    mkfs.ext4 -q -F -L egroot -d "$1" "$2" 1G >&2 || vm_die "mkfs.ext4 failed"
}

# The kernel command line of a disk boot.
EG_VM_SD_APPEND="root=/dev/vda rw fsck.mode=skip systemd.show_status=0"

# vm_sd_boot_report NAME DISK [KERNEL ARGS [QEMU ARGS...]]: boot DISK, then
# unpack the report the guest wrote to a second disk into $work/boot/NAME/
# (sets rep). The hard timeout of a boot is EG_VM_SD_BOOT_TIMEOUT seconds
# (default 240).
vm_sd_boot_report() {
    local name=$1 disk=$2 extra=${3:-} ok=true
    shift 2; [ $# -gt 0 ] && shift
    rep=$work/boot/$name
    rm -rf "$rep" "$work/boot/$name-report.img"
    mkdir -p "$rep"
    truncate -s 16M "$work/boot/$name-report.img"
    vm_log "boot '$name'"
    vm_boot "$work/boot/$name.log" "${EG_VM_SD_BOOT_TIMEOUT:-240}" "$kdir/vmlinuz" "$initrd" "$EG_VM_SD_APPEND $extra" \
        -drive "file=$disk,format=raw,if=virtio" \
        -drive "file=$work/boot/$name-report.img,format=raw,if=virtio" "$@" || ok=false
    vm_check "$name.boot" "boot '$name' completed" $ok
    # Boot names may hold dashes, variable names cannot: gen-a1 -> boot_s_gen_a1.
    eval "boot_s_${name//[^A-Za-z0-9_]/_}=\$EG_VM_LAST_BOOT_S"
    tar -xf "$work/boot/$name-report.img" -C "$rep" 2>/dev/null || true
    ok=true
    [ -e "$rep/complete" ] || ok=false
    vm_check "$name.report" "boot '$name' wrote its report" $ok
    $ok || tail -n 40 "$work/boot/$name.log" >&2
}

# ---------------------------------------------------------------- reports

# Journal (short-monotonic) time in seconds of the first line matching ERE.
jts() {
    grep -m1 -E "$2" "$1/journal.txt" 2>/dev/null | sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p'
}
jline() { grep -m1 -E "$2" "$1/journal.txt" 2>/dev/null | sed 's/^\[[^]]*\] [^ ]* //'; }
# A property from "systemctl show" of a unit.
prop() { sed -n "s/^$3=//p" "$1/show-$2.txt" 2>/dev/null | head -n1; }
# A monotonic-µs property in seconds.
props() { awk -v u="$(prop "$@")" 'BEGIN { if (u == "" || u == 0) exit 1; printf "%.6f", u / 1e6 }'; }
# A key of a record in /run/entropy-gate/ (rs REPORT gate|seed KEY).
rs() { sed -n "s/^$3=//p" "$1/runstate/$2" 2>/dev/null | head -n1; }
# A key of a probe's record (pr REPORT NAME KEY): /run/eg-vm-probe/NAME as
# the report copied it, or, for the probe in the initramfs whose /run is
# gone, its kernel log record.
pr() {
    if [ -f "$1/probe/$2" ]; then
        sed -n "s/^$3=//p" "$1/probe/$2" | head -n1
    else
        vm_probe "$1/dmesg.txt" "$2" "$3"
    fi
}
disk_seed_sha() {   # the seed on a powered-off disk image, read with debugfs
    local tmp
    tmp=$(mktemp)
    debugfs -R "dump /var/lib/entropy-gate/seed $tmp" "$1" >/dev/null 2>&1
    [ -s "$tmp" ] && sha256sum "$tmp" | cut -d' ' -f1
    rm -f "$tmp"
}
set_machine_id() {   # set_machine_id DISK CONTENT
    local tmp
    tmp=$(mktemp)
    printf '%s\n' "$2" >"$tmp"
    chmod 0444 "$tmp"
    debugfs -w -R "rm /etc/machine-id" "$1" >/dev/null 2>&1
    debugfs -w -R "write $tmp /etc/machine-id" "$1" >/dev/null 2>&1
    rm -f "$tmp"
    local got
    got=$(debugfs -R "cat /etc/machine-id" "$1" 2>/dev/null)
    [ "$got" = "$2" ] || vm_die "could not set /etc/machine-id in $1 (got '$got')"
}
