#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# A fresh seed for one virtual machine, as the system credential
# entropy-gate.seed in the form its hypervisor or tool takes:
#   seed-credential.sh FORMAT [BITS]
# FORMAT: qemu-smbios, qemu-fw-cfg, vmspawn, libvirt, virt-install, mkosi,
# hex, raw. BITS: 256 to 4096, a multiple of 8 (default 512). Run it once
# per machine and per boot: a seed handed over twice is credited once.
set -eu
format=${1:-}
bits=${2:-512}
case $bits in
*[!0-9]* | '') bits=0 ;;
esac
if [ "$bits" -lt 256 ] || [ "$bits" -gt 4096 ] || [ $((bits % 8)) -ne 0 ]; then
        echo "seed-credential.sh: BITS must be 256 to 4096, a multiple of 8" >&2
        exit 2
fi
bytes=$((bits / 8))

# /dev/random read without blocking fails (EAGAIN) while this host's own
# pool is not initialized: an unseeded host hands out nothing rather than
# bytes someone could predict.
hex=$(dd if=/dev/random bs="$bytes" count=1 iflag=nonblock,fullblock 2>/dev/null |
        od -An -v -tx1 | tr -d ' \n')
if [ ${#hex} -ne $((bytes * 2)) ]; then
        echo "seed-credential.sh: this host's random pool is not initialized; no seed" >&2
        exit 1
fi
# Binary forms carry the bytes as base64; text forms as hex digits, which
# entropy-seed decodes and credits at their real density (64 hex digits are
# 256 bits).
bin() { printf '%s' "$hex" | tr a-f A-F | basenc --base16 -d; }
b64() { bin | base64 -w 0; }

case $format in
qemu-smbios)    # qemu(1) -smbios type=11; systemd imports it as a binary credential
        echo "-smbios type=11,value=io.systemd.credential.binary:entropy-gate.seed=$(b64)" ;;
qemu-fw-cfg)    # qemu(1) -fw_cfg; the guest needs qemu_fw_cfg loaded in its initrd
        echo "-fw_cfg name=opt/io.systemd.credentials/entropy-gate.seed,string=$hex" ;;
vmspawn)        # systemd-vmspawn(1) --set-credential=ID:VALUE
        echo "--set-credential=entropy-gate.seed:$hex" ;;
libvirt)        # domain XML, <os> and <sysinfo>: SMBIOS OEM strings (type 11)
        cat <<EOF
<os>
  <smbios mode='sysinfo'/>
</os>
<sysinfo type='smbios'>
  <oemStrings>
    <entry>io.systemd.credential.binary:entropy-gate.seed=$(b64)</entry>
  </oemStrings>
</sysinfo>
EOF
        ;;
virt-install)   # virt-install(1) --sysinfo: the same OEM string
        echo "--sysinfo type=smbios,oemStrings.entry0=io.systemd.credential.binary:entropy-gate.seed=$(b64)" ;;
mkosi)          # mkosi.conf(5) of mkosi 15 and later, for "mkosi qemu"
        printf 'Credentials=entropy-gate.seed=%s\n' "$hex" ;;
hex)
        echo "$hex" ;;
raw)            # for a file: LoadCredential=, qemu -fw_cfg ...,file=, vmspawn --load-credential=
        bin ;;
*)
        echo "usage: seed-credential.sh qemu-smbios|qemu-fw-cfg|vmspawn|libvirt|virt-install|mkosi|hex|raw [BITS]" >&2
        exit 2 ;;
esac
