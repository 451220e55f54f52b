#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# What the initramfs-tools hook and the dracut module put into the initrd
# of the configuration, against a careless /etc: a drop-in that is a symbolic link to nothing or
# a directory makes the system credit nothing (entropy-gate.conf(5)), and
# must make the initrd credit nothing too, not vanish from it and leave
# CreditCredentialWithoutMemory=yes of the other files in force. A name
# that leads to a file not everyone may read (the seed, through a symbolic
# or a hard link) never puts its bytes into the initrd, which is not a
# secret. The hook
# (from its template, pointed at a temporary /etc and stand-in programs)
# runs with initramfs-tools' own hook-functions into a temporary DESTDIR;
# the dracut module's install() with stand-ins for dracut's functions.
# Usage: initrd-hook-config.sh SOURCE_DIR
set -u
src=$1
tmp=$(mktemp -d)
# As /etc is: everyone may look into it.
chmod 0755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
ok() { echo "ok: $*"; }

functions=/usr/share/initramfs-tools/hook-functions
if [ ! -r "$functions" ]; then
        echo "SKIP: initramfs-tools is not installed ($functions)"
        exit 77
fi

conf=$tmp/etc/entropy-gate.conf
mkdir -p "$tmp/sbin" "$conf.d"
for b in entropy-gate entropy-seed entropy-gate-initrd; do
        printf '#!/bin/sh\n' >"$tmp/sbin/$b"
        chmod +x "$tmp/sbin/$b"
done
sed -e "s|@EG_SBINDIR@|$tmp/sbin|g" -e "s|@EG_INITRD_HELPER@|$tmp/sbin/entropy-gate-initrd|g" \
    -e "s|@ENTROPY_GATE_CONF_FILE@|$conf|g" "$src/initrd/initramfs-tools/hook.in" >"$tmp/hook"

# hook: run it into a fresh $tmp/dest (its messages in $tmp/hook.err).
hook() {
        rm -rf "$tmp/dest" && mkdir "$tmp/dest"
        DESTDIR=$tmp/dest verbose=n version=0 MODULESDIR=$tmp/none sh "$tmp/hook" >"$tmp/hook.err" 2>&1 ||
                fail "the hook failed: $(cat "$tmp/hook.err")"
}
# unreadable NAME: NAME is in the initrd as a name the configuration
# loader reads as a file that cannot be read (a symbolic link to nothing).
unreadable() {
        [ -h "$tmp/dest$1" ] && [ ! -e "$tmp/dest$1" ]
}

printf '[Seed]\nCreditCredentialWithoutMemory=yes\n' >"$conf"
printf '[Gate]\nTimeout=5s\n' >"$conf.d/10-ok.conf"
ln -s /dev/null "$conf.d/20-masked.conf"
ln -s "$tmp/gone" "$conf.d/90-dangling.conf"
mkdir "$conf.d/91-directory.conf"
hook
[ -f "$tmp/dest$conf" ] && [ -f "$tmp/dest$conf.d/10-ok.conf" ] &&
        ok "the configuration and a drop-in are copied" || fail "the configuration is not copied"
# A mask stays a mask, not left out: the system counts it among the drop-ins
# (past 1024 of them it credits nothing), and so must the initrd.
[ "$(readlink "$tmp/dest$conf.d/20-masked.conf")" = /dev/null ] &&
        ok "a masked drop-in is masked in the initrd" ||
        fail "a masked drop-in is not a link to /dev/null in the initrd: it does not count among the drop-ins"
unreadable "$conf.d/90-dangling.conf" &&
        ok "a drop-in that is a symbolic link to nothing is one in the initrd" ||
        fail "a drop-in that is a symbolic link to nothing is left out: the initrd credits, the system does not"
unreadable "$conf.d/91-directory.conf" &&
        ok "a drop-in that is a directory cannot be read in the initrd" ||
        fail "a drop-in that is a directory is left out: the initrd credits, the system does not"
grep -q "90-dangling.conf cannot be read; this initrd credits nothing" "$tmp/hook.err" ||
        fail "no warning from the hook: $(cat "$tmp/hook.err")"

# Names that lead to the seed (a stand-in, 0600 in a 0700 directory, as
# the seed is): a symbolic link, a hard link, and a configuration file of
# mode 0600. None is copied; each makes the initrd credit nothing, and the
# seed's bytes are nowhere in it.
secret() {
        mkdir -p "$tmp/state" && chmod 0700 "$tmp/state"
        printf 'SEED-BYTES-%s\n' 7f3a9c >"$tmp/state/seed" && chmod 0600 "$tmp/state/seed"
        ln -s "$tmp/state/seed" "$conf.d/30-link-to-seed.conf"
        ln "$tmp/state/seed" "$conf.d/31-hard-link-to-seed.conf"
        printf '[Gate]\nTimeout=5s\n' >"$conf.d/32-private.conf" && chmod 0600 "$conf.d/32-private.conf"
        # A file whose own mode lets others read it, in a directory they
        # cannot enter: not everyone may read it either.
        printf 'SEED-BYTES-%s\n' 0644 >"$tmp/state/readable" && chmod 0644 "$tmp/state/readable"
        ln -s "$tmp/state/readable" "$conf.d/33-readable-in-private-dir.conf"
}
# no_secret WHO: what the hook or module WHO put into $tmp/dest of them.
no_secret() {
        if grep -rq SEED-BYTES "$tmp/dest"; then
                fail "$1: the seed's bytes are in the initrd"
        else
                ok "$1: no seed bytes in the initrd"
        fi
        for n in 30-link-to-seed 31-hard-link-to-seed 32-private 33-readable-in-private-dir; do
                unreadable "$conf.d/$n.conf" &&
                        ok "$1: $n.conf is not copied; the initrd credits nothing" ||
                        fail "$1: $n.conf: copied, or left out with the other files in force"
        done
        grep -q "32-private.conf is not readable by everyone (mode 600) and an initrd is not a secret: not copied; this initrd credits nothing" "$tmp/hook.err" ||
                fail "$1: no warning for a file not everyone may read: $(cat "$tmp/hook.err")"
}
secret
hook
no_secret hook
[ -f "$tmp/dest$conf.d/10-ok.conf" ] || fail "hook: a drop-in everyone may read is no longer copied"
rm -f "$conf.d"/3?-*.conf

# Names the kernel follows and the configuration loader does not: more
# than 40 symbolic links in a row, a link whose target makes a name of
# PATH_MAX bytes or more, a link through /proc's links to elsewhere
# (/proc/self/root). The system cannot read them and credits nothing; a
# mask or a file copied would let the initrd credit.
# loader_only: make those names in $conf.d, and $tmp/magic.d, a drop-in
# directory everyone may read, reached only through /proc/self/root.
loader_only() {
        printf '[Gate]\nTimeout=5s\n' >"$tmp/public.conf" && chmod 0644 "$tmp/public.conf"
        mkdir -p "$tmp/chain" && ln -sfn /dev/null "$tmp/chain/l0"
        i=1
        while [ $i -le 40 ]; do
                ln -sfn "l$((i - 1))" "$tmp/chain/l$i" && i=$((i + 1))
        done
        ln -s "$tmp/chain/l40" "$conf.d/60-41-links-to-null.conf"
        up=$(printf '%01350d' 0 | sed 's|0|../|g')
        ln -s "${up}dev/null" "$conf.d/61-long-link-to-null.conf"
        ln -s "$up${tmp#/}/public.conf" "$conf.d/62-long-link.conf"
        ln -s "/proc/self/root$tmp/public.conf" "$conf.d/63-through-proc.conf"
        mkdir -p "$tmp/magic.d" && cp "$tmp/public.conf" "$tmp/magic.d/10-ok.conf"
        # What the loader follows, through a directory that is a link too.
        ln -sfn "$tmp" "$tmp/lib"
        ln -s ../../lib/public.conf "$conf.d/64-plain-link.conf"
}
# loader_only_unreadable WHO: none of them masked nor copied by WHO.
loader_only_unreadable() {
        for n in 60-41-links-to-null 61-long-link-to-null 62-long-link 63-through-proc; do
                unreadable "$conf.d/$n.conf" &&
                        ok "$1: $n.conf, which the system cannot read, cannot be read in the initrd" ||
                        fail "$1: $n.conf: the system cannot read it and credits nothing, the initrd masks or copies it"
        done
        [ -f "$tmp/dest$conf.d/64-plain-link.conf" ] && ok "$1: a link the loader follows is copied" ||
                fail "$1: a link the loader follows is not copied"
}
loader_only
hook
loader_only_unreadable hook
rm -f "$conf.d"/6?-*.conf
mv "$conf.d" "$tmp/conf.d.real"
ln -s "/proc/self/root$tmp/magic.d" "$conf.d"
hook
unreadable "$conf.d" && [ ! -e "$tmp/dest$tmp/magic.d/10-ok.conf" ] &&
        ok "hook: a drop-in directory the system cannot open cannot be opened in the initrd" ||
        fail "hook: a drop-in directory through /proc/self/root: the system credits nothing, the initrd reads it"
rm -f "$conf.d"
mv "$tmp/conf.d.real" "$conf.d"

# The drop-in directory itself a symbolic link to nothing.
rm -rf "$conf.d"
ln -s "$tmp/gone" "$conf.d"
hook
unreadable "$conf.d" && ok "a drop-in directory that is a symbolic link to nothing is one in the initrd" ||
        fail "a drop-in directory that is a symbolic link to nothing is left out"

# The dracut module, the same: its install() with stand-ins for dracut's
# functions (inst_simple and inst_multiple copy what a link leads to, as dracut
# does).
sed -e "s|@EG_SBINDIR@|$tmp/sbin|g" -e "s|@EG_INITRD_HELPER@|$tmp/sbin/entropy-gate-initrd|g" \
    -e "s|@ENTROPY_GATE_CONF_FILE@|$conf|g" "$src/initrd/dracut/module-setup.sh.in" >"$tmp/module-setup.sh"
dracut() {
        rm -rf "$tmp/dest" && mkdir "$tmp/dest"
        initdir=$tmp/dest bash -c '
                inst_simple() { mkdir -p "$initdir${1%/*}" && cp -L "$1" "$initdir$1"; }
                inst_multiple() { for f; do case $f in /*) [ ! -e "$f" ] || inst_simple "$f" ;; esac; done; }
                inst_binary() { :; }; inst_script() { :; }; inst_hook() { :; }
                dracut_module_included() { return 1; }
                dwarn() { echo "dracut Warning: $*" >&2; }
                . "$1" && install' sh "$tmp/module-setup.sh" >"$tmp/hook.err" 2>&1 ||
                fail "the dracut module failed: $(cat "$tmp/hook.err")"
}
rm -f "$conf.d"
mkdir "$conf.d"
printf '[Gate]\nTimeout=5s\n' >"$conf.d/10-ok.conf"
ln -s /dev/null "$conf.d/20-masked.conf"
ln -s "$tmp/gone" "$conf.d/90-dangling.conf"
mkdir "$conf.d/91-directory.conf"
dracut
[ -f "$tmp/dest$conf" ] && [ -f "$tmp/dest$conf.d/10-ok.conf" ] &&
        ok "dracut: the configuration and a drop-in are copied" || fail "dracut: the configuration is not copied"
[ "$(readlink "$tmp/dest$conf.d/20-masked.conf")" = /dev/null ] &&
        ok "dracut: a masked drop-in is masked in the initrd" ||
        fail "dracut: a masked drop-in is not a link to /dev/null in the initrd: it does not count among the drop-ins"
unreadable "$conf.d/90-dangling.conf" && unreadable "$conf.d/91-directory.conf" &&
        ok "dracut: drop-ins that cannot be read cannot be read in the initrd" ||
        fail "dracut: a drop-in that cannot be read is left out: the initrd credits, the system does not"
grep -q "90-dangling.conf cannot be read; this initrd credits nothing" "$tmp/hook.err" ||
        fail "dracut: no warning: $(cat "$tmp/hook.err")"
secret
dracut
no_secret dracut
rm -f "$conf.d"/3?-*.conf
loader_only
dracut
loader_only_unreadable dracut
rm -f "$conf.d"/6?-*.conf
mv "$conf.d" "$tmp/conf.d.real"
ln -s "/proc/self/root$tmp/magic.d" "$conf.d"
dracut
unreadable "$conf.d" && [ ! -e "$tmp/dest$tmp/magic.d/10-ok.conf" ] &&
        ok "dracut: a drop-in directory the system cannot open cannot be opened in the initrd" ||
        fail "dracut: a drop-in directory through /proc/self/root: the system credits nothing, the initrd reads it"
rm -f "$conf.d"
mv "$tmp/conf.d.real" "$conf.d"

exit $failed
