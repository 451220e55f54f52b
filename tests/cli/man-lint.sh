#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Lint every man/*.[1-8] with mandoc: any warning or error fails.
# Usage: man-lint.sh SOURCE_DIR
set -eu
src=$1
if ! command -v mandoc >/dev/null 2>&1; then
        echo "SKIP: mandoc not installed, cannot lint the man pages"
        exit 77
fi
failed=0 n=0
for page in "$src"/man/*.[1-8]; do
        [ -e "$page" ] || continue
        n=$((n + 1))
        # -W warning: report warnings and worse (not style notes); the
        # exit status alone is not enough, so any output fails too.
        out=$(mandoc -T lint -W warning "$page" 2>&1) && rc=0 || rc=$?
        if [ "$rc" -ne 0 ] || [ -n "$out" ]; then
                echo "$out"
                echo "FAIL: $(basename "$page")"
                failed=1
        else
                echo "ok: $(basename "$page")"
        fi
done
[ "$n" -gt 0 ] || { echo "FAIL: no man pages found in $src/man"; exit 1; }
exit $failed
