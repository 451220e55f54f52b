#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# A Debian tree whose systemd units the generator is tested against
# (tests/hostile/generator-cycles.py): debootstrap minbase of RELEASE with
# systemd and the packages that bring early-boot and storage units (lvm2,
# mdadm, cryptsetup) and the services image builders gate (ssh, nginx,
# cron, chrony). Built beside ROOT and renamed into place, so an
# interrupted run leaves no half tree behind.
# Usage: make-dist-root.sh RELEASE ROOT   (as root; MIRROR=URL to choose one)
set -eu
release=$1 root=$2
mirror=${MIRROR:-http://deb.debian.org/debian}
case $release in
bookworm) crypt=cryptsetup ;;
*) crypt=systemd-cryptsetup ;;
esac
pkgs=systemd,systemd-sysv,udev,dbus,systemd-resolved,$crypt,lvm2,mdadm,openssh-server,e2fsprogs,cron,nginx-light,chrony
tmp=$root.tmp
rm -rf "$tmp"
mkdir -p "$(dirname "$root")"
if ! debootstrap --variant=minbase --include="$pkgs" "$release" "$tmp" "$mirror" >"$root.log" 2>&1; then
        tail -5 "$root.log" >&2
        rm -rf "$tmp"
        exit 1
fi
mv "$tmp" "$root"
