#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# What the initramfs-tools hook and the dracut module put into the initrd
# of the configuration, against a careless or hostile /etc. The hooks once
# copied the files by name and judged in shell what a name leads to: a
# drop-in that was a link or a hard link to the seed put the seed into an
# image everyone may read, and names the shell followed but the loader did
# not (41 links, /proc/self/root, a link target ending in a newline) let
# the initrd credit where the system credits nothing. Now entropy-seed
# initrd-config reads the files with the loader that reads them at boot and
# writes their settings as one file: checked here, for each such name, that
# no byte of what it leads to is in the initrd, that the initrd's
# configuration is broken exactly where the system's is, and that an
# ordinary configuration arrives whole. The hook (from its template, its
# entropy-seed reading a temporary root) runs with initramfs-tools' own
# hook-functions into a temporary DESTDIR; the dracut module's install()
# with stand-ins for dracut's functions.
# Usage: initrd-hook-config.sh SOURCE_DIR ENTROPY_SEED
set -u
src=$1
seed_bin=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
ok() { echo "ok: $*"; }

functions=/usr/share/initramfs-tools/hook-functions
if [ ! -r "$functions" ]; then
        echo "SKIP: initramfs-tools is not installed ($functions)"
        exit 77
fi

# The system: a tree at $root, read by the real entropy-seed through
# --root=, as the hook's stand-in sbin calls it.
root=$tmp/root
conf=/etc/entropy-gate.conf
mkdir -p "$tmp/sbin" "$root$conf.d" "$root/proc"
printf 'quiet\n' >"$root/proc/cmdline"
for b in entropy-gate entropy-gate-initrd; do
        printf '#!/bin/sh\n' >"$tmp/sbin/$b"
        chmod +x "$tmp/sbin/$b"
done
# A --root= the hook gives (dracut --sysroot=) is kept.
printf '#!/bin/sh\ncase " $* " in *" --root="*) exec "%s" "$@" ;; esac\nexec "%s" "$@" --root="%s"\n' \
        "$seed_bin" "$seed_bin" "$root" >"$tmp/sbin/entropy-seed"
chmod +x "$tmp/sbin/entropy-seed"
subst() {
        sed -e "s|@EG_SBINDIR@|$tmp/sbin|g" -e "s|@EG_INITRD_HELPER@|$tmp/sbin/entropy-gate-initrd|g" \
            -e "s|@ENTROPY_GATE_CONF_FILE@|$conf|g" "$1"
}
subst "$src/initrd/initramfs-tools/hook.in" >"$tmp/hook"
subst "$src/initrd/dracut/module-setup.sh.in" >"$tmp/module-setup.sh"

# hook, dracut: build into a fresh $tmp/dest (messages in $tmp/hook.err).
hook() {
        rm -rf "$tmp/dest" && mkdir "$tmp/dest"
        DESTDIR=$tmp/dest verbose=n version=0 MODULESDIR=$tmp/none sh "$tmp/hook" >"$tmp/hook.err" 2>&1 ||
                fail "the hook failed: $(cat "$tmp/hook.err")"
}
dracut() {
        rm -rf "$tmp/dest" && mkdir "$tmp/dest"
        initdir=$tmp/dest dracutsysrootdir=${sysroot:-} bash -c '
                inst_simple() { mkdir -p "$initdir${1%/*}" && cp -L "$1" "$initdir$1"; }
                inst_multiple() { :; }; inst_binary() { :; }; inst_script() { :; }; inst_hook() { :; }
                dracut_module_included() { return 1; }
                dwarn() { echo "dracut Warning: $*" >&2; }
                . "$1" && install' sh "$tmp/module-setup.sh" >"$tmp/hook.err" 2>&1 ||
                fail "the dracut module failed: $(cat "$tmp/hook.err")"
}

# What the system's loader makes of $root's configuration: "broken" or
# "ok", and the same for the initrd's, read from $tmp/dest by the same
# loader (what the initrd does at boot).
verdict() {
        "$seed_bin" initrd-config --root="$1" 2>/dev/null | grep -q '^Credit=broken' && echo broken || echo ok
}
# check BUILD CASE: run the hook or the module over $root as it is now.
check() {
        want=$(verdict "$root")
        $1
        mkdir -p "$tmp/dest/proc" && printf 'quiet\n' >"$tmp/dest/proc/cmdline"
        if [ "$(find "$tmp/dest/etc" -mindepth 1 | sed "s|^$tmp/dest||")" != "$conf" ]; then
                fail "$1, $2: the initrd holds more than $conf: $(find "$tmp/dest/etc" | sed "s|^$tmp/dest||" | tr '\n' ' ')"
        fi
        if grep -rq SEED-BYTES "$tmp/dest"; then
                fail "$1, $2: bytes of a file a name leads to are in the initrd"
        fi
        got=$(verdict "$tmp/dest")
        if [ "$got" = "$want" ]; then
                ok "$1, $2: the system's configuration is $want, and so is the initrd's"
        else
                fail "$1, $2: the system's configuration is $want, the initrd's $got"
        fi
}

# An ordinary configuration: its settings arrive, and credit.
printf '[Seed]\nCreditCredentialWithoutMemory=yes\n' >"$root$conf"
printf '[Gate]\nTimeout=5s\nOnTimeout=proceed\n' >"$root$conf.d/10-ok.conf"
for build in hook dracut; do
        check $build "an ordinary configuration"
        c=$tmp/dest$conf
        grep -qx 'Timeout=5s' "$c" && grep -qx 'OnTimeout=proceed' "$c" &&
                grep -qx 'CreditCredentialWithoutMemory=yes' "$c" && grep -qx 'Credit=yes' "$c" &&
                ok "$build: the settings of the file and its drop-in are in the initrd" ||
                fail "$build: the settings did not arrive: $(cat "$c")"
done

# The seed (a stand-in, 0600 in a 0700 directory, as the seed is), and
# names that lead to it or elsewhere: each one alone, beside the ordinary
# files.
mkdir -p "$root/var/lib/eg" "$root/chain" && chmod 0700 "$root/var/lib/eg"
printf 'SEED-BYTES-7f3a9c\n' >"$root/var/lib/eg/seed" && chmod 0600 "$root/var/lib/eg/seed"
printf 'SEED-BYTES-0644\n' >"$root/var/lib/eg/readable" && chmod 0644 "$root/var/lib/eg/readable"
printf '[Gate]\nTimeout=5s\n' >"$root/public.conf"
ln -s /dev/null "$root/chain/l0"
i=1
while [ $i -le 40 ]; do
        ln -s "l$((i - 1))" "$root/chain/l$i" && i=$((i + 1))
done
d=$root$conf.d
for name in link-to-nothing directory link-to-seed hard-link-to-seed private readable-in-private-dir \
        41-links through-proc newline-target fifo; do
        n=$d/50-$name.conf
        case $name in
        link-to-nothing) ln -s /gone "$n" ;;
        directory) mkdir "$n" ;;
        link-to-seed) ln -s /var/lib/eg/seed "$n" ;;
        hard-link-to-seed) ln "$root/var/lib/eg/seed" "$n" ;;
        private) printf '[Gate]\nTimeout=5s\n' >"$n" && chmod 0600 "$n" ;;
        readable-in-private-dir) ln -s /var/lib/eg/readable "$n" ;;
        41-links) ln -s /chain/l40 "$n" ;;
        through-proc) ln -s /proc/self/root/public.conf "$n" ;;
        newline-target) ln -s "/public.conf
" "$n" ;;
        fifo) mkfifo "$n" ;;
        esac
        for build in hook dracut; do
                check $build "$name"
        done
        rm -rf "$n"
done

# dracut --sysroot=DIR builds the initrd of the system in DIR: its
# configuration, not the build host's, goes in. The host's said Credit=yes
# where the image's says no, and the image's initrd credited.
sysroot=$tmp/sysroot
mkdir -p "$sysroot${conf%/*}" && printf '[Seed]\nCredit=no\n' >"$sysroot$conf"
dracut
grep -qx 'Credit=no' "$tmp/dest$conf" &&
        ok "dracut --sysroot: the image's configuration is in its initrd, not the build host's" ||
        fail "dracut --sysroot: the initrd has another configuration than the image: $(cat "$tmp/dest$conf")"
# A drop-in masked by a link to /dev/null, in a tree whose /dev is empty
# until it boots: masked there too, not a link to nothing that made the
# initrd credit nothing where the system credits.
mkdir -p "$sysroot$conf.d" && ln -s /dev/null "$sysroot$conf.d/90-masked.conf"
dracut
grep -qx 'Credit=no' "$tmp/dest$conf" &&
        ok "dracut --sysroot: a drop-in masked by a link to /dev/null is masked in an image without /dev" ||
        fail "dracut --sysroot: a masked drop-in broke the initrd's configuration: $(cat "$tmp/dest$conf")"
sysroot=

# entropy-seed cannot write: the initrd credits nothing, and says so.
printf '#!/bin/sh\nexit 1\n' >"$tmp/sbin/entropy-seed"
for build in hook dracut; do
        $build
        [ -h "$tmp/dest$conf" ] && [ ! -e "$tmp/dest$conf" ] &&
                grep -q "cannot put the configuration into the initrd; this initrd credits nothing" "$tmp/hook.err" &&
                ok "$build: a configuration that cannot be written is a link to nothing, and said" ||
                fail "$build: entropy-seed initrd-config failed: $(ls -l "$tmp/dest$conf" 2>&1) $(cat "$tmp/hook.err")"
done

exit $failed
