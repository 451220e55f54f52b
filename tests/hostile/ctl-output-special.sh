#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# plot and metrics --output=FILE rename a new file over FILE. Run as root
# with --output=/dev/null or --output=/dev/stdout, that put a regular file
# in place of the device or the symlink for every program until the next
# boot. Only a regular file (or nothing) may be replaced: anything else is
# an error, and stays what it was. credential --output= replaces nothing,
# and removes what it made, when it fails, from where it made it.
# Usage: ctl-output-special.sh ENTROPYCTL_FAKE_POOL
set -eu
ctl=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir "$tmp/root"
cat >"$tmp/boot.json" <<'JSON'
{"schema_version":1,"events":[{"event":"kernel-started","monotonic_usec":0,"text":"kernel started"}]}
JSON
ln -s /proc/self/fd/1 "$tmp/stdout"
mkfifo "$tmp/fifo"
special="stdout fifo"
# A device needs root (CAP_MKNOD): the case that breaks a system.
if mknod "$tmp/null" c 1 3 2>/dev/null; then
        special="$special null"
fi

run() { EG_TEST_ROOT=$tmp/root FAKE_POOL_READY_AFTER_MS=0 "$ctl" "$@" --no-pager; }
for name in $special; do
        for verb in "plot $tmp/boot.json" metrics; do
                before=$(ls -l "$tmp/$name" | cut -c1)
                # shellcheck disable=SC2086
                if run $verb --output="$tmp/$name" >"$tmp/out" 2>"$tmp/err"; then
                        fail "$verb --output=$name succeeded"
                fi
                grep -q 'not a regular file' "$tmp/err" || fail "$verb --output=$name: $(cat "$tmp/err")"
                [ "$(ls -l "$tmp/$name" | cut -c1)" = "$before" ] || fail "$verb replaced $name: $(ls -l "$tmp/$name")"
        done
done
# A regular file is still replaced, and a new one made.
echo old >"$tmp/file"
run plot "$tmp/boot.json" --output="$tmp/file" || fail "plot --output= a regular file failed"
grep -q '<svg' "$tmp/file" || fail "plot did not replace a regular file"
run metrics --output="$tmp/new.prom" || fail "metrics --output= a new file failed"
grep -q '^entropy_gate_info' "$tmp/new.prom" || fail "metrics did not write a new file"
[ -z "$(ls -A "$tmp" | grep '^\.')" ] || fail "a temporary file was left behind: $(ls -A "$tmp")"

# --output=- is standard output, as without the option: not a file named
# "-" in the working directory (a seed, mode 0600, where no one looks).
for verb in "plot $tmp/boot.json" metrics "credential --format=hex"; do
        # shellcheck disable=SC2086
        (cd "$tmp" && run $verb --output=- >"$tmp/out" 2>"$tmp/err") || fail "$verb --output=- failed: $(cat "$tmp/err")"
        [ ! -e "$tmp/-" ] || fail "$verb --output=- wrote a file named -"
        [ -s "$tmp/out" ] || fail "$verb --output=- printed nothing"
done

# credential --output= makes a new file only: never over any of them.
for name in $special file; do
        before=$(ls -l "$tmp/$name")
        if run credential --format=hex --output="$tmp/$name" >"$tmp/out" 2>"$tmp/err"; then
                fail "credential --output=$name succeeded"
        fi
        [ "$(ls -l "$tmp/$name")" = "$before" ] || fail "credential changed $name: $(ls -l "$tmp/$name")"
        # Only a seed file of one's own is for removing: never /dev/null.
        if [ "$name" = file ]; then
                grep -q 'remove it first' "$tmp/err" || fail "credential --output=file: $(cat "$tmp/err")"
        elif grep -q 'remove it' "$tmp/err" || ! grep -q 'not a file' "$tmp/err"; then
                fail "credential --output=$name: $(cat "$tmp/err")"
        fi
done
# A credential that fails to reach the disk is removed, from the directory
# it was made in: the directory on the way swapped for a symlink meanwhile
# once made that removal take the file of the same name elsewhere.
if command -v strace >/dev/null 2>&1 && strace -qq -o /dev/null true 2>/dev/null; then
        mkdir "$tmp/dir" "$tmp/elsewhere"
        echo precious >"$tmp/elsewhere/seed"
        EG_TEST_ROOT=$tmp/root FAKE_POOL_READY_AFTER_MS=0 strace -qq -f -o /dev/null -e trace=fsync \
                -e inject=fsync:error=EIO:delay_enter=3000000 \
                "$ctl" credential --format=hex --output="$tmp/dir/seed" >/dev/null 2>"$tmp/err" &
        pid=$!
        i=0
        while [ ! -e "$tmp/dir/seed" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
        mv "$tmp/dir" "$tmp/dir.old"
        ln -s "$tmp/elsewhere" "$tmp/dir"
        rc=0
        wait $pid || rc=$?
        [ $rc = 1 ] || fail "credential with fsync failing exited $rc: $(cat "$tmp/err")"
        [ "$(cat "$tmp/elsewhere/seed" 2>/dev/null)" = precious ] || fail "credential removed a file elsewhere"
        [ ! -e "$tmp/dir.old/seed" ] || fail "credential left its unwritten seed behind"
        rm -f "$tmp/dir"
        echo "ok: a failed credential removed in its own directory only"
fi
echo "ok: only regular files replaced ($special refused)"
