// SPDX-License-Identifier: LGPL-2.1-or-later
/* entropyctl credential: each format's exact text, the value in it read
 * back as entropy-seed reads the credential (all of it credited), nothing
 * a shell or XML would interpret, the raw bytes that would not survive,
 * the --bits= parser. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "credential.h"
#include "credential-format.h"
#include "macro.h"

#define HEX32 "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

static void test_exact(void **state) {
        static const struct { CredentialFormat f; const char *text; } t[] = {
                { CREDENTIAL_FORMAT_QEMU_SMBIOS,
                  "-smbios type=11,value=io.systemd.credential:entropy-gate.seed=" HEX32 "\n" },
                { CREDENTIAL_FORMAT_QEMU_FW_CFG,
                  "-fw_cfg name=opt/io.systemd.credentials/entropy-gate.seed,string=" HEX32 "\n" },
                { CREDENTIAL_FORMAT_VMSPAWN, "--set-credential=entropy-gate.seed:" HEX32 "\n" },
                { CREDENTIAL_FORMAT_LIBVIRT,
                  "<os>\n"
                  "  <smbios mode='sysinfo'/>\n"
                  "</os>\n"
                  "<sysinfo type='smbios'>\n"
                  "  <oemStrings>\n"
                  "    <entry>io.systemd.credential:entropy-gate.seed=" HEX32 "</entry>\n"
                  "  </oemStrings>\n"
                  "</sysinfo>\n" },
                { CREDENTIAL_FORMAT_VIRT_INSTALL,
                  "--sysinfo type=smbios,oemStrings.entry0=io.systemd.credential:entropy-gate.seed=" HEX32 "\n" },
                { CREDENTIAL_FORMAT_MKOSI, "Credentials=entropy-gate.seed=" HEX32 "\n" },
                { CREDENTIAL_FORMAT_HEX, HEX32 "\n" },
        };
        uint8_t seed[32];
        char buf[CREDENTIAL_TEXT_MAX];

        for (size_t i = 0; i < sizeof(seed); i++)
                seed[i] = (uint8_t) i;
        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                ssize_t n = credential_format(t[i].f, seed, sizeof(seed), buf, sizeof(buf));

                assert_int_equal(n, strlen(t[i].text));
                assert_string_equal(buf, t[i].text);
        }
        assert_int_equal(credential_format(CREDENTIAL_FORMAT_RAW, seed, sizeof(seed), buf, sizeof(buf)), 32);
        assert_memory_equal(buf, seed, 32);
        /* cloud-init comes too late for the first boot: never printed. */
        assert_int_equal(credential_format(CREDENTIAL_FORMAT_CLOUD_INIT, seed, sizeof(seed), buf, sizeof(buf)),
                         -EOPNOTSUPP);
        assert_int_equal(credential_format(_CREDENTIAL_FORMAT_INVALID, seed, sizeof(seed), buf, sizeof(buf)), -EINVAL);
        /* Too small a buffer is an error, never a cut credential. */
        assert_int_equal(credential_format(CREDENTIAL_FORMAT_HEX, seed, sizeof(seed), buf, 64), -ENOBUFS);
        assert_int_equal(credential_format(CREDENTIAL_FORMAT_HEX, seed, sizeof(seed), buf, 65), -ENOBUFS);
        assert_int_equal(credential_format(CREDENTIAL_FORMAT_HEX, seed, sizeof(seed), buf, 66), 65);
        assert_int_equal(credential_format(CREDENTIAL_FORMAT_RAW, seed, sizeof(seed), buf, 31), -ENOBUFS);
}

/* Every size --bits= allows, every format: the credential the guest ends
 * up with, read as entropy-seed reads it, is the seed, at 8 bits a byte. */
static void test_round_trip(void **state) {
        static const struct { CredentialFormat f; const char *before; } t[] = {
                { CREDENTIAL_FORMAT_QEMU_SMBIOS, "io.systemd.credential:entropy-gate.seed=" },
                { CREDENTIAL_FORMAT_QEMU_FW_CFG, "opt/io.systemd.credentials/entropy-gate.seed,string=" },
                { CREDENTIAL_FORMAT_VMSPAWN, "--set-credential=entropy-gate.seed:" },
                { CREDENTIAL_FORMAT_LIBVIRT, "<entry>io.systemd.credential:entropy-gate.seed=" },
                { CREDENTIAL_FORMAT_VIRT_INSTALL, "oemStrings.entry0=io.systemd.credential:entropy-gate.seed=" },
                { CREDENTIAL_FORMAT_MKOSI, "Credentials=entropy-gate.seed=" },
                { CREDENTIAL_FORMAT_HEX, "" },
                { CREDENTIAL_FORMAT_RAW, NULL },
        };
        uint8_t seed[CREDENTIAL_BITS_MAX / 8], raw[CREDENTIAL_TEXT_MAX], canon[CREDENTIAL_TEXT_MAX];
        char buf[CREDENTIAL_TEXT_MAX];

        /* Not text in any encoding (a C0 control first), as random bytes
         * almost never are (credential.h); the raw form's last byte is set
         * below, as entropyctl draws again when it is a terminator. */
        for (size_t i = 0; i < sizeof(seed); i++)
                seed[i] = (uint8_t) (i * 151 + 1);
        for (unsigned bits = CREDENTIAL_BITS_MIN; bits <= CREDENTIAL_BITS_MAX; bits += 8)
                for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                        size_t size = bits / 8, rawsize;
                        uint8_t last = seed[size - 1];
                        ssize_t n;
                        CredentialContent c;

                        if (!t[i].before)
                                seed[size - 1] |= 0x80;
                        assert_true(!t[i].before ? credential_seed_survives(seed, size) : true);
                        n = credential_format(t[i].f, seed, size, buf, sizeof(buf));

                        assert_true(n > 0);
                        if (!t[i].before) {
                                memcpy(raw, buf, (size_t) n);
                                rawsize = (size_t) n;
                        } else {
                                const char *v = strstr(buf, t[i].before);
                                size_t len;

                                assert_non_null(v);
                                v += strlen(t[i].before);
                                len = strcspn(v, "<\n");
                                assert_int_equal(len, 2 * size);
                                memcpy(raw, v, len);
                                rawsize = len;
                        }
                        credential_canonicalize(raw, rawsize, canon, &c);
                        assert_int_equal(c.class, t[i].before ? CREDENTIAL_CLASS_HEX : CREDENTIAL_CLASS_BINARY);
                        assert_int_equal(c.size, size);
                        assert_memory_equal(canon, seed, size);
                        seed[size - 1] = last;
                }
}

/* Pasted into a shell unquoted, into qemu's option syntax (a comma would
 * need doubling) and into XML: no character any of them interprets. */
static void test_safe_characters(void **state) {
        uint8_t seed[CREDENTIAL_BITS_MAX / 8];
        char buf[CREDENTIAL_TEXT_MAX];

        for (size_t i = 0; i < sizeof(seed); i++)
                seed[i] = (uint8_t) (255 - i);
        /* Pasted: every character a letter, a digit, a space between
         * words or one of these, which the shell, qemu's option syntax
         * (where a comma in a value would need doubling) and XML take as
         * they are. */
        for (CredentialFormat f = 0; f < _CREDENTIAL_FORMAT_MAX; f++) {
                ssize_t n = credential_format(f, seed, sizeof(seed), buf, sizeof(buf));
                const char *v;

                if (f == CREDENTIAL_FORMAT_RAW || f == CREDENTIAL_FORMAT_CLOUD_INIT)
                        continue;
                assert_true(n > 0);
                /* libvirt's markup is ours; the entry's text is checked. */
                v = f == CREDENTIAL_FORMAT_LIBVIRT ? strstr(buf, "<entry>") + 7 : buf;
                for (; *v && *v != '<' && *v != '\n'; v++)
                        assert_non_null(strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 =-_.:,/", *v));
                assert_int_equal(buf[n - 1], '\n');
        }
}

static void test_seed_survives(void **state) {
        uint8_t seed[64];

        for (size_t i = 0; i < sizeof(seed); i++)
                seed[i] = (uint8_t) (i * 151 + 1);
        seed[63] = 0x80;
        assert_true(credential_seed_survives(seed, 64));
        /* A last NUL, CR or LF is a terminator to entropy-seed. */
        seed[63] = 0;
        assert_false(credential_seed_survives(seed, 64));
        seed[63] = '\n';
        assert_false(credential_seed_survives(seed, 64));
        seed[63] = '\r';
        assert_false(credential_seed_survives(seed, 64));
        seed[63] = 0x80;
        /* Bytes that read as text are mixed, never credited; hex digits
         * are decoded to half as many bytes. */
        memset(seed, 'a', sizeof(seed));
        assert_false(credential_seed_survives(seed, 64));
        memset(seed, 'x', sizeof(seed));
        assert_false(credential_seed_survives(seed, 64));
        assert_false(credential_seed_survives(seed, CREDENTIAL_BITS_MAX / 8 + 1));
}

static void test_names(void **state) {
        for (CredentialFormat f = 0; f < _CREDENTIAL_FORMAT_MAX; f++)
                assert_int_equal(credential_format_from_string(credential_format_to_string(f)), f);
        assert_int_equal(credential_format_from_string("qemu"), _CREDENTIAL_FORMAT_INVALID);
        assert_int_equal(credential_format_from_string(""), _CREDENTIAL_FORMAT_INVALID);
        assert_string_equal(CREDENTIAL_NAME, "entropy-gate.seed");
}

static void test_bits_parse(void **state) {
        static const struct { const char *s; int r; unsigned bits; } t[] = {
                { "256", 0, 256 }, { "512", 0, 512 }, { "4096", 0, 4096 }, { "264", 0, 264 },
                { "0256", 0, 256 },
                { "248", -ERANGE, 0 }, { "255", -ERANGE, 0 }, { "257", -ERANGE, 0 }, { "4104", -ERANGE, 0 },
                { "0", -ERANGE, 0 }, { "99999999999999999999999", -ERANGE, 0 },
                { "", -EINVAL, 0 }, { "x", -EINVAL, 0 }, { "-512", -EINVAL, 0 }, { "+512", -EINVAL, 0 },
                { " 512", -EINVAL, 0 }, { "512 ", -EINVAL, 0 }, { "512b", -EINVAL, 0 }, { "0x200", -EINVAL, 0 },
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                unsigned bits = 7;

                assert_int_equal(credential_bits_parse(t[i].s, &bits), t[i].r);
                assert_int_equal(bits, t[i].r == 0 ? t[i].bits : 7);
        }
        assert_int_equal(credential_bits_parse(NULL, &(unsigned) { 0 }), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_exact),
                cmocka_unit_test(test_round_trip),
                cmocka_unit_test(test_safe_characters),
                cmocka_unit_test(test_seed_survives),
                cmocka_unit_test(test_names),
                cmocka_unit_test(test_bits_parse),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
