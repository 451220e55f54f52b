#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# /init of the systemd tier's tiny initramfs: Debian's kernel has virtio and
# ext4 as modules, so load them, mount /dev/vda and hand over to systemd.
# Nothing here touches the random pool: the CRNG is still cold when systemd
# starts. The first program run asks the kernel, without blocking, whether
# the pool is initialized, and puts the answer in the kernel log
# ("eg-vm-probe: initrd READY=no ...").

export PATH=/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
/eg-vm-probe initrd
while read -r ko; do
    insmod "/lib/modules/$ko" 2>/dev/null   # crc32c-intel fails on qemu64: fine
done </lib/modules/order
i=0
while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
if ! mount -t ext4 -o rw /dev/vda /newroot; then
    echo "eg-vm initramfs: cannot mount /dev/vda" >/dev/console
    poweroff -f
fi
# init= on the kernel command line picks another init in the image (the
# init tier boots one image under sysvinit, OpenRC, runit or s6).
init=/sbin/init
for arg in $(cat /proc/cmdline); do
    case $arg in init=/*) init=${arg#init=} ;; esac
done
umount /proc /sys
umount /dev 2>/dev/null
exec switch_root /newroot "$init"
