/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* entropyctl credential: a seed for one machine, as the system credential
 * entropy-gate.seed in the form one hypervisor or tool takes. Pure: the
 * caller brings the bytes and the buffer (and wipes both); table-tested.
 *
 * Each form carries the seed so that entropy-seed credits exactly the
 * bits asked for (credential.h): hex digits wherever the value travels as
 * text (SMBIOS OEM strings, fw_cfg string=, vmspawn, mkosi), which every
 * transport keeps intact and entropy-seed decodes at 4 bits a digit; the
 * bytes themselves only for a file (raw). Every character printed is a
 * letter, a digit, a space between words or one of "=-_.:,/": nothing a
 * shell or XML would interpret, so the text is pasted as it is. */

typedef enum CredentialFormat {
        CREDENTIAL_FORMAT_QEMU_SMBIOS,
        CREDENTIAL_FORMAT_QEMU_FW_CFG,
        CREDENTIAL_FORMAT_VMSPAWN,
        CREDENTIAL_FORMAT_LIBVIRT,
        CREDENTIAL_FORMAT_VIRT_INSTALL,
        CREDENTIAL_FORMAT_MKOSI,
        CREDENTIAL_FORMAT_CLOUD_INIT,    /* known, never printed: see credential_format() */
        CREDENTIAL_FORMAT_HEX,
        CREDENTIAL_FORMAT_RAW,
        _CREDENTIAL_FORMAT_MAX,
        _CREDENTIAL_FORMAT_INVALID = -EINVAL,
} CredentialFormat;

const char *credential_format_to_string(CredentialFormat f);
CredentialFormat credential_format_from_string(const char *s);

/* The size of a seed: entropy-seed credits a credential of at least 32
 * bytes, and reads at most 4096 (hex: 2048 bytes), so 256 to 4096 bits in
 * whole bytes; 512 unless asked. */
#define CREDENTIAL_BITS_MIN 256U
#define CREDENTIAL_BITS_MAX 4096U
#define CREDENTIAL_BITS_DEFAULT 512U

/* Parse --bits=: decimal digits only. -EINVAL when it is not a number,
 * -ERANGE outside CREDENTIAL_BITS_MIN..MAX or not a multiple of 8. */
int credential_bits_parse(const char *s, unsigned *ret);

/* Would these bytes, as a raw credential file, reach entropy-seed whole and
 * be credited at 8 bits a byte? Not when the last is a NUL, CR or LF
 * (taken for a terminator: 3 seeds in 256) or all of them read as text
 * (below 1 in 4000 at 32 bytes); the caller draws again. Such a draw
 * costs the seed less than 0.02 bits of its entropy. */
bool credential_seed_survives(const uint8_t *seed, size_t size);

/* Enough for any format at CREDENTIAL_BITS_MAX, with its NUL. */
#define CREDENTIAL_TEXT_MAX 2048U

/* Write the credential holding the @size bytes of @seed in format @f into
 * @buf (@bufsize bytes): text ends in a newline and is NUL-terminated; raw
 * is the bytes themselves. Returns the number of bytes (without the NUL),
 * -ENOBUFS when @buf is too small, -EOPNOTSUPP for cloud-init (cloud-init
 * runs after entropy-seed.service: nothing it writes is there when the
 * first boot's seed is loaded), -EINVAL for no format. */
ssize_t credential_format(CredentialFormat f, const uint8_t *seed, size_t size, char *buf, size_t bufsize);
