# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# Sourced by the packaging scripts: a clean tree of one commit, and the
# time that commit gives every build of it.

eg_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

eg_die() {
        printf '%s: %s\n' "${0##*/}" "$*" >&2
        exit 1
}

# eg_commit REV: the full hash of REV in this checkout.
eg_commit() {
        git -C "$eg_top" rev-parse --verify --quiet "$1^{commit}" ||
                eg_die "$1: not a commit of the git checkout $eg_top (the packages are built from a commit)"
}

# eg_epoch COMMIT: SOURCE_DATE_EPOCH for builds of COMMIT, its committer
# date, so that every build of one commit stamps the same times.
eg_epoch() {
        git -C "$eg_top" log -1 --format=%ct "$1"
}

# eg_export COMMIT DIR: the files of COMMIT (no build directories, no
# uncommitted changes) into DIR, which must not exist.
eg_export() {
        mkdir -p "$2"
        git -C "$eg_top" archive --format=tar "$1" | tar -x -C "$2"
}

# eg_warn_dirty: say so when the work tree differs from HEAD, whose files
# are what gets packaged.
eg_warn_dirty() {
        if [[ -n $(git -C "$eg_top" status --porcelain --untracked-files=no 2>/dev/null) ]]; then
                printf '%s: note: uncommitted changes are not packaged (building commit %s)\n' \
                        "${0##*/}" "$(git -C "$eg_top" rev-parse --short HEAD)" >&2
        fi
}
