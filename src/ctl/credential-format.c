// SPDX-License-Identifier: LGPL-2.1-or-later
#include <stdbool.h>
#include <string.h>

#include "credential.h"
#include "credential-format.h"
#include "macro.h"
#include "string-table.h"

static const char *const credential_format_table[_CREDENTIAL_FORMAT_MAX] = {
        [CREDENTIAL_FORMAT_QEMU_SMBIOS] = "qemu-smbios",
        [CREDENTIAL_FORMAT_QEMU_FW_CFG] = "qemu-fw-cfg",
        [CREDENTIAL_FORMAT_VMSPAWN] = "vmspawn",
        [CREDENTIAL_FORMAT_LIBVIRT] = "libvirt",
        [CREDENTIAL_FORMAT_VIRT_INSTALL] = "virt-install",
        [CREDENTIAL_FORMAT_MKOSI] = "mkosi",
        [CREDENTIAL_FORMAT_CLOUD_INIT] = "cloud-init",
        [CREDENTIAL_FORMAT_HEX] = "hex",
        [CREDENTIAL_FORMAT_RAW] = "raw",
};

DEFINE_STRING_TABLE(credential_format, CredentialFormat)

int credential_bits_parse(const char *s, unsigned *ret) {
        unsigned long v = 0;

        if (!s || !*s)
                return -EINVAL;
        for (const char *p = s; *p; p++) {
                if (*p < '0' || *p > '9')
                        return -EINVAL;
                /* Saturate: a long number is out of range, not a wrap-around. */
                if (v <= CREDENTIAL_BITS_MAX)
                        v = v * 10 + (unsigned long) (*p - '0');
        }
        if (v < CREDENTIAL_BITS_MIN || v > CREDENTIAL_BITS_MAX || v % 8 != 0)
                return -ERANGE;
        *ret = (unsigned) v;
        return 0;
}

/* A bounded writer: once full, it stays full and says so at the end. */
typedef struct Out {
        char *buf;
        size_t size, n;
        bool full;
} Out;

static void out_bytes(Out *o, const void *p, size_t n) {
        if (o->full || n > o->size - o->n) {
                o->full = true;
                return;
        }
        memcpy(o->buf + o->n, p, n);
        o->n += n;
}

static void out_str(Out *o, const char *s) {
        out_bytes(o, s, strlen(s));
}

static void out_hex(Out *o, const uint8_t *p, size_t n) {
        static const char digits[] = "0123456789abcdef";

        for (size_t i = 0; i < n; i++) {
                char c[2] = { digits[p[i] >> 4], digits[p[i] & 15] };
                out_bytes(o, c, 2);
        }
}

/* The text form of smbios-type-11(7): hex digits, credited at 4 bits a
 * digit. The binary form (io.systemd.credential.binary:, base64) would
 * reach entropy-seed as the bytes themselves, which lose a last NUL, CR or
 * LF (taken for a terminator) and are, rarely, taken for text: credited at
 * less than was asked, or not at all. */
#define SMBIOS_CREDENTIAL "io.systemd.credential:" CREDENTIAL_NAME "="

bool credential_seed_survives(const uint8_t *seed, size_t size) {
        uint8_t canon[CREDENTIAL_BITS_MAX / 8];
        CredentialContent c;
        bool ok;

        if (size > sizeof(canon))
                return false;
        credential_canonicalize(seed, size, canon, &c);
        ok = c.class == CREDENTIAL_CLASS_BINARY && c.size == size;
        erase(canon, sizeof(canon));
        return ok;
}

ssize_t credential_format(CredentialFormat f, const uint8_t *seed, size_t size, char *buf, size_t bufsize) {
        Out o = { .buf = buf, .size = bufsize };

        switch (f) {
        case CREDENTIAL_FORMAT_QEMU_SMBIOS:
                /* qemu(1) -smbios type=11,value=STRING; smbios-type-11(7). */
                out_str(&o, "-smbios type=11,value=" SMBIOS_CREDENTIAL);
                out_hex(&o, seed, size);
                break;
        case CREDENTIAL_FORMAT_QEMU_FW_CFG:
                /* qemu(1) -fw_cfg name=NAME,string=STR; systemd reads
                 * opt/io.systemd.credentials/ID as the credential's bytes. */
                out_str(&o, "-fw_cfg name=opt/io.systemd.credentials/" CREDENTIAL_NAME ",string=");
                out_hex(&o, seed, size);
                break;
        case CREDENTIAL_FORMAT_VMSPAWN:
                /* systemd-vmspawn(1) --set-credential=ID:VALUE, a text value. */
                out_str(&o, "--set-credential=" CREDENTIAL_NAME ":");
                out_hex(&o, seed, size);
                break;
        case CREDENTIAL_FORMAT_LIBVIRT:
                /* Domain XML: <sysinfo type='smbios'> OEM strings, which
                 * <os><smbios mode='sysinfo'/> hands to the guest. */
                out_str(&o, "<os>\n"
                            "  <smbios mode='sysinfo'/>\n"
                            "</os>\n"
                            "<sysinfo type='smbios'>\n"
                            "  <oemStrings>\n"
                            "    <entry>" SMBIOS_CREDENTIAL);
                out_hex(&o, seed, size);
                out_str(&o, "</entry>\n"
                            "  </oemStrings>\n"
                            "</sysinfo>");
                break;
        case CREDENTIAL_FORMAT_VIRT_INSTALL:
                /* virt-install(1) --sysinfo: the same OEM string. */
                out_str(&o, "--sysinfo type=smbios,oemStrings.entry0=" SMBIOS_CREDENTIAL);
                out_hex(&o, seed, size);
                break;
        case CREDENTIAL_FORMAT_MKOSI:
                /* mkosi(1) Credentials=ID=VALUE (mkosi 15 and later). */
                out_str(&o, "Credentials=" CREDENTIAL_NAME "=");
                out_hex(&o, seed, size);
                break;
        case CREDENTIAL_FORMAT_HEX:
                out_hex(&o, seed, size);
                break;
        case CREDENTIAL_FORMAT_RAW:
                out_bytes(&o, seed, size);
                return o.full ? -ENOBUFS : (ssize_t) o.n;
        case CREDENTIAL_FORMAT_CLOUD_INIT:
                return -EOPNOTSUPP;
        default:
                return -EINVAL;
        }
        out_bytes(&o, "\n", 2);   /* with the NUL */
        return o.full ? -ENOBUFS : (ssize_t) o.n - 1;
}
