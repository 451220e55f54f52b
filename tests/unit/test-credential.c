// SPDX-License-Identifier: LGPL-2.1-or-later
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "credential.h"
#include "macro.h"

#define HEX64 "00112233445566778899aabbccddeeff0123456789abcdef0f1e2d3c4b5a6978"

/* A bit pattern no text has: a C0 control first, high bytes, every value. */
static void fill_binary(uint8_t *p, size_t n, uint32_t seed) {
        for (size_t i = 0; i < n; i++) {
                seed = seed * 1103515245u + 12345u;
                p[i] = (uint8_t) (seed >> 16);
        }
        p[0] = 0x01;
        p[n - 1] |= 0x80;
}

static CredentialContent classify(const void *raw, size_t size, uint8_t *out) {
        CredentialContent c;

        credential_canonicalize(raw, size, out, &c);
        assert_true(c.size <= size);
        assert_true((c.class == CREDENTIAL_CLASS_TEXT) == (c.encoding != NULL));
        return c;
}

static void test_hex(void **state) {
        static const char *const spellings[] = { HEX64, HEX64 "\n", HEX64 "\r\n", HEX64 "\0", HEX64 "\n\0\0" };
        uint8_t out[128], want[32];

        for (size_t i = 0; i < 32; i++)
                want[i] = (uint8_t) strtoul((char[3]) { HEX64[2 * i], HEX64[2 * i + 1], 0 }, NULL, 16);
        for (size_t i = 0; i < ELEMENTSOF(spellings); i++) {
                size_t n = strlen(spellings[i]) + (i == 3 ? 1 : i == 4 ? 2 : 0);
                CredentialContent c = classify(spellings[i], n, out);

                assert_int_equal(c.class, CREDENTIAL_CLASS_HEX);
                assert_int_equal(c.size, 32);
                assert_memory_equal(out, want, 32);
        }
}

/* Hex with one stray byte is not binary: credited at 8 bits a byte, 528
 * bits from 256, and not the hex credential its memory knows. Text, and so
 * never credited. */
static void test_hex_with_stray_bytes_is_text(void **state) {
        static const struct { const char *s; size_t n; } t[] = {
                { HEX64 "\n\x1a", 66 },
                { HEX64 "\x1a", 65 },
                { HEX64 "\x7f", 65 },
                { HEX64 "\0\x01", 66 },
                { HEX64 "\n\x1b", 66 },
                { "\x1a" HEX64, 65 },
                { HEX64 "\x01" HEX64, 129 },
                { HEX64 "\xff\xfe", 66 },
                { "correct horse battery\x01staple", 29 },
        };
        uint8_t out[256];

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                CredentialContent c = classify(t[i].s, t[i].n, out);

                print_message("case %zu\n", i);
                assert_int_equal(c.class, CREDENTIAL_CLASS_TEXT);
        }
}

/* Hex digits followed by as many random bytes, or binary with a long
 * string in it: a run of ASCII text that random bytes do not hold. */
static void test_text_run_is_text(void **state) {
        uint8_t raw[64 + 64], out[sizeof(raw)];

        memcpy(raw, HEX64, 64);
        fill_binary(raw + 64, 64, 7);
        assert_int_equal(classify(raw, sizeof(raw), out).class, CREDENTIAL_CLASS_TEXT);

        fill_binary(raw, sizeof(raw), 11);
        memcpy(raw + 40, "sixteen letters!", 16);
        assert_int_equal(classify(raw, sizeof(raw), out).class, CREDENTIAL_CLASS_TEXT);
        /* Fifteen are not enough to say. */
        fill_binary(raw, sizeof(raw), 11);
        memcpy(raw + 40, "fifteen letters", 15);
        raw[39] = raw[55] = 0x01;
        assert_int_equal(classify(raw, sizeof(raw), out).class, CREDENTIAL_CLASS_BINARY);
}

/* Binary stays binary, and its canonical bytes are its bytes less the
 * trailing terminators. */
static void test_binary(void **state) {
        uint8_t raw[34], out[sizeof(raw)];
        CredentialContent c;

        fill_binary(raw, 32, 3);
        c = classify(raw, 32, out);
        assert_int_equal(c.class, CREDENTIAL_CLASS_BINARY);
        assert_int_equal(c.size, 32);
        assert_memory_equal(out, raw, 32);
        raw[32] = '\n';
        raw[33] = 0;
        c = classify(raw, 34, out);
        assert_int_equal(c.class, CREDENTIAL_CLASS_BINARY);
        assert_int_equal(c.size, 32);
        assert_memory_equal(out, raw, 32);
}

/* Pseudo-random credentials of the smallest creditable size are almost
 * never taken for text (credential.h: below 1/4000). */
static void test_random_is_binary(void **state) {
        unsigned text = 0, n = 20000;

        for (unsigned i = 0; i < n; i++) {
                uint8_t raw[32], out[32];

                fill_binary(raw, sizeof(raw), i * 2654435761u);
                raw[0] = (uint8_t) (i * 37);      /* not always a control */
                if (classify(raw, sizeof(raw), out).class != CREDENTIAL_CLASS_BINARY)
                        text++;
        }
        assert_true(text * 4000 < n * 2);
}

/* Deterministic pseudo-random bytes (xorshift64*), unlike fill_binary()
 * with no byte forced: every value anywhere, a byte order mark included. */
static void fill_random(uint8_t *p, size_t n, uint64_t *s) {
        for (size_t i = 0; i < n; i++) {
                *s ^= *s >> 12;
                *s ^= *s << 25;
                *s ^= *s >> 27;
                p[i] = (uint8_t) ((*s * 2685821657736338717ull) >> 56);
        }
}

/* Random credentials of 32 and 64 bytes are binary but for a handful in
 * 10000: credential.h's bound, below 1/4000 at 32 bytes (2.5 in 10000,
 * mostly the Latin-1 test), plus 0.3 for a byte order mark at the start
 * (2^-15). These seeded samples give 3 at 32 bytes and none at 64. */
static void test_random_bytes_are_binary(void **state) {
        static const size_t sizes[] = { 32, 64 };
        uint64_t s = 0x9e3779b97f4a7c15ull;
        unsigned n = 10000;

        for (size_t k = 0; k < ELEMENTSOF(sizes); k++) {
                unsigned text = 0;

                for (unsigned i = 0; i < n; i++) {
                        uint8_t raw[64], out[64];

                        fill_random(raw, sizes[k], &s);
                        if (classify(raw, sizes[k], out).class != CREDENTIAL_CLASS_BINARY)
                                text++;
                }
                print_message("%zu bytes: %u in %u taken for text\n", sizes[k], text, n);
                assert_true(text <= 5);
        }
}

/* @utf8 (BMP only) as UTF-16 in @out, in either byte order; its length. */
static size_t utf16(const char *utf8, bool be, uint8_t *out) {
        const uint8_t *p = (const uint8_t *) utf8;
        size_t n = 0;

        while (*p) {
                uint32_t c;

                if (p[0] < 0x80)
                        c = *p++;
                else if ((p[0] & 0xe0) == 0xc0)
                        c = (uint32_t) (p[0] & 0x1f) << 6 | (p[1] & 0x3f), p += 2;
                else
                        c = (uint32_t) (p[0] & 0x0f) << 12 | (uint32_t) (p[1] & 0x3f) << 6 | (p[2] & 0x3f), p += 3;
                out[n++] = (uint8_t) (be ? c >> 8 : c);
                out[n++] = (uint8_t) (be ? c : c >> 8);
        }
        return n;
}

#define RU "Пароль для виртуальной машины: секретная фраза номер один"
#define EL "Ο κωδικός της εικονικής μηχανής είναι μυστικός"

/* Whatever follows a byte order mark, the credential is text: UTF-16 with
 * a noncharacter, a lone surrogate or an odd stray byte in it is no 8 bits
 * a byte. */
static void test_byte_order_mark_is_text(void **state) {
        static const uint8_t boms[][4] = {
                { 0xff, 0xfe }, { 0xfe, 0xff }, { 0xef, 0xbb, 0xbf }, { 0xff, 0xfe, 0, 0 }, { 0, 0, 0xfe, 0xff },
        };
        static const size_t bom_len[] = { 2, 2, 3, 4, 4 };
        uint8_t raw[512], out[512];

        for (unsigned be = 0; be < 2; be++) {
                size_t n;

                memcpy(raw, boms[be], 2);
                n = 2 + utf16(RU, be, raw + 2);
                /* U+FFFF, then a lone high surrogate, in the middle. */
                memmove(raw + 22, raw + 20, n - 20);
                raw[20] = raw[21] = 0xff;
                n += 2;
                assert_int_equal(classify(raw, n, out).class, CREDENTIAL_CLASS_TEXT);
                memmove(raw + 32, raw + 30, n - 30);
                raw[30 + be] = 0xd8;
                raw[31 - be] = 0x00;
                n += 2;
                assert_int_equal(classify(raw, n, out).class, CREDENTIAL_CLASS_TEXT);
                /* An odd stray byte at the end. */
                n = 2 + utf16(RU, be, raw + 2);
                for (unsigned stray = 1; stray < 256; stray += 29) {
                        raw[n] = (uint8_t) stray;
                        assert_int_equal(classify(raw, n + 1, out).class, CREDENTIAL_CLASS_TEXT);
                }
        }
        /* Random bytes after any mark. */
        for (size_t b = 0; b < ELEMENTSOF(boms); b++) {
                uint64_t s = b + 1;

                memcpy(raw, boms[b], bom_len[b]);
                fill_random(raw + bom_len[b], 64, &s);
                raw[bom_len[b] + 63] |= 0x80;
                assert_int_equal(classify(raw, bom_len[b] + 64, out).class, CREDENTIAL_CLASS_TEXT);
        }
}

/* UTF-16 without a byte order mark, of a script outside ASCII: its units'
 * high bytes are one or two values (the script's block, 0x00 for spaces and
 * punctuation), which random bytes are not. */
static void test_utf16_of_one_script_is_text(void **state) {
        static const char *const t[] = { RU, EL, "Ω", "Привет" };
        uint8_t raw[512], out[512];

        for (size_t i = 0; i < ELEMENTSOF(t); i++)
                for (unsigned be = 0; be < 2; be++) {
                        size_t n = utf16(t[i], be, raw + 1);
                        CredentialContent c;

                        print_message("text %zu, %s\n", i, be ? "BE" : "LE");
                        if (n < 8) {
                                /* Too short to tell from random bytes (below 4 units): not claimed. */
                                continue;
                        }
                        c = classify(raw + 1, n, out);
                        assert_int_equal(c.class, CREDENTIAL_CLASS_TEXT);
                        /* An odd stray byte after it, or before it. */
                        raw[1 + n] = 0x1a;
                        assert_int_equal(classify(raw + 1, n + 1, out).class, CREDENTIAL_CLASS_TEXT);
                        raw[0] = 0xc3;
                        assert_int_equal(classify(raw, n + 1, out).class, CREDENTIAL_CLASS_TEXT);
                        /* A lone surrogate in it. */
                        raw[1 + 11 - be] = 0xdc;
                        assert_int_equal(classify(raw + 1, n, out).class, CREDENTIAL_CLASS_TEXT);
                }
}

static void test_text(void **state) {
        static const char *const t[] = {
                "correct horse battery staple and more words here",
                "pässwörd für dïe Ümgebung",
                "\xef\xbb\xbfzeichenkette",
                "\n\n\n",
        };
        uint8_t out[128];

        for (size_t i = 0; i < ELEMENTSOF(t); i++)
                assert_int_equal(classify(t[i], strlen(t[i]), out).class, CREDENTIAL_CLASS_TEXT);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_hex),
                cmocka_unit_test(test_hex_with_stray_bytes_is_text),
                cmocka_unit_test(test_text_run_is_text),
                cmocka_unit_test(test_binary),
                cmocka_unit_test(test_random_is_binary),
                cmocka_unit_test(test_random_bytes_are_binary),
                cmocka_unit_test(test_byte_order_mark_is_text),
                cmocka_unit_test(test_utf16_of_one_script_is_text),
                cmocka_unit_test(test_text),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
