#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The initrd helper imports the system credential entropy-gate.seed from
# qemu's fw_cfg and SMBIOS type 11 "as systemd would". systemd imports
# neither in a confidential VM (SEV, TDX, Secure Execution): there the
# hypervisor is the adversary, and a seed it hands over is known to it. The
# helper once imported it anyway, and entropy-seed then credited it: a
# hostile hypervisor chose the bytes that declared the guest's pool seeded.
# The helper (as built) runs against stand-ins: fw_cfg and DMI directories,
# /proc/cpuinfo, /sys/firmware/uv, and systemd-detect-virt, dmesg and
# modprobe first in its PATH (never the host's own: modprobe would load
# qemu_fw_cfg here). No root needed.
# Usage: initrd-credential-cvm.sh HELPER
set -u
helper_src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
ok() { echo "ok: $*"; }

seed=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef

# setup NAME: a fresh world, with the credential offered by fw_cfg and by
# an SMBIOS type 11 OEM string, and a helper that looks only there.
setup() {
        w=$tmp/$1
        mkdir -p "$w/bin" "$w/fw_cfg/entropy-gate.seed" "$w/dmi/11-0" "$w/uv"
        printf '%s' "$seed" >"$w/fw_cfg/entropy-gate.seed/raw"
        # type 11, length 5, handle, one string; the strings, then NUL NUL
        { printf '\013\005\000\000\001'; printf 'io.systemd.credential:entropy-gate.seed=%s\000\000' "$seed"; } \
                >"$w/dmi/11-0/raw"
        printf 'processor\t: 0\nflags\t\t: fpu vme de pse hypervisor\n' >"$w/cpuinfo"
        printf '#!/bin/sh\nexit 0\n' >"$w/bin/modprobe"
        printf '#!/bin/sh\nexit 0\n' >"$w/bin/dmesg"
        # An older systemd-detect-virt: no --cvm, an error.
        printf '#!/bin/sh\necho "systemd-detect-virt: unrecognized option --cvm" >&2\nexit 1\n' \
                >"$w/bin/systemd-detect-virt"
        chmod +x "$w/bin/modprobe" "$w/bin/dmesg" "$w/bin/systemd-detect-virt"
        sed -e "s|^CRED_DIR=.*|CRED_DIR=$w/credentials|" \
            -e "s|^FW_CFG_DIR=.*|FW_CFG_DIR=$w/fw_cfg|" \
            -e "s|^DMI_DIR=.*|DMI_DIR=$w/dmi|" \
            -e "s|^CPUINFO=.*|CPUINFO=$w/cpuinfo|" \
            -e "s|^UV_DIR=.*|UV_DIR=$w/uv|" \
            -e "s|^PATH=|PATH=$w/bin:|" \
            -e "s|/dev/kmsg|$w/kmsg|g" \
            "$helper_src" >"$w/helper"
        : >"$w/kmsg"
}

# imported NAME / refused NAME: run import-credential, check the outcome.
run() {
        sh "$tmp/$1/helper" import-credential >"$tmp/$1/out" 2>&1
}
imported() {
        run "$1"
        f=$tmp/$1/credentials/entropy-gate.seed
        if [ -f "$f" ] && [ "$(cat "$f")" = "$seed" ] && [ "$(stat -c %a "$f")" = 600 ]; then
                ok "$1: imported, mode 0600"
        else
                fail "$1: not imported in an ordinary VM"; sed 's/^/    /' "$tmp/$1/out" "$tmp/$1/kmsg"
        fi
}
refused() {
        run "$1"
        if [ -e "$tmp/$1/credentials/entropy-gate.seed" ]; then
                fail "$1: imported the hypervisor's credential in a confidential VM"
        elif ! grep -q "confidential VM" "$tmp/$1/kmsg" "$tmp/$1/out"; then
                fail "$1: refused without saying why"; sed 's/^/    /' "$tmp/$1/out" "$tmp/$1/kmsg"
        else
                ok "$1: not imported, and said why"
        fi
}

# An ordinary VM: fw_cfg, then (without fw_cfg) SMBIOS.
setup plain-fw-cfg && imported plain-fw-cfg
setup plain-smbios && rm -r "$tmp/plain-smbios/fw_cfg" && imported plain-smbios

# systemd-detect-virt says so (systemd 254 and later).
setup detect-virt
# shellcheck disable=SC2016 # the stand-in script's own $1, $2, $*
printf '#!/bin/sh\n[ "$2" = --cvm ] || [ "$1" = --cvm ] || exit 1\ncase "$*" in *-q*) ;; *) echo sev-snp ;; esac\nexit 0\n' \
        >"$tmp/detect-virt/bin/systemd-detect-virt"
refused detect-virt

# No systemd-detect-virt that knows: TDX's CPU flag, fw_cfg and SMBIOS.
setup tdx-flag
printf 'processor\t: 0\nflags\t\t: fpu vme hypervisor tdx_guest\n' >"$tmp/tdx-flag/cpuinfo"
refused tdx-flag
setup tdx-flag-smbios && rm -r "$tmp/tdx-flag-smbios/fw_cfg"
printf 'processor\t: 0\nflags\t\t: fpu tdx_guest vme\n' >"$tmp/tdx-flag-smbios/cpuinfo"
refused tdx-flag-smbios

# IBM Secure Execution.
setup s390-pv
echo 1 >"$tmp/s390-pv/uv/prot_virt_guest"
refused s390-pv

# AMD SEV: the kernel's own line.
setup sev-dmesg
printf '#!/bin/sh\necho "[    0.000000] Memory Encryption Features active: AMD SEV SEV-ES SEV-SNP"\n' \
        >"$tmp/sev-dmesg/bin/dmesg"
refused sev-dmesg

# A host with SME (memory encryption, no guest) is no confidential VM, and
# a flag that merely contains the name is no flag.
setup sme-host
printf '#!/bin/sh\necho "[    0.000000] Memory Encryption Features active: AMD SME"\necho "[    5.000000] ccp: SEV API:1.55"\n' \
        >"$tmp/sme-host/bin/dmesg"
printf 'processor\t: 0\nflags\t\t: fpu no_tdx_guest_x\n' >"$tmp/sme-host/cpuinfo"
imported sme-host

exit $failed
