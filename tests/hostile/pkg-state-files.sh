#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Erasing the RPM removes every file entropy-seed keeps in the state
# directory, and with them the directory: the seed, the credential record,
# and their temporary copies (".#NAME.new", as the atomic write names them;
# dir_holds_only_ours() in src/seed/seed-run.c knows the same four), which
# a save cut short by a power loss leaves behind until the next save. A file
# rpm does not know of stays on erase, with this machine's seed in it, and
# keeps the directory. Debian's postrm removes the directory whole on purge.
# Usage: pkg-state-files.sh SOURCE_DIR
set -u
src=$1
spec=$src/packaging/rpm/entropy-gate.spec
failed=0

if command -v rpmspec >/dev/null 2>&1; then
        text=$(rpmspec -P --load "$src/packaging/rpm/macros.fallback" "$spec" 2>/dev/null) || text=
fi
[ -n "${text:-}" ] || text=$(sed 's|%{_sharedstatedir}|/var/lib|g' "$spec")
for n in seed credentials .#seed.new .#credentials.new; do
        if printf '%s\n' "$text" | grep -qxF "%ghost %attr(0600,root,root) /var/lib/entropy-gate/$n"; then
                echo "ok: /var/lib/entropy-gate/$n is %ghost"
        else
                echo "FAIL: /var/lib/entropy-gate/$n is not in %files: erasing the package leaves it"
                failed=1
        fi
done
grep -q 'rm -rf "${DPKG_ROOT:-}/var/lib/entropy-gate"' "$src/debian/entropy-gate.postrm" ||
        { echo "FAIL: debian/entropy-gate.postrm does not remove the state directory on purge"; failed=1; }
exit $failed
