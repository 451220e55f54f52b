#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# ENTROPY_GATE_MULTICALL=ON (the OpenWrt package's build): one installed
# binary, entropy-seed a symbolic link to entropy-gate, each name behaving
# as its own program.
# Usage: multicall.sh SOURCE_DIR
set -eu
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake -S "$src" -B "$tmp/build" -DENTROPY_GATE_MULTICALL=ON -DENTROPY_GATE_CTL=OFF -DENTROPY_GATE_TESTS=OFF \
        -DCMAKE_INSTALL_PREFIX=/usr >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "configure"; }
cmake --build "$tmp/build" -j2 >>"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "build"; }
DESTDIR=$tmp/dest cmake --install "$tmp/build" >>"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "install"; }
sbin=$tmp/dest/usr/sbin
[ -f "$sbin/entropy-gate" ] && [ ! -L "$sbin/entropy-gate" ] || fail "no entropy-gate binary"
[ "$(readlink "$sbin/entropy-seed")" = entropy-gate ] || fail "entropy-seed is not a link to entropy-gate"
[ "$(ls "$sbin")" = "$(printf 'entropy-gate\nentropy-seed')" ] || fail "unexpected files: $(ls "$sbin")"
"$sbin/entropy-gate" --version | grep -qx 'entropy-gate [0-9.]*' || fail "entropy-gate --version"
"$sbin/entropy-seed" --version | grep -qx 'entropy-seed [0-9.]*' || fail "entropy-seed --version"
"$sbin/entropy-seed" --help | grep -q 'load|save|provision' || fail "entropy-seed --help"
"$sbin/entropy-gate" --help | grep -q -- '--on-timeout' || fail "entropy-gate --help"
set +e
"$sbin/entropy-seed" frobnicate 2>"$tmp/err"; rc=$?
set -e
[ $rc = 2 ] && grep -q 'Unknown verb' "$tmp/err" || fail "entropy-seed usage error: exit $rc"
echo "multicall: ok ($(stat -c %s "$sbin/entropy-gate") bytes)"
