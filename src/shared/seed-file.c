/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "blake2s.h"
#include "macro.h"
#include "seed-file.h"
#include "vm-generation.h"

#define OFFSET_VERSION   8U
#define OFFSET_FLAGS    12U
#define OFFSET_BINDING  16U
#define OFFSET_GENERATION 48U        /* version 2: the seed size follows it */

static void put_le32(uint8_t *p, uint32_t v) {
        p[0] = (uint8_t) v;
        p[1] = (uint8_t) (v >> 8);
        p[2] = (uint8_t) (v >> 16);
        p[3] = (uint8_t) (v >> 24);
}

static void put_le64(uint8_t *p, uint64_t v) {
        put_le32(p, (uint32_t) v);
        put_le32(p + 4, (uint32_t) (v >> 32));
}

static uint32_t get_le32(const uint8_t *p) {
        return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

void seed_file_erase(SeedFile *f) {
        if (f)
                erase(f, sizeof(*f));
}

int seed_file_serialize_into(const SeedFile *in, uint8_t buf[static SEED_FILE_SIZE_MAX], size_t *ret_size) {
        if (!in || !ret_size)
                return -EINVAL;
        if (in->seed_size < SEED_SIZE_MIN || in->seed_size > SEED_SIZE_MAX)
                return -EINVAL;

        bool v2 = !vm_generation_binding_is_none(in->generation);
        size_t header = v2 ? SEED_FILE_HEADER_SIZE_V2 : SEED_FILE_HEADER_SIZE;

        memcpy(buf, SEED_FILE_MAGIC, SEED_FILE_MAGIC_SIZE);
        put_le32(buf + OFFSET_VERSION, v2 ? SEED_FILE_VERSION_GENERATION : SEED_FILE_VERSION);
        put_le32(buf + OFFSET_FLAGS, in->creditable ? SEED_FLAG_CREDITABLE : 0);
        memcpy(buf + OFFSET_BINDING, in->binding, SEED_BINDING_SIZE);
        if (v2)
                memcpy(buf + OFFSET_GENERATION, in->generation, SEED_GENERATION_SIZE);
        put_le32(buf + header - 4, (uint32_t) in->seed_size);
        memcpy(buf + header, in->seed, in->seed_size);

        size_t body = header + in->seed_size;
        /* Cannot fail: constant, valid parameters. */
        (void) blake2s(buf + body, SEED_FILE_CHECKSUM_SIZE, NULL, 0, buf, body);

        *ret_size = body + SEED_FILE_CHECKSUM_SIZE;
        return 0;
}

int seed_file_serialize(const SeedFile *in, uint8_t **ret, size_t *ret_size) {
        uint8_t *buf;
        int r;

        if (!in || !ret || !ret_size)
                return -EINVAL;
        buf = malloc(SEED_FILE_SIZE_MAX);
        if (!buf)
                return -ENOMEM;
        r = seed_file_serialize_into(in, buf, ret_size);
        if (r < 0) {
                free(buf);
                return r;
        }
        *ret = buf;
        return 0;
}

/* Constant time: the checksum is over the secret, keep timing out of it. */
static bool memeq_const(const uint8_t *a, const uint8_t *b, size_t n) {
        uint8_t d = 0;
        for (size_t i = 0; i < n; i++)
                d |= a[i] ^ b[i];
        return d == 0;
}

static int parse_fail(const char **reason, const char *why, int r) {
        if (reason)
                *reason = why;
        return r;
}

int seed_file_parse(const uint8_t *buf, size_t size, SeedFile *ret, const char **reason) {
        uint8_t sum[SEED_FILE_CHECKSUM_SIZE];

        if (!ret || (!buf && size > 0))
                return parse_fail(reason, "invalid arguments", -EINVAL);

        /* Every bound is checked against @size before the bytes are touched. */
        if (size == 0)
                return parse_fail(reason, "file is empty", -EBADMSG);
        if (size < SEED_FILE_MAGIC_SIZE || memcmp(buf, SEED_FILE_MAGIC, SEED_FILE_MAGIC_SIZE) != 0)
                return parse_fail(reason, "not a seed file (bad magic)", -EBADMSG);
        if (size < SEED_FILE_HEADER_SIZE)
                return parse_fail(reason, "truncated header", -EBADMSG);

        uint32_t version = get_le32(buf + OFFSET_VERSION);
        if (version != SEED_FILE_VERSION && version != SEED_FILE_VERSION_GENERATION)
                return parse_fail(reason, "unsupported format version", -EPROTONOSUPPORT);
        size_t header = version == SEED_FILE_VERSION_GENERATION ? SEED_FILE_HEADER_SIZE_V2 : SEED_FILE_HEADER_SIZE;
        if (size < header)
                return parse_fail(reason, "truncated header", -EBADMSG);

        uint32_t flags = get_le32(buf + OFFSET_FLAGS);
        if ((flags & ~SEED_FLAG_CREDITABLE) != 0)
                return parse_fail(reason, "unknown flags set", -EPROTONOSUPPORT);

        /* One encoding per seed: a generation that says "none" is written
         * as version 1. */
        if (header == SEED_FILE_HEADER_SIZE_V2 && vm_generation_binding_is_none(buf + OFFSET_GENERATION))
                return parse_fail(reason, "version 2 without a VM generation", -EBADMSG);

        uint32_t n = get_le32(buf + header - 4);
        if (n < SEED_SIZE_MIN || n > SEED_SIZE_MAX)
                return parse_fail(reason, "seed length out of range", -EINVAL);

        size_t want = header + n + SEED_FILE_CHECKSUM_SIZE;
        if (size < want)
                return parse_fail(reason, "truncated", -EBADMSG);
        if (size > want)
                return parse_fail(reason, "trailing data after the checksum", -EBADMSG);

        size_t body = header + n;
        (void) blake2s(sum, sizeof(sum), NULL, 0, buf, body);
        bool ok = memeq_const(sum, buf + body, sizeof(sum));
        erase(sum, sizeof(sum));
        if (!ok)
                return parse_fail(reason, "checksum mismatch", -EBADMSG);

        ret->creditable = flags & SEED_FLAG_CREDITABLE;
        memcpy(ret->binding, buf + OFFSET_BINDING, SEED_BINDING_SIZE);
        if (header == SEED_FILE_HEADER_SIZE_V2)
                memcpy(ret->generation, buf + OFFSET_GENERATION, SEED_GENERATION_SIZE);
        else
                memset(ret->generation, 0, SEED_GENERATION_SIZE);
        ret->seed_size = n;
        memcpy(ret->seed, buf + header, n);
        /* Leave no stale secret behind in the unused tail. */
        memset(ret->seed + n, 0, SEED_SIZE_MAX - n);
        return 0;
}

/* The key is public: it only separates this use of the machine-id from every
 * other, the way systemd's sd_id128_get_machine_app_specific() does, so that
 * the file does not disclose the id and no other hash of it matches ours. */
#define BINDING_KEY "entropy-gate machine binding v1"

void seed_binding_compute(const char *machine_id, uint8_t ret[static SEED_BINDING_SIZE]) {
        size_t len = machine_id ? strlen(machine_id) : 0;

        while (len > 0 && strchr(" \t\r\n", machine_id[len - 1]))
                len--;
        if (len == 0) {
                memset(ret, 0, SEED_BINDING_SIZE);
                return;
        }

        (void) blake2s(ret, SEED_BINDING_SIZE, BINDING_KEY, strlen(BINDING_KEY), machine_id, len);
}

bool seed_binding_is_unbound(const uint8_t binding[static SEED_BINDING_SIZE]) {
        uint8_t d = 0;
        for (size_t i = 0; i < SEED_BINDING_SIZE; i++)
                d |= binding[i];
        return d == 0;
}

size_t seed_size_for_poolsize(int pool_bits) {
        if (pool_bits <= 0)
                return SEED_SIZE_MIN;
        return CLAMP((size_t) pool_bits / 8, (size_t) SEED_SIZE_MIN, (size_t) SEED_SIZE_MAX);
}

#define DERIVE_KEY_LABEL    "entropy-gate seed v1: key"
#define DERIVE_EXTRACT_LABEL "entropy-gate seed v1: extract"
#define DERIVE_EXPAND_LABEL "entropy-gate seed v1: expand"

/* The next seed, in two steps (extract, then expand, as in HKDF):
 *
 *   K    = BLAKE2s-256("entropy-gate seed v1: key" || old)
 *   PRK  = BLAKE2s-256 keyed with K over
 *            "entropy-gate seed v1: extract" || le64(|old|) || old
 *            || le64(|fresh|) || fresh || le64(realtime) || le64(boottime)
 *   T(i) = BLAKE2s-256 keyed with PRK over
 *            "entropy-gate seed v1: expand" || le32(i) || le32(size)
 *   next = T(0) || T(1) || ... truncated to size bytes
 *
 * Why each part:
 * - One-way: the old seed is credited into this boot's pool, so it must stay
 *   secret even if the new seed leaks later (a backup, a stolen disk, an image
 *   made from this machine). Recovering it from the new seed would mean
 *   inverting BLAKE2s; simply storing fresh bytes, or old XOR fresh, would not
 *   give that.
 * - The old seed is in: early in boot, before the CRNG is initialized, the
 *   fresh bytes may be predictable, and then the old seed's secret is what
 *   carries the new seed's strength forward.
 * - Fresh bytes and both clocks are in: every clone of an image starts with
 *   the same old seed; anything that differs between them (the kernel's
 *   output, the wall clock, the time since boot) makes their next seeds
 *   differ, so one leaked clone says nothing about its siblings' next seeds.
 * - Lengths are encoded, so no two different inputs hash the same byte string;
 *   the labels keep these hashes apart from every other BLAKE2s use here;
 *   the counter expands to up to SEED_SIZE_MAX bytes, each block independent.
 * Every intermediate is wiped before returning. */
int seed_derive(const uint8_t *old_seed, size_t old_size,
                const uint8_t *fresh, size_t fresh_size,
                uint64_t realtime_usec, uint64_t boottime_usec,
                uint8_t *ret, size_t ret_size) {
        uint8_t key[BLAKE2S_OUTBYTES], prk[BLAKE2S_OUTBYTES], block[BLAKE2S_OUTBYTES], le[8];
        Blake2s s;

        if (!ret || ret_size < SEED_SIZE_MIN || ret_size > SEED_SIZE_MAX)
                return -EINVAL;
        if ((old_size > 0 && !old_seed) || (fresh_size > 0 && !fresh))
                return -EINVAL;

        (void) blake2s_init(&s, sizeof(key));
        blake2s_update(&s, DERIVE_KEY_LABEL, strlen(DERIVE_KEY_LABEL));
        blake2s_update(&s, old_seed, old_size);
        blake2s_final(&s, key);

        (void) blake2s_init_key(&s, sizeof(prk), key, sizeof(key));
        blake2s_update(&s, DERIVE_EXTRACT_LABEL, strlen(DERIVE_EXTRACT_LABEL));
        put_le64(le, old_size);
        blake2s_update(&s, le, 8);
        blake2s_update(&s, old_seed, old_size);
        put_le64(le, fresh_size);
        blake2s_update(&s, le, 8);
        blake2s_update(&s, fresh, fresh_size);
        put_le64(le, realtime_usec);
        blake2s_update(&s, le, 8);
        put_le64(le, boottime_usec);
        blake2s_update(&s, le, 8);
        blake2s_final(&s, prk);
        erase(key, sizeof(key));

        for (size_t off = 0, i = 0; off < ret_size; off += sizeof(block), i++) {
                (void) blake2s_init_key(&s, sizeof(block), prk, sizeof(prk));
                blake2s_update(&s, DERIVE_EXPAND_LABEL, strlen(DERIVE_EXPAND_LABEL));
                put_le32(le, (uint32_t) i);
                put_le32(le + 4, (uint32_t) ret_size);
                blake2s_update(&s, le, 8);
                blake2s_final(&s, block);
                memcpy(ret + off, block, MIN(sizeof(block), ret_size - off));
        }

        erase(prk, sizeof(prk));
        erase(block, sizeof(block));
        erase(le, sizeof(le));
        return 0;
}
