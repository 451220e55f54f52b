// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "blake2s.h"

static void hex(const uint8_t *p, size_t n, char *out) {
        for (size_t i = 0; i < n; i++)
                sprintf(out + 2 * i, "%02x", p[i]);
}

static void assert_digest(const uint8_t *d, size_t n, const char *expected) {
        char buf[2 * BLAKE2S_OUTBYTES + 1] = {};
        hex(d, n, buf);
        assert_string_equal(buf, expected);
}

/* RFC 7693, appendix B: BLAKE2s-256("abc"). */
static void test_rfc7693_abc(void **state) {
        uint8_t d[32];
        assert_int_equal(blake2s(d, 32, NULL, 0, "abc", 3), 0);
        assert_digest(d, 32, "508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982");
}

/* RFC 7693, appendix E: the self-test, a hash over the digests of many
 * lengths, keyed and unkeyed; its generator is the RFC's. */
static void selftest_seq(uint8_t *out, size_t len, uint32_t seed) {
        uint32_t a = 0xDEAD4BADU * seed, b = 1;
        for (size_t i = 0; i < len; i++) {
                uint32_t t = a + b;
                a = b;
                b = t;
                out[i] = (uint8_t) (t >> 24);
        }
}

static void test_rfc7693_selftest(void **state) {
        static const size_t md_len[] = { 16, 20, 28, 32 };
        static const size_t in_len[] = { 0, 3, 64, 65, 255, 1024 };
        uint8_t in[1024], md[32], key[32];
        Blake2s ctx;

        assert_int_equal(blake2s_init(&ctx, 32), 0);
        for (size_t i = 0; i < 4; i++) {
                size_t outlen = md_len[i];
                for (size_t j = 0; j < 6; j++) {
                        size_t inlen = in_len[j];

                        selftest_seq(in, inlen, (uint32_t) inlen);
                        assert_int_equal(blake2s(md, outlen, NULL, 0, in, inlen), 0);
                        blake2s_update(&ctx, md, outlen);

                        selftest_seq(key, outlen, (uint32_t) outlen);
                        assert_int_equal(blake2s(md, outlen, key, outlen, in, inlen), 0);
                        blake2s_update(&ctx, md, outlen);
                }
        }
        blake2s_final(&ctx, md);
        assert_digest(md, 32, "6a411f08ce25adcdfb02aba641451cec53c598b24f4fc787fbdc88797f4c1dfe");
}

/* The reference implementation's blake2s-kat.txt: key 00 01 .. 1f, input
 * 00 01 .. (n-1), BLAKE2s-256. Lengths around the block boundaries. */
static const struct {
        size_t n;
        const char *hash;
} keyed_kat[] = {
        {   0, "48a8997da407876b3d79c0d92325ad3b89cbb754d86ab71aee047ad345fd2c49" },
        {   1, "40d15fee7c328830166ac3f918650f807e7e01e177258cdc0a39b11f598066f1" },
        {   2, "6bb71300644cd3991b26ccd4d274acd1adeab8b1d7914546c1198bbe9fc9d803" },
        {   3, "1d220dbe2ee134661fdf6d9e74b41704710556f2f6e5a091b227697445dbea6b" },
        {  31, "b6156f72d380ee9ea6acd190464f2307a5c179ef01fd71f99f2d0f7a57360aea" },
        {  32, "c03bc642b20959cbe133a0303e0c1abff3e31ec8e1a328ec8565c36decff5265" },
        {  33, "2c3e08176f760c6264c3a2cd66fec6c3d78de43fc192457b2a4a660a1e0eb22b" },
        {  63, "c65382513f07460da39833cb666c5ed82e61b9e998f4b0c4287cee56c3cc9bcd" },
        {  64, "8975b0577fd35566d750b362b0897a26c399136df07bababbde6203ff2954ed4" },
        {  65, "21fe0ceb0052be7fb0f004187cacd7de67fa6eb0938d927677f2398c132317a8" },
        { 127, "ddbfea75cc467882eb3483ce5e2e756a4f4701b76b445519e89f22d60fa86e06" },
        { 128, "0c311f38c35a4fb90d651c289d486856cd1413df9b0677f53ece2cd9e477c60a" },
        { 129, "46a73a8dd3e70f59d3942c01df599def783c9da82fd83222cd662b53dce7dbdf" },
        { 254, "db444c15597b5f1a03d1f9edd16e4a9f43a667cc275175dfa2b704e3bb1a9b83" },
        { 255, "3fb735061abc519dfe979e54c1ee5bfad0a9d858b3315bad34bde999efd724dd" },
};

/* The same inputs unkeyed (blake2-kat.json of the reference repository). */
static const struct {
        size_t n;
        const char *hash;
} unkeyed_kat[] = {
        {   0, "69217a3079908094e11121d042354a7c1f55b6482ca1a51e1b250dfd1ed0eef9" },
        {   1, "e34d74dbaf4ff4c6abd871cc220451d2ea2648846c7757fbaac82fe51ad64bea" },
        {  64, "56f34e8b96557e90c1f24b52d0c89d51086acf1b00f634cf1dde9233b8eaaa3e" },
        { 255, "f03f5789d3336b80d002d59fdf918bdb775b00956ed5528e86aa994acb38fe2d" },
};

static void fill_seq(uint8_t *p, size_t n) {
        for (size_t i = 0; i < n; i++)
                p[i] = (uint8_t) i;
}

static void test_keyed_kat(void **state) {
        uint8_t key[32], in[256], d[32];
        fill_seq(key, sizeof(key));
        fill_seq(in, sizeof(in));

        for (size_t i = 0; i < sizeof(keyed_kat) / sizeof(keyed_kat[0]); i++) {
                assert_int_equal(blake2s(d, 32, key, 32, in, keyed_kat[i].n), 0);
                assert_digest(d, 32, keyed_kat[i].hash);
        }
        for (size_t i = 0; i < sizeof(unkeyed_kat) / sizeof(unkeyed_kat[0]); i++) {
                assert_int_equal(blake2s(d, 32, NULL, 0, in, unkeyed_kat[i].n), 0);
                assert_digest(d, 32, unkeyed_kat[i].hash);
        }
}

/* Every way of splitting the input across update() calls gives the one-shot
 * digest: the "keep the last block back" logic is where BLAKE2 code breaks. */
static void test_incremental_splits(void **state) {
        uint8_t key[32], in[200], want[32], got[32];
        fill_seq(key, sizeof(key));
        fill_seq(in, sizeof(in));

        for (size_t n = 0; n <= sizeof(in); n += (n < 140 ? 1 : 7))
                for (size_t keylen = 0; keylen <= 32; keylen += 16) {
                        assert_int_equal(blake2s(want, 32, key, keylen, in, n), 0);
                        for (size_t a = 0; a <= n; a++) {
                                Blake2s s;
                                size_t b = a + (n - a) / 2;
                                assert_int_equal(blake2s_init_key(&s, 32, key, keylen), 0);
                                blake2s_update(&s, in, a);
                                blake2s_update(&s, in + a, b - a);
                                blake2s_update(&s, NULL, 0);
                                blake2s_update(&s, in + b, n - b);
                                blake2s_final(&s, got);
                                assert_memory_equal(want, got, 32);
                        }
                }

        /* Byte at a time. */
        Blake2s s;
        assert_int_equal(blake2s_init_key(&s, 32, key, 32), 0);
        for (size_t i = 0; i < 129; i++)
                blake2s_update(&s, in + i, 1);
        blake2s_final(&s, got);
        assert_digest(got, 32, "46a73a8dd3e70f59d3942c01df599def783c9da82fd83222cd662b53dce7dbdf");
}

/* A shorter digest is not a prefix of the longer one: the length is in the
 * parameter block. Checked value: hashlib.blake2s(b"abc", digest_size=16). */
static void test_outlen(void **state) {
        uint8_t d[32], d32[32];
        memset(d, 0xAA, sizeof(d));
        assert_int_equal(blake2s(d, 16, NULL, 0, "abc", 3), 0);
        assert_digest(d, 16, "aa4938119b1dc7b87cbad0ffd200d0ae");
        for (size_t i = 16; i < 32; i++)
                assert_int_equal(d[i], 0xAA); /* nothing written past outlen */

        assert_int_equal(blake2s(d32, 32, NULL, 0, "abc", 3), 0);
        assert_memory_not_equal(d, d32, 16);

        assert_int_equal(blake2s(d, 1, NULL, 0, "abc", 3), 0);
}

static void test_bad_parameters(void **state) {
        uint8_t d[33], key[33] = {};
        Blake2s s;

        memset(d, 0x55, sizeof(d));
        assert_int_equal(blake2s(d, 0, NULL, 0, "abc", 3), -EINVAL);
        assert_int_equal(blake2s(d, 33, NULL, 0, "abc", 3), -EINVAL);
        assert_int_equal(blake2s(d, 32, key, 33, "abc", 3), -EINVAL);
        assert_int_equal(blake2s(d, 32, NULL, 5, "abc", 3), -EINVAL);
        assert_int_equal(blake2s(d, 32, NULL, 0, NULL, 3), -EINVAL);
        assert_int_equal(blake2s(NULL, 32, NULL, 0, "abc", 3), -EINVAL);
        for (size_t i = 0; i < sizeof(d); i++)
                assert_int_equal(d[i], 0x55); /* untouched on failure */

        assert_int_equal(blake2s_init(&s, 0), -EINVAL);
        assert_int_equal(blake2s_init(&s, 33), -EINVAL);
        assert_int_equal(blake2s_init_key(&s, 32, key, 33), -EINVAL);
        assert_int_equal(blake2s_init_key(NULL, 32, key, 32), -EINVAL);
}

/* The state holds the key: after final() nothing of it may remain. */
static void test_final_wipes(void **state) {
        uint8_t key[32], d[32];
        Blake2s s, zero;

        memset(key, 0xC3, sizeof(key));
        memset(&zero, 0, sizeof(zero));
        assert_int_equal(blake2s_init_key(&s, 32, key, sizeof(key)), 0);
        blake2s_update(&s, "secret", 6);
        assert_memory_not_equal(&s, &zero, sizeof(s));
        blake2s_final(&s, d);
        assert_memory_equal(&s, &zero, sizeof(s));

        assert_int_equal(blake2s_init_key(&s, 32, key, sizeof(key)), 0);
        blake2s_erase(&s);
        assert_memory_equal(&s, &zero, sizeof(s));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_rfc7693_abc),
                cmocka_unit_test(test_rfc7693_selftest),
                cmocka_unit_test(test_keyed_kat),
                cmocka_unit_test(test_incremental_splits),
                cmocka_unit_test(test_outlen),
                cmocka_unit_test(test_bad_parameters),
                cmocka_unit_test(test_final_wipes),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
