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
tree=$1 gate=$(realpath "$2") ctl=$(realpath "$3")
shift 3
# --include installs the local .debs; the hook directory bind-mounts them
# into the chroot while apt runs, and the empty files and directories it
# mounted them on are removed after it unmounted them. The last hook
# removes everything every machine made from the tree would share.
# mmdebstrap's own cleanup then leaves /etc/machine-id empty: each machine
# makes its own at first boot.
mmdebstrap --variant=minbase --include="systemd-sysv,udev,dbus,$gate,$ctl" \
        --hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
        "$@" \
        --customize-hook="cd \"\$1\" && rm -f \".$gate\" \".$ctl\" &&
                rmdir -p --ignore-fail-on-non-empty \".${gate%/*}\" \".${ctl%/*}\"" \
        --customize-hook='entropyctl check-image "$1" --fix' \
        bookworm "$tree" ${MIRROR:-}
