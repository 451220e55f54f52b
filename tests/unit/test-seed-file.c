// SPDX-License-Identifier: LGPL-2.1-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "blake2s.h"
#include "macro.h"
#include "seed-file.h"
#include "vm-generation.h"

static void make_seed(SeedFile *f, size_t n, bool creditable, const char *machine_id) {
        memset(f, 0, sizeof(*f));
        f->creditable = creditable;
        f->seed_size = n;
        for (size_t i = 0; i < n; i++)
                f->seed[i] = (uint8_t) (i * 7 + 3);
        seed_binding_compute(machine_id, f->binding);
}

static void assert_same(const SeedFile *a, const SeedFile *b) {
        assert_int_equal(a->creditable, b->creditable);
        assert_int_equal(a->seed_size, b->seed_size);
        assert_memory_equal(a->binding, b->binding, SEED_BINDING_SIZE);
        assert_memory_equal(a->seed, b->seed, a->seed_size);
}

/* A SeedFile filled with a marker, to check that failures leave it alone. */
static void poison(SeedFile *f) {
        memset(f, 0x5A, sizeof(*f));
}

static bool is_poisoned(const SeedFile *f) {
        const uint8_t *p = (const uint8_t *) f;
        for (size_t i = 0; i < sizeof(*f); i++)
                if (p[i] != 0x5A)
                        return false;
        return true;
}

static void test_round_trip(void **state) {
        static const size_t sizes[] = { SEED_SIZE_MIN, 33, 64, 256, SEED_SIZE_MAX };

        for (size_t i = 0; i < ELEMENTSOF(sizes); i++)
                for (int c = 0; c < 2; c++) {
                        SeedFile in, out;
                        uint8_t *buf = NULL, *buf2 = NULL;
                        size_t size = 0, size2 = 0;
                        const char *reason = NULL;

                        make_seed(&in, sizes[i], c, c ? "0123456789abcdef0123456789abcdef\n" : NULL);
                        assert_int_equal(seed_file_serialize(&in, &buf, &size), 0);
                        assert_int_equal(size, SEED_FILE_SIZE(sizes[i]));
                        assert_memory_equal(buf, SEED_FILE_MAGIC, SEED_FILE_MAGIC_SIZE);

                        poison(&out);
                        assert_int_equal(seed_file_parse(buf, size, &out, &reason), 0);
                        assert_null(reason); /* only set on failure */
                        assert_same(&in, &out);
                        for (size_t j = out.seed_size; j < SEED_SIZE_MAX; j++)
                                assert_int_equal(out.seed[j], 0);

                        /* Byte-identical when written again. */
                        assert_int_equal(seed_file_serialize(&out, &buf2, &size2), 0);
                        assert_int_equal(size, size2);
                        assert_memory_equal(buf, buf2, size);

                        free(buf);
                        free(buf2);
                }
}

/* The layout documented in seed-file.h, byte by byte. */
static void test_layout(void **state) {
        SeedFile in;
        uint8_t *buf = NULL, sum[32];
        size_t size = 0;

        make_seed(&in, 40, true, "abc");
        assert_int_equal(seed_file_serialize(&in, &buf, &size), 0);
        assert_int_equal(size, 52 + 40 + 32);
        assert_memory_equal(buf, "\x89" "EGSEED\n", 8);
        assert_memory_equal(buf + 8, "\x01\x00\x00\x00", 4);
        assert_memory_equal(buf + 12, "\x01\x00\x00\x00", 4);
        assert_memory_equal(buf + 16, in.binding, 32);
        assert_memory_equal(buf + 48, "\x28\x00\x00\x00", 4);
        assert_memory_equal(buf + 52, in.seed, 40);
        assert_int_equal(blake2s(sum, 32, NULL, 0, buf, 92), 0);
        assert_memory_equal(buf + 92, sum, 32);
        free(buf);

        in.creditable = false;
        assert_int_equal(seed_file_serialize(&in, &buf, &size), 0);
        assert_memory_equal(buf + 12, "\x00\x00\x00\x00", 4);
        free(buf);
}

/* A file encoded independently of this code, by
 * tests/fuzz/make-seed-file-corpus.py from the layout in seed-file.h with
 * Python's hashlib (corpus file valid-32-creditable-bound): the format is
 * what the header documents, not merely what this code happens to do. */
static void test_independent_encoding(void **state) {
        static const char hex[] =
                "894547534545440a0100000001000000efb08438da02f30f10ddd3ed4c59640c"
                "18f5234541039fa971d2f98b42da6267200000000b30557a9fc4e90e33587da2"
                "c7ec11365b80a5caef14395e83a8cdf2173c61864b839a5edd513de9d7510232"
                "15ee9864f7181cd14d221a89140be867a9f1447b";
        uint8_t buf[sizeof(hex) / 2], binding[32], *again = NULL;
        size_t size = 0;
        SeedFile out;

        for (size_t i = 0; i < sizeof(buf); i++) {
                unsigned v;
                assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
                buf[i] = (uint8_t) v;
        }
        assert_int_equal(sizeof(buf), SEED_FILE_SIZE_MIN);
        assert_int_equal(seed_file_parse(buf, sizeof(buf), &out, NULL), 0);
        assert_true(out.creditable);
        assert_int_equal(out.seed_size, 32);
        for (size_t i = 0; i < 32; i++)
                assert_int_equal(out.seed[i], (uint8_t) (i * 37 + 11));
        seed_binding_compute("4c3f1a2b5d6e7f8091a2b3c4d5e6f708\n", binding);
        assert_memory_equal(out.binding, binding, 32);

        assert_int_equal(seed_file_serialize(&out, &again, &size), 0);
        assert_int_equal(size, sizeof(buf));
        assert_memory_equal(again, buf, size);
        free(again);
}

static void test_every_truncation_rejected(void **state) {
        SeedFile in, out;
        uint8_t *buf = NULL;
        size_t size = 0;

        make_seed(&in, 64, true, "m");
        assert_int_equal(seed_file_serialize(&in, &buf, &size), 0);

        for (size_t n = 0; n < size; n++) {
                /* A copy of exactly n bytes, so ASan catches any read past it. */
                uint8_t *t = malloc(n ?: 1);
                const char *reason = NULL;
                assert_non_null(t);
                memcpy(t, buf, n);
                poison(&out);
                assert_int_equal(seed_file_parse(n ? t : NULL, n, &out, &reason), -EBADMSG);
                assert_non_null(reason);
                assert_true(is_poisoned(&out));
                free(t);
        }
        free(buf);
}

static void test_every_bit_flip_rejected(void **state) {
        SeedFile in, out;
        uint8_t *buf = NULL;
        size_t size = 0;

        make_seed(&in, 32, true, "m");
        assert_int_equal(seed_file_serialize(&in, &buf, &size), 0);

        for (size_t i = 0; i < size; i++)
                for (unsigned bit = 0; bit < 8; bit++) {
                        const char *reason = NULL;
                        buf[i] ^= (uint8_t) (1U << bit);
                        poison(&out);
                        int r = seed_file_parse(buf, size, &out, &reason);
                        assert_true(r < 0);
                        assert_true(r == -EBADMSG || r == -EPROTONOSUPPORT || r == -EINVAL);
                        assert_non_null(reason);
                        assert_true(is_poisoned(&out));
                        /* Bits in the binding, the flags' creditable bit or the seed
                         * change nothing structural: only the checksum catches them. */
                        if ((i >= 16 && i < 48) || (i == 12 && bit == 0) || (i >= 52 && i < 84)) {
                                assert_int_equal(r, -EBADMSG);
                                assert_string_equal(reason, "checksum mismatch");
                        }
                        buf[i] ^= (uint8_t) (1U << bit);
                }

        assert_int_equal(seed_file_parse(buf, size, &out, NULL), 0);
        free(buf);
}

/* Re-seal a modified buffer with a correct checksum, so that the structural
 * checks, not the checksum, must reject it. */
static void reseal(uint8_t *buf, size_t size) {
        assert_int_equal(blake2s(buf + size - 32, 32, NULL, 0, buf, size - 32), 0);
}

static void test_bad_fields(void **state) {
        SeedFile in, out;
        uint8_t *buf = NULL;
        size_t size = 0;
        const char *reason;

        make_seed(&in, 32, true, "m");
        assert_int_equal(seed_file_serialize(&in, &buf, &size), 0);

        /* Bad magic. */
        buf[1] = 'X';
        reseal(buf, size);
        reason = NULL;
        poison(&out);
        assert_int_equal(seed_file_parse(buf, size, &out, &reason), -EBADMSG);
        assert_string_equal(reason, "not a seed file (bad magic)");
        assert_true(is_poisoned(&out));
        buf[1] = 'E';

        /* Versions 0, 3 and 2^32-1. */
        static const uint8_t versions[][4] = { { 0, 0, 0, 0 }, { 3, 0, 0, 0 }, { 0xff, 0xff, 0xff, 0xff }, { 1, 0, 0, 1 } };
        for (size_t i = 0; i < ELEMENTSOF(versions); i++) {
                memcpy(buf + 8, versions[i], 4);
                reseal(buf, size);
                reason = NULL;
                assert_int_equal(seed_file_parse(buf, size, &out, &reason), -EPROTONOSUPPORT);
                assert_string_equal(reason, "unsupported format version");
                assert_true(is_poisoned(&out));
        }
        memcpy(buf + 8, "\x01\0\0\0", 4);

        /* Unknown flags. */
        buf[12] = 0x03;
        reseal(buf, size);
        assert_int_equal(seed_file_parse(buf, size, &out, &reason), -EPROTONOSUPPORT);
        assert_string_equal(reason, "unknown flags set");
        buf[15] = 0x80;
        buf[12] = 0x01;
        reseal(buf, size);
        assert_int_equal(seed_file_parse(buf, size, &out, &reason), -EPROTONOSUPPORT);
        buf[15] = 0;
        reseal(buf, size);
        assert_int_equal(seed_file_parse(buf, size, &out, &reason), 0);
        free(buf);

        /* Seed length out of range, in a buffer of the size that length would
         * need (so only the range check can reject it) and in the real one. */
        static const uint32_t lengths[] = { 0, 1, 31, 513, 1024, 0xffffffffU };
        for (size_t i = 0; i < ELEMENTSOF(lengths); i++) {
                size_t n = lengths[i] <= 1024 ? lengths[i] : 16;
                size_t total = SEED_FILE_SIZE(n);
                uint8_t *b = calloc(1, total);
                assert_non_null(b);
                memcpy(b, SEED_FILE_MAGIC, 8);
                b[8] = 1;
                b[48] = (uint8_t) lengths[i];
                b[49] = (uint8_t) (lengths[i] >> 8);
                b[50] = (uint8_t) (lengths[i] >> 16);
                b[51] = (uint8_t) (lengths[i] >> 24);
                reseal(b, total);
                reason = NULL;
                poison(&out);
                assert_int_equal(seed_file_parse(b, total, &out, &reason), -EINVAL);
                assert_string_equal(reason, "seed length out of range");
                assert_true(is_poisoned(&out));
                free(b);
        }
}

static void test_trailing_garbage_rejected(void **state) {
        SeedFile in, out;
        uint8_t *buf = NULL;
        size_t size = 0;

        make_seed(&in, 32, true, "m");
        assert_int_equal(seed_file_serialize(&in, &buf, &size), 0);

        for (size_t extra = 1; extra <= 600; extra += (extra < 40 ? 1 : 97)) {
                uint8_t *b = malloc(size + extra);
                const char *reason = NULL;
                assert_non_null(b);
                memcpy(b, buf, size);
                memset(b + size, extra & 1 ? 0 : 0xEE, extra);
                poison(&out);
                assert_int_equal(seed_file_parse(b, size + extra, &out, &reason), -EBADMSG);
                assert_string_equal(reason, "trailing data after the checksum");
                assert_true(is_poisoned(&out));
                free(b);
        }
        free(buf);
}

static void test_serialize_bad(void **state) {
        static uint8_t marker[] = "untouched";
        SeedFile in;
        uint8_t *buf = marker;
        size_t size = 77;

        make_seed(&in, 32, true, NULL);
        in.seed_size = SEED_SIZE_MIN - 1;
        assert_int_equal(seed_file_serialize(&in, &buf, &size), -EINVAL);
        in.seed_size = SEED_SIZE_MAX + 1;
        assert_int_equal(seed_file_serialize(&in, &buf, &size), -EINVAL);
        assert_ptr_equal(buf, marker);
        assert_int_equal(size, 77);
}

static void test_binding(void **state) {
        uint8_t a[32], b[32], c[32], zero[32] = {};
        const char *id = "4c3f1a2b5d6e7f8091a2b3c4d5e6f708";

        seed_binding_compute(NULL, a);
        assert_memory_equal(a, zero, 32);
        assert_true(seed_binding_is_unbound(a));
        memset(a, 1, 32);
        seed_binding_compute("", a);
        assert_true(seed_binding_is_unbound(a));
        memset(a, 1, 32);
        seed_binding_compute("\n", a);
        assert_true(seed_binding_is_unbound(a));

        seed_binding_compute(id, a);
        assert_false(seed_binding_is_unbound(a));
        /* The file's newline does not matter. */
        seed_binding_compute("4c3f1a2b5d6e7f8091a2b3c4d5e6f708\n", b);
        assert_memory_equal(a, b, 32);
        /* Another id, another binding. */
        seed_binding_compute("4c3f1a2b5d6e7f8091a2b3c4d5e6f709", c);
        assert_memory_not_equal(a, c, 32);
        /* Never the raw id, nor its plain hash. */
        assert_memory_not_equal(a, id, 32);
        assert_int_equal(blake2s(c, 32, NULL, 0, id, strlen(id)), 0);
        assert_memory_not_equal(a, c, 32);
        /* Exactly the documented keyed hash. */
        assert_int_equal(blake2s(c, 32, "entropy-gate machine binding v1", 31, id, strlen(id)), 0);
        assert_memory_equal(a, c, 32);
}

static void test_size_for_poolsize(void **state) {
        assert_int_equal(seed_size_for_poolsize(256), 32);    /* Linux >= 5.18 */
        assert_int_equal(seed_size_for_poolsize(4096), 512);  /* older kernels */
        assert_int_equal(seed_size_for_poolsize(1024), 128);
        assert_int_equal(seed_size_for_poolsize(8192), 512);
        assert_int_equal(seed_size_for_poolsize(100), 32);
        assert_int_equal(seed_size_for_poolsize(0), 32);
        assert_int_equal(seed_size_for_poolsize(-5), 32);
        assert_int_equal(seed_size_for_poolsize(2147483647), 512);
}

static void test_derive(void **state) {
        uint8_t old[64], fresh[32], a[512], b[512], c[512];

        memset(old, 0x11, sizeof(old));
        memset(fresh, 0x22, sizeof(fresh));

        /* Deterministic. */
        assert_int_equal(seed_derive(old, 64, fresh, 32, 1000, 2000, a, 512), 0);
        assert_int_equal(seed_derive(old, 64, fresh, 32, 1000, 2000, b, 512), 0);
        assert_memory_equal(a, b, 512);

        /* Every input matters. */
        old[63] ^= 1;
        assert_int_equal(seed_derive(old, 64, fresh, 32, 1000, 2000, c, 512), 0);
        assert_memory_not_equal(a, c, 32);
        old[63] ^= 1;
        fresh[0] ^= 1;
        assert_int_equal(seed_derive(old, 64, fresh, 32, 1000, 2000, c, 512), 0);
        assert_memory_not_equal(a, c, 32);
        fresh[0] ^= 1;
        assert_int_equal(seed_derive(old, 64, fresh, 32, 1001, 2000, c, 512), 0);
        assert_memory_not_equal(a, c, 32);
        assert_int_equal(seed_derive(old, 64, fresh, 32, 1000, 2001, c, 512), 0);
        assert_memory_not_equal(a, c, 32);
        /* Clocks swapped: not the same input. */
        assert_int_equal(seed_derive(old, 64, fresh, 32, 2000, 1000, c, 512), 0);
        assert_memory_not_equal(a, c, 32);
        /* Moving a byte from old to fresh changes the output (lengths are encoded). */
        uint8_t joined[96];
        memcpy(joined, old, 64);
        memcpy(joined + 64, fresh, 32);
        assert_int_equal(seed_derive(joined, 63, joined + 63, 33, 1000, 2000, c, 512), 0);
        assert_memory_not_equal(a, c, 32);

        /* The blocks of the expansion differ from each other, and the output
         * length is part of the input, so a short seed is not a prefix. */
        for (size_t i = 32; i < 512; i += 32)
                assert_memory_not_equal(a, a + i, 32);
        assert_int_equal(seed_derive(old, 64, fresh, 32, 1000, 2000, c, 32), 0);
        assert_memory_not_equal(a, c, 32);
        /* The seed is never copied through. */
        assert_memory_not_equal(a, old, 32);
        assert_memory_not_equal(a, fresh, 32);

        /* No old seed (first save), and an odd length. */
        memset(c, 0, sizeof(c));
        assert_int_equal(seed_derive(NULL, 0, fresh, 32, 1, 2, c, 33), 0);
        for (size_t i = 33; i < sizeof(c); i++)
                assert_int_equal(c[i], 0);

        memset(c, 0x77, sizeof(c));
        assert_int_equal(seed_derive(old, 64, fresh, 32, 1, 2, c, 31), -EINVAL);
        assert_int_equal(seed_derive(old, 64, fresh, 32, 1, 2, c, 513), -EINVAL);
        assert_int_equal(seed_derive(NULL, 64, fresh, 32, 1, 2, c, 32), -EINVAL);
        assert_int_equal(seed_derive(old, 64, NULL, 32, 1, 2, c, 32), -EINVAL);
        assert_int_equal(seed_derive(old, 64, fresh, 32, 1, 2, NULL, 32), -EINVAL);
        for (size_t i = 0; i < sizeof(c); i++)
                assert_int_equal(c[i], 0x77);
}

/* The documented formula, recomputed here step by step with the public
 * BLAKE2s API, so that the comment in seed-file.c and the code agree. */
static void test_derive_formula(void **state) {
        uint8_t old[40], fresh[24], k[32], prk[32], t[32], want[70], got[70], le[8];
        Blake2s s;

        for (size_t i = 0; i < sizeof(old); i++)
                old[i] = (uint8_t) (0x80 + i);
        for (size_t i = 0; i < sizeof(fresh); i++)
                fresh[i] = (uint8_t) (0x40 + i);

        assert_int_equal(blake2s_init(&s, 32), 0);
        blake2s_update(&s, "entropy-gate seed v1: key", 25);
        blake2s_update(&s, old, sizeof(old));
        blake2s_final(&s, k);

        assert_int_equal(blake2s_init_key(&s, 32, k, 32), 0);
        blake2s_update(&s, "entropy-gate seed v1: extract", 29);
        blake2s_update(&s, "\x28\0\0\0\0\0\0\0", 8);
        blake2s_update(&s, old, sizeof(old));
        blake2s_update(&s, "\x18\0\0\0\0\0\0\0", 8);
        blake2s_update(&s, fresh, sizeof(fresh));
        blake2s_update(&s, "\x01\x02\0\0\0\0\0\x03", 8);
        blake2s_update(&s, "\x04\0\0\0\0\0\0\0", 8);
        blake2s_final(&s, prk);

        for (uint8_t i = 0; i < 3; i++) {
                memcpy(le, (uint8_t[]) { i, 0, 0, 0, 70, 0, 0, 0 }, 8);
                assert_int_equal(blake2s_init_key(&s, 32, prk, 32), 0);
                blake2s_update(&s, "entropy-gate seed v1: expand", 28);
                blake2s_update(&s, le, 8);
                blake2s_final(&s, t);
                memcpy(want + 32 * i, t, MIN(32, 70 - 32 * i));
        }

        assert_int_equal(seed_derive(old, sizeof(old), fresh, sizeof(fresh),
                                     UINT64_C(0x0300000000000201), 4, got, 70), 0);
        assert_memory_equal(want, got, 70);
}

/* A seed saved in a VM generation: version 2, the generation round trips;
 * without one the file stays version 1, byte for byte as before. */
static void test_generation(void **state) {
        VmGeneration g = { .source = VM_GENERATION_VMGENID, .id = { 1, 2, 3 } };
        SeedFile in, out;
        uint8_t *buf = NULL;
        size_t size = 0;
        const char *reason = NULL;

        make_seed(&in, 64, true, "0123456789abcdef0123456789abcdef\n");
        vm_generation_binding(&g, in.generation);
        assert_false(vm_generation_binding_is_none(in.generation));
        assert_int_equal(seed_file_serialize(&in, &buf, &size), 0);
        assert_int_equal(size, SEED_FILE_SIZE_V2(64));
        assert_int_equal(buf[8], 2);
        assert_memory_equal(buf + 48, in.generation, SEED_GENERATION_SIZE);
        assert_int_equal(seed_file_parse(buf, size, &out, &reason), 0);
        assert_same(&in, &out);
        assert_memory_equal(in.generation, out.generation, SEED_GENERATION_SIZE);

        /* Truncated anywhere, or a generation of all zero: refused. */
        for (size_t n = 0; n < size; n++)
                assert_true(seed_file_parse(buf, n, &out, &reason) < 0);
        memset(buf + 48, 0, SEED_GENERATION_SIZE);
        reseal(buf, size);
        assert_int_equal(seed_file_parse(buf, size, &out, &reason), -EBADMSG);
        assert_string_equal(reason, "version 2 without a VM generation");
        free(buf);

        /* No generation: version 1, and it parses as none. */
        memset(in.generation, 0, SEED_GENERATION_SIZE);
        assert_int_equal(seed_file_serialize(&in, &buf, &size), 0);
        assert_int_equal(size, SEED_FILE_SIZE(64));
        assert_int_equal(buf[8], 1);
        assert_int_equal(seed_file_parse(buf, size, &out, &reason), 0);
        assert_true(vm_generation_binding_is_none(out.generation));
        free(buf);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_round_trip),
                cmocka_unit_test(test_layout),
                cmocka_unit_test(test_independent_encoding),
                cmocka_unit_test(test_every_truncation_rejected),
                cmocka_unit_test(test_every_bit_flip_rejected),
                cmocka_unit_test(test_bad_fields),
                cmocka_unit_test(test_generation),
                cmocka_unit_test(test_trailing_garbage_rejected),
                cmocka_unit_test(test_serialize_bad),
                cmocka_unit_test(test_binding),
                cmocka_unit_test(test_size_for_poolsize),
                cmocka_unit_test(test_derive),
                cmocka_unit_test(test_derive_formula),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
