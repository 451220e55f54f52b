#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# status and the provenance verdict (and so metrics' ready_source) name
# the other entropy daemons found by name in /proc. Any user can start a
# program called rngd (a copy of sleep will do); it can credit nothing,
# as only root can. It must not be listed, nor change the verdict.
# Usage: ctl-daemon-impostor.sh ENTROPYCTL_FAKE_POOL
set -eu
ctl=$1
if ! command -v python3 >/dev/null; then
        echo "SKIP: python3 not found to read the JSON"
        exit 77
fi
tmp=$(mktemp -d)
pid=
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

chmod 755 "$tmp"
cp "$(command -v sleep)" "$tmp/rngd"
chmod 755 "$tmp/rngd"
as_user=
if [ "$(id -u)" = 0 ]; then
        command -v setpriv >/dev/null || { echo "SKIP: root, and no setpriv to run as another user"; exit 77; }
        as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi
$as_user "$tmp/rngd" 60 &
pid=$!
for _ in $(seq 50); do
        [ "$(cat /proc/$pid/comm 2>/dev/null)" = rngd ] && break
        sleep 0.1
done
[ "$(cat /proc/$pid/comm)" = rngd ] || fail "the impostor did not start"

FAKE_POOL_READY_AFTER_MS=0 "$ctl" status --json=short --no-pager >"$tmp/status.json" || [ $? = 3 ] ||
        fail "status failed"
python3 - "$tmp/status.json" "$pid" <<'PY' || fail "a user's process named rngd was taken for the daemon"
import json, sys
d = json.load(open(sys.argv[1]))
pid = int(sys.argv[2])
listed = [x for x in d["other_daemons"] if pid in x.get("pids", [])]
other = d["provenance"]["facts"]["other_daemon"]
real = [x for x in d["other_daemons"] if x["name"] == "rngd" and x.get("pids")]
print("listed:", listed, "provenance other_daemon:", other)
sys.exit(1 if listed or (other == "rngd" and not real) else 0)
PY
echo "ok: a user's rngd is not an entropy daemon"
