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

# As the OpenWrt package configures it (packaging/openwrt/Makefile's
# CMAKE_OPTIONS and flags, with this machine's compiler): no provision verb,
# and nothing of it left in the binary.
flags=$(bash -c '. "$1" && openwrt_flags "$2" && printf "%s\n" "$owrt_cflags" "$owrt_ldflags" "${owrt_opts[@]}"' \
        sh "$src/tests/tools/openwrt-flags.sh" "$src/packaging/openwrt/Makefile") || fail "openwrt_flags"
cflags=$(printf '%s\n' "$flags" | sed -n 1p)
ldflags=$(printf '%s\n' "$flags" | sed -n 2p)
opts=$(printf '%s\n' "$flags" | sed -n '3,$p')
printf '%s\n' "$opts" | grep -qx -- -DENTROPY_GATE_PROVISION=OFF ||
        fail "the OpenWrt package does not build without provision: $opts"
# shellcheck disable=SC2086 # one CMake option per word
CFLAGS="$cflags" LDFLAGS="$ldflags" cmake -S "$src" -B "$tmp/owrt" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_C_FLAGS_RELEASE=-DNDEBUG -DCMAKE_INSTALL_PREFIX=/usr $opts >"$tmp/log" 2>&1 ||
        { cat "$tmp/log"; fail "configure (OpenWrt options)"; }
cmake --build "$tmp/owrt" -j2 --target entropy-gate-multicall >>"$tmp/log" 2>&1 ||
        { cat "$tmp/log"; fail "build (OpenWrt options)"; }
seed=$tmp/owrt-bin/entropy-seed
mkdir -p "$tmp/owrt-bin" "$tmp/image"
ln -s "$tmp/owrt/src/entropy-gate" "$seed"
"$seed" --help >"$tmp/help"
grep -q '^entropy-seed load|save \[OPTIONS' "$tmp/help" || fail "--help: $(head -n 1 "$tmp/help")"
grep -q 'provision is not part of this build' "$tmp/help" || fail "--help does not say provision is left out"
! grep -q -e '--machine-id' -e '--cross-mounts' "$tmp/help" || fail "--help lists provision's options"
set +e
"$seed" provision --root="$tmp/image" 2>"$tmp/err"; rc=$?
set -e
[ $rc = 1 ] && grep -q 'provision is not part of this build' "$tmp/err" ||
        fail "provision in a build without it: exit $rc: $(cat "$tmp/err")"
[ -z "$(ls -A "$tmp/image")" ] || fail "provision in a build without it wrote into the image: $(ls -A "$tmp/image")"
set +e
"$seed" load --machine-id=0123456789abcdef0123456789abcdef 2>"$tmp/err"; rc=$?
set -e
[ $rc = 2 ] && grep -q 'is for provision only' "$tmp/err" || fail "load --machine-id=: exit $rc: $(cat "$tmp/err")"
set +e
"$seed" frobnicate 2>"$tmp/err"; rc=$?
set -e
[ $rc = 2 ] && grep -q 'Unknown verb "frobnicate": load or save' "$tmp/err" || fail "unknown verb: exit $rc: $(cat "$tmp/err")"
! grep -a -q 'provisioned %zu bits' "$tmp/owrt/src/entropy-gate" || fail "provision's code is still in the binary"
grep -a -q 'provisioned %zu bits' "$tmp/build/src/entropy-gate" || fail "the default build has no provision code to miss"
echo "multicall, OpenWrt options: ok ($(stat -c %s "$tmp/owrt/src/entropy-gate") bytes, no provision)"
