#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The systemd tier's package upgrade in the running guest: records what
# systemd and the seed helper say of entropy-seed.service right before and
# right after "dpkg -i" of the newer packages, for the report
# (/run/eg-vm-upgrade/). A restart of the unit would show as a new
# InvocationID and activation time, a "save" and a second "load".

out=/run/eg-vm-upgrade
rm -rf "$out"
mkdir -p "$out"
state() {   # state before|after
    systemctl show entropy-seed.service -p InvocationID -p ActiveState \
        -p ActiveEnterTimestampMonotonic -p ExecMainStartTimestampMonotonic -p NRestarts >"$out/seed-unit-$1.txt"
    cp /run/entropy-gate/seed "$out/seed-record-$1" 2>/dev/null
    dpkg-query -W -f='${Version}' entropy-gate >"$out/version-$1" 2>&1
}
state before
DEBIAN_FRONTEND=noninteractive dpkg -i /var/cache/eg-vm/upgrade/*.deb >"$out/dpkg.log" 2>&1
echo $? >"$out/dpkg.rc"
state after
