#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The last step of an image built in a directory tree (debootstrap,
# ubuntu-image, a chroot-based build), after every package is installed:
#   debootstrap-image.sh ROOT              one image for many machines
#   debootstrap-image.sh ROOT MACHINE_ID   an image for one device
set -eu
root=$1

# The build ran services and package scripts inside the tree: whatever
# seeds and identity they left would be shared by every machine made from it.
entropyctl check-image "$root" --fix

if [ $# -ge 2 ]; then
        # One device: its own machine ID, and a seed its first boot credits.
        entropy-seed provision --root="$root" --machine-id="$2"
fi
