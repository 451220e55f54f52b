#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# entropyctl check-image on constructed root trees: a clean tree, each
# finding on its own, --fix and its result, and symlinks pointing out of
# ROOT (at a seed path and on the way to one) that must be neither followed
# nor deleted through: their targets outside ROOT stay untouched.
# Usage: ctl-check-image.sh ENTROPYCTL
set -eu
ctl=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

check() { # check ROOT EXPECTED_EXIT [--fix]
        root=$1 want=$2
        shift 2
        set +e
        "$ctl" check-image "$root" "$@" >"$tmp/out" 2>&1
        rc=$?
        set -e
        cat "$tmp/out"
        [ "$rc" = "$want" ] || fail "check-image $root $*: exit $rc, expected $want"
}

mkroot() { # a minimal image root: empty machine-id, no seeds
        rm -rf "$1"
        mkdir -p "$1/etc" "$1/var/lib/entropy-gate" "$1/var/lib/systemd" "$1/var/lib/seedrng"
        : >"$1/etc/machine-id"
}

# Clean: exit 0, also with "uninitialized" and with no machine-id at all.
mkroot "$tmp/r"
check "$tmp/r" 0
grep -q "clean" "$tmp/out" || fail "clean tree not called clean"
printf 'uninitialized\n' >"$tmp/r/etc/machine-id"
check "$tmp/r" 0
rm "$tmp/r/etc/machine-id"
check "$tmp/r" 0

# Each finding on its own: exit 1, the path and the reason named.
for p in var/lib/entropy-gate/seed var/lib/systemd/random-seed var/lib/seedrng/seed.credit \
         var/lib/seedrng/seed.no-credit etc/urandom.seed; do
        mkroot "$tmp/r"
        head -c 512 /dev/urandom >"$tmp/r/$p"
        check "$tmp/r" 1
        grep -q "^/$p: .*(512 bytes)" "$tmp/out" || fail "no finding for /$p"
        [ "$(grep -c '^/\(var\|etc\)/' "$tmp/out")" = 1 ] || fail "more than one finding for /$p"
done
mkroot "$tmp/r"
printf '0123456789abcdef0123456789abcdef\n' >"$tmp/r/etc/machine-id"
check "$tmp/r" 1
grep -q "^/etc/machine-id: machine ID (holds a machine ID)" "$tmp/out" || fail "no machine-id finding"
grep -q "uninitialized" "$tmp/out" || fail "machine-id finding gives no remedy"

# Everything at once, then --fix: seeds removed, machine-id reset, clean after.
mkroot "$tmp/r"
for p in var/lib/entropy-gate/seed var/lib/systemd/random-seed var/lib/seedrng/seed.credit \
         var/lib/seedrng/seed.no-credit etc/urandom.seed; do
        echo seed >"$tmp/r/$p"
done
printf '0123456789abcdef0123456789abcdef\n' >"$tmp/r/etc/machine-id"
chmod 0444 "$tmp/r/etc/machine-id"
check "$tmp/r" 1
[ "$(grep -c '^/\(var\|etc\)/' "$tmp/out")" = 6 ] || fail "expected 6 findings"
check "$tmp/r" 0 --fix
[ "$(grep -c 'fixed: removed' "$tmp/out")" = 5 ] || fail "expected 5 removals"
for p in var/lib/entropy-gate/seed var/lib/systemd/random-seed var/lib/seedrng/seed.credit \
         var/lib/seedrng/seed.no-credit etc/urandom.seed; do
        [ ! -e "$tmp/r/$p" ] || fail "--fix left /$p"
done
[ "$(cat "$tmp/r/etc/machine-id")" = uninitialized ] || fail "machine-id not reset: $(cat "$tmp/r/etc/machine-id")"
[ -d "$tmp/r/var/lib/entropy-gate" ] || fail "--fix removed the seed directory"
check "$tmp/r" 0

# Symlinks out of ROOT: at a seed path, at the machine-id, and a directory
# on the way to a seed. Reported, never followed, never deleted through,
# left in place by --fix (exit 1: someone must look).
mkdir -p "$tmp/outside/seedrng"
echo secret >"$tmp/outside/random-seed"
echo secret >"$tmp/outside/seedrng/seed.credit"
printf 'fedcba9876543210fedcba9876543210\n' >"$tmp/outside/machine-id"
mkroot "$tmp/r"
ln -s "$tmp/outside/random-seed" "$tmp/r/var/lib/systemd/random-seed"
rm "$tmp/r/etc/machine-id"
ln -s "$tmp/outside/machine-id" "$tmp/r/etc/machine-id"
rmdir "$tmp/r/var/lib/seedrng"
ln -s ../../../outside/seedrng "$tmp/r/var/lib/seedrng"
check "$tmp/r" 1
grep -q "^/var/lib/systemd/random-seed: .*is a symlink to $tmp/outside/random-seed: not followed" "$tmp/out" ||
        fail "seed symlink not reported"
grep -q "^/etc/machine-id: .*symlink" "$tmp/out" || fail "machine-id symlink not reported"
grep -q "/var/lib/seedrng is a symlink to ../../../outside/seedrng: not followed" "$tmp/out" ||
        fail "directory symlink not reported"
grep -q "holds a machine ID" "$tmp/out" && fail "followed the machine-id symlink"
check "$tmp/r" 1 --fix
[ "$(cat "$tmp/outside/random-seed")" = secret ] || fail "target of the seed symlink changed"
[ "$(cat "$tmp/outside/seedrng/seed.credit")" = secret ] || fail "a file behind the directory symlink changed"
[ "$(cat "$tmp/outside/machine-id")" = fedcba9876543210fedcba9876543210 ] || fail "machine-id target changed"
[ -L "$tmp/r/var/lib/systemd/random-seed" ] && [ -L "$tmp/r/etc/machine-id" ] && [ -L "$tmp/r/var/lib/seedrng" ] ||
        fail "--fix removed a symlink it should have left for a person to check"

# A FIFO where a seed should be: reported, and check-image does not hang on it.
mkroot "$tmp/r"
mkfifo "$tmp/r/var/lib/entropy-gate/seed"
check "$tmp/r" 1
grep -q "not a regular file" "$tmp/out" || fail "FIFO not reported"

# Usage.
check "$tmp/does-not-exist" 1
check "" 1
set +e
"$ctl" check-image >/dev/null 2>&1; rc=$?
set -e
[ "$rc" = 2 ] || fail "check-image without ROOT: exit $rc"
echo "ctl-check-image: ok"
