// SPDX-License-Identifier: LGPL-2.1-or-later
#include <setjmp.h>
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
                cmocka_unit_test(test_text),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
