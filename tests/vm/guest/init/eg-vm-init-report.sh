#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The init tier's in-guest reporter (eg-vm-init-report INIT): gathers what
# the host checks into a tar archive written raw to the second disk
# (/dev/vdb), as the systemd tier's does, then powers the machine off the
# way INIT does, so that the seed is saved by the init system's own
# shutdown path. Runs once everything ordered after the gate has started,
# or could not start.

init=$1
r=/run/eg-vm-report
rm -rf "$r"
mkdir -p "$r"
cd "$r" || exit 1
echo "$init" >init.txt
cat /proc/1/comm >pid1.txt 2>&1
dmesg >dmesg.txt 2>&1
cat /proc/cmdline >cmdline.txt
cat /etc/machine-id >machine-id.txt 2>&1
mkdir -p runstate
cp -a /run/entropy-gate/. runstate/ 2>/dev/null
cp -a /run/eg-vm-probe probe 2>/dev/null
cp -a /run/eg-vm-init init 2>/dev/null
if [ -e /var/lib/entropy-gate/seed ]; then
    sha256sum /var/lib/entropy-gate/seed | cut -d' ' -f1 >seed.sha256
fi
case $init in
sysvinit)
    ls /etc/rcS.d /etc/rc2.d /etc/rc0.d >rc-links.txt 2>&1
    /etc/init.d/entropy-gate status; echo $? >gate-status.rc
    ;;
openrc)
    rc-status -a >rc-status.txt 2>&1
    for s in entropy-seed entropy-gate eg-vm-consumer; do
        rc-service "$s" status >"status-$s.txt" 2>&1; echo $? >"status-$s.rc"
    done
    ;;
runit)
    sv status /etc/service/* >sv-status.txt 2>&1
    sv check entropy-gate >sv-check.txt 2>&1; echo $? >sv-check.rc
    ;;
s6)
    for s in entropy-gate eg-vm-consumer; do
        s6-svstat -o up,wantedup,ready,exitcode "/run/service/$s" >"svstat-$s.txt" 2>&1
    done
    ;;
esac
echo done >complete
# Without udev, /dev may be the image's static one, and /run is nodev
# under OpenRC: the report disk's node from a devtmpfs of our own.
vdb=/dev/vdb
if [ ! -b "$vdb" ]; then
    mkdir -p /run/eg-vm-dev
    mount -t devtmpfs devtmpfs /run/eg-vm-dev
    vdb=/run/eg-vm-dev/vdb
fi
tar -cf "$vdb" -C "$r" .
sync

case $init in
sysvinit|openrc) exec /sbin/poweroff ;;
runit) exec /lib/runit/runit-init 0 ;;
s6) exec /usr/local/sbin/eg-s6-shutdown ;;
esac
