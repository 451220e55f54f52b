#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# entropy-gate is on the boot path: it must link nothing but libc (plus the
# vDSO and the dynamic loader), or be static.
# Usage: gate-ldd.sh ENTROPY_GATE SANITIZE
set -eu
bin=$1 sanitize=$2
case $sanitize in ON|on|1|TRUE|true|YES|yes)
        echo "SKIP: built with sanitizers, which link their own runtimes"
        exit 77 ;;
esac
if ! command -v ldd >/dev/null 2>&1; then
        echo "SKIP: ldd not installed"
        exit 77
fi
out=$(ldd "$bin" 2>&1) || true
echo "$out"
case $out in *"not a dynamic executable"*|*"statically linked"*)
        echo "ok: static"; exit 0 ;;
esac
bad=$(printf '%s\n' "$out" | grep -Ev '^[[:space:]]*(linux-vdso\.so\.[0-9]+|linux-gate\.so\.[0-9]+|libc\.so\.[0-9]+|(/[^ ]*/)?ld-linux[^ ]*\.so\.[0-9]+|(/[^ ]*/)?ld-musl[^ ]*\.so\.[0-9]+|(/[^ ]*/)?libc\.musl[^ ]*\.so\.[0-9]+)([[:space:]]|$)' || true)
if [ -n "$bad" ]; then
        echo "FAIL: entropy-gate links more than libc:"
        echo "$bad"
        exit 1
fi
printf '%s\n' "$out" | grep -q 'libc\.so' || { echo "FAIL: no libc in the ldd output"; exit 1; }
echo "ok: libc only"
