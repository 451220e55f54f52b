/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The seed file, as pure functions of bytes: no I/O here.
 *
 * Layout (all integers little endian), version 1:
 *
 *   offset  size  field
 *        0     8  magic        "\x89EGSEED\n"  (8-bit clean transfer, not text)
 *        8     4  version      1
 *       12     4  flags        bit 0: creditable; every other bit must be 0
 *       16    32  binding      seed_binding_compute(machine-id), all zero: unbound
 *       48     4  seed_size    SEED_SIZE_MIN..SEED_SIZE_MAX
 *       52     n  seed
 *     52+n    32  checksum     BLAKE2s-256 (unkeyed) of bytes 0..52+n
 *
 * version 2, a seed saved in a known VM generation (vm-generation.h):
 *
 *        0     8  magic
 *        8     4  version      2
 *       12     4  flags        as in version 1
 *       16    32  binding      as in version 1
 *       48    32  generation   vm_generation_binding(), never all zero
 *       80     4  seed_size
 *       84     n  seed
 *     84+n    32  checksum     BLAKE2s-256 (unkeyed) of bytes 0..84+n
 *
 * A seed without a generation is always written as version 1, so that each
 * seed has exactly one encoding, the files of systems that are not VMs stay
 * as they were, and an older entropy-seed still reads them; a version 2 file
 * with an all-zero generation does not parse. A file is exactly
 * SEED_FILE_SIZE(n) (116..596) or SEED_FILE_SIZE_V2(n) (148..628) bytes. A
 * reader can bound its read at SEED_FILE_SIZE_MAX + 1 bytes: anything longer
 * is not a seed. */

#define SEED_SIZE_MIN 32U
#define SEED_SIZE_MAX 512U
#define SEED_BINDING_SIZE 32U
#define SEED_GENERATION_SIZE 32U
#define SEED_FILE_VERSION 1U
#define SEED_FILE_VERSION_GENERATION 2U
#define SEED_FILE_MAGIC "\x89" "EGSEED\n"
#define SEED_FILE_MAGIC_SIZE 8U
#define SEED_FILE_HEADER_SIZE 52U
#define SEED_FILE_HEADER_SIZE_V2 (SEED_FILE_HEADER_SIZE + SEED_GENERATION_SIZE)
#define SEED_FILE_CHECKSUM_SIZE 32U
#define SEED_FILE_SIZE(n) (SEED_FILE_HEADER_SIZE + (size_t) (n) + SEED_FILE_CHECKSUM_SIZE)
#define SEED_FILE_SIZE_V2(n) (SEED_FILE_HEADER_SIZE_V2 + (size_t) (n) + SEED_FILE_CHECKSUM_SIZE)
#define SEED_FILE_SIZE_MIN SEED_FILE_SIZE(SEED_SIZE_MIN)
#define SEED_FILE_SIZE_MAX SEED_FILE_SIZE_V2(SEED_SIZE_MAX)

#define SEED_FLAG_CREDITABLE 0x1U

/* Everything a seed file says. Holds a secret: wipe with seed_file_erase()
 * (or declare with _cleanup_(seed_file_erase)). */
typedef struct SeedFile {
        bool creditable;                        /* written while the CRNG was initialized */
        uint8_t binding[SEED_BINDING_SIZE];
        uint8_t generation[SEED_GENERATION_SIZE]; /* vm_generation_binding(), all zero: saved in no known generation */
        size_t seed_size;                       /* SEED_SIZE_MIN..SEED_SIZE_MAX */
        uint8_t seed[SEED_SIZE_MAX];
} SeedFile;

void seed_file_erase(SeedFile *f);

/* Encode @in into a new malloc'd buffer of SEED_FILE_SIZE(in->seed_size)
 * bytes (SEED_FILE_SIZE_V2() with a generation). The caller wipes (erase()) and frees it. 0, -EINVAL (seed_size out
 * of range), -ENOMEM. */
int seed_file_serialize(const SeedFile *in, uint8_t **ret, size_t *ret_size);

/* The same into the caller's @buf. */
int seed_file_serialize_into(const SeedFile *in, uint8_t buf[static SEED_FILE_SIZE_MAX], size_t *ret_size);

/* Decode exactly @size bytes of @buf; never reads past @size. On failure
 * *ret is untouched and, when @reason is non-NULL, *reason is set to a
 * static English phrase such as "checksum mismatch", for messages like
 * "seed file does not parse: %s". Returns 0 or:
 *   -EBADMSG          not a seed file, truncated, trailing data, checksum mismatch
 *   -EPROTONOSUPPORT  a seed file of another version, or with unknown flags
 *   -EINVAL           seed length outside SEED_SIZE_MIN..SEED_SIZE_MAX */
int seed_file_parse(const uint8_t *buf, size_t size, SeedFile *ret, const char **reason);

/* The machine binding: BLAKE2s-256 keyed with the fixed string
 * "entropy-gate machine binding v1" over the machine-id, so the file never
 * holds the raw id (which systemd asks applications not to disclose) yet two
 * machines with different ids get different bindings. @machine_id is the
 * text of /etc/machine-id; trailing whitespace (the newline) is ignored.
 * NULL or empty (no machine-id at all, e.g. OpenWrt): all zero, "unbound". */
void seed_binding_compute(const char *machine_id, uint8_t ret[static SEED_BINDING_SIZE]);
bool seed_binding_is_unbound(const uint8_t binding[static SEED_BINDING_SIZE]);

/* The seed size for a kernel input pool of @pool_bits bits: one pool's worth,
 * pool_bits / 8, clamped to SEED_SIZE_MIN..SEED_SIZE_MAX (so also for a
 * failed probe, pass a negative value: SEED_SIZE_MIN). */
size_t seed_size_for_poolsize(int pool_bits);

/* Derive the next seed (@ret_size bytes, SEED_SIZE_MIN..SEED_SIZE_MAX) from the
 * old seed (may be NULL/0 when there is none), @fresh bytes from the kernel
 * and both clocks (CLOCK_REALTIME and CLOCK_BOOTTIME, in µs). Pure and
 * deterministic: the caller reads the clocks. The formula is described
 * above its definition in seed-file.c. 0 or -EINVAL. */
int seed_derive(const uint8_t *old_seed, size_t old_size,
                const uint8_t *fresh, size_t fresh_size,
                uint64_t realtime_usec, uint64_t boottime_usec,
                uint8_t *ret, size_t ret_size);
