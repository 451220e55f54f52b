#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# A Debian 12 image tree with entropy-gate, built by mmdebstrap: one image
# for many machines.
#   mmdebstrap-image.sh TREE ENTROPY_GATE_DEB ENTROPYCTL_DEB [OPTION...]
# OPTIONs go to mmdebstrap before the last step (more --include=, your own
# --customize-hook=...). MIRROR= in the environment names the Debian mirror
# (default: deb.debian.org with bookworm-updates and the security archive).
# entropyctl runs on the build host: install the entropyctl package there.
set -eu
tree=$1
stage=$(mktemp -d /var/tmp/entropy-gate-debs.XXXXXX)
trap 'rm -rf "$stage"' EXIT
cp "$2" "$3" "$stage/"
gate=$stage/${2##*/} ctl=$stage/${3##*/}
shift 3
# --include installs the local .debs; the hook directory bind-mounts them
# into the chroot, at the same paths, while apt runs; once it unmounted
# them, the empty files and the directory it made for them go. The last
# hook removes everything every machine made from the tree would share.
# mmdebstrap's own cleanup then leaves /etc/machine-id empty: each machine
# makes its own at first boot.
mmdebstrap --variant=minbase --include="systemd-sysv,udev,dbus,$gate,$ctl" \
        --hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
        "$@" \
        --customize-hook="rm -f \"\$1$gate\" \"\$1$ctl\" && rmdir \"\$1$stage\"" \
        --customize-hook='entropyctl check-image "$1" --fix' \
        bookworm "$tree" ${MIRROR:-}
