#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Lint every man page the build generated from man/*.in with mandoc: any
# warning or error fails. The generated pages are linted, not the templates,
# because they are what is installed.
# Usage: man-lint.sh SOURCE_DIR GENERATED_MAN_DIR
set -eu
src=$1 gen=$2
if ! command -v mandoc >/dev/null 2>&1; then
        echo "SKIP: mandoc not installed, cannot lint the man pages"
        exit 77
fi
failed=0 n=0
for tmpl in "$src"/man/*.[1-8].in; do
        [ -e "$tmpl" ] || continue
        n=$((n + 1))
        name=$(basename "$tmpl" .in)
        page=$gen/$name
        if [ ! -f "$page" ]; then
                echo "FAIL: $name: not generated from $tmpl (run cmake again?)"
                failed=1
                continue
        fi
        # -W warning: report warnings and worse (not style notes); the
        # exit status alone is not enough, so any output fails too.
        out=$(mandoc -T lint -W warning "$page" 2>&1) && rc=0 || rc=$?
        if [ "$rc" -ne 0 ] || [ -n "$out" ]; then
                echo "$out"
                echo "FAIL: $name"
                failed=1
        else
                echo "ok: $name"
        fi
done
[ "$n" -gt 0 ] || { echo "FAIL: no man page templates found in $src/man"; exit 1; }
exit $failed
