// SPDX-License-Identifier: LGPL-2.1-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "macro.h"
#include "proc-cmdline.h"
#include "root.h"
#include "test-util.h"

static void check(const char *cmdline, const char *key, int want_r, const char *want_value) {
        char *v = (char *) "untouched";
        int r = proc_cmdline_get_key(cmdline, key, &v);

        assert_int_equal(r, want_r);
        if (want_value)
                assert_string_equal(v, want_value);
        else
                assert_null(v);
        free(v);
}

static void test_get_key(void **state) {
        check("", "entropy_gate.timeout", 0, NULL);
        check("quiet splash", "entropy_gate.timeout", 0, NULL);
        check("root=/dev/vda entropy_gate.timeout=5s quiet", "entropy_gate.timeout", 1, "5s");
        check("entropy-gate.timeout=5s", "entropy_gate.timeout", 1, "5s");
        check("entropy_gate.timeout=1 entropy_gate.timeout=2", "entropy_gate.timeout", 1, "2");
        check("entropy_gate.timeoutx=1", "entropy_gate.timeout", 0, NULL);
        check("xentropy_gate.timeout=1", "entropy_gate.timeout", 0, NULL);
        check("entropy_gate.units=\"a.service b.service\" ro", "entropy_gate.units", 1, "a.service b.service");
        check("x=\"entropy_gate.credit=0\"", "entropy_gate.credit", 0, NULL);
        check("entropy_gate.credit", "entropy_gate.credit", 1, NULL);
        check("entropy_gate.credit=", "entropy_gate.credit", 1, "");
        check("\tentropy_gate.credit=0\n", "entropy_gate.credit", 1, "0");
        check("a=b=c", "a", 1, "b=c");
}

/* As the kernel's next_arg() splits words: the quoting a boot loader may
 * add around a whole parameter is the kernel's, so it is ours. */
static void test_kernel_quoting(void **state) {
        check("\"entropy_gate.credit=0\"", "entropy_gate.credit", 1, "0");
        check("ro \"entropy_gate.credit=0\" quiet", "entropy_gate.credit", 1, "0");
        check("\"entropy_gate.credit\"", "entropy_gate.credit", 1, NULL);
        check("entropy_gate.credit=\"0\"", "entropy_gate.credit", 1, "0");
        check("\"entropy_gate.units=a.service b.service\" ro", "entropy_gate.units", 1, "a.service b.service");
        /* Quotes inside a value stay, as the kernel leaves them. */
        check("a=\"b c\"d", "a", 1, "b c\"d");
        check("a=x\"y z\"", "a", 1, "x\"y z\"");
        check("a=\"", "a", 1, "");
        check("a=\"\"", "a", 1, "");
        /* The first '=' splits, even inside quotes. */
        check("\"a=b\"=c", "a", 1, "b\"=c");
        /* "--" ends the kernel's parameters; the rest is init's. */
        check("ro -- entropy_gate.credit=0", "entropy_gate.credit", 0, NULL);
        check("entropy_gate.credit=1 -- entropy_gate.credit=0", "entropy_gate.credit", 1, "1");
        check("--x entropy_gate.credit=0", "entropy_gate.credit", 1, "0");
        /* The kernel's white space separates: ASCII's and Latin-1's NBSP. */
        check("a=1\vb=2", "b", 1, "2");
        check("a=1\xa0" "b=2", "b", 1, "2");
        check("a=1\xa0" "b=2", "a", 1, "1");
        check("\xa0" "entropy_gate.credit=0\xa0", "entropy_gate.credit", 1, "0");
        /* Even as the second byte of UTF-8 ("\xc3\xa0" is U+00E0): the kernel
         * knows no UTF-8. */
        check("x=\xc3\xa0" "entropy_gate.credit=0", "entropy_gate.credit", 1, "0");
        check("x=\xc3\xa0" "entropy_gate.credit=0", "x", 1, "\xc3");
        /* Other bytes above 0x7f, and the C0 controls that are not white
         * space, do not separate. */
        check("a=1\x85" "b=2", "b", 0, NULL);
        check("a=1\x1c" "b=2", "b", 0, NULL);
        check("a=1\xc2\xa1" "b=2", "b", 0, NULL);
}

/* The kernel's lib/ctype.c, byte by byte. */
static void test_isspace(void **state) {
        for (unsigned c = 1; c < 256; c++) {
                bool want = c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' || c == 0xa0;
                assert_int_equal(proc_cmdline_isspace((char) c), want);
        }
        assert_false(proc_cmdline_isspace(0));
}

static void test_may_set_credential(void **state) {
        static const char *const yes[] = {
                "systemd.set_credential=entropy-gate.seed:x",
                "a systemd.set-credential=other:y systemd.set_credential=entropy-gate.seed:x b",
                "systemd.set_credential_binary=entropy-gate.seed:eA==",
                "systemd.set-credential-binary=entropy-gate.seed:eA==",
                "rd.systemd.set_credential=entropy-gate.seed:x",
                /* Everywhere, also after "--". */
                "ro -- systemd.set_credential=entropy-gate.seed:x",
                /* Every spelling systemd's unquoting takes. */
                "'systemd.set_credential=entropy-gate.seed:x'",
                "\"systemd.set_credential=entropy-gate.seed:x\"",
                "systemd.set_credential='entropy-gate.seed:x'",
                "systemd.set_credential=\"entropy-gate.seed:x\"",
                "systemd.set_credential=entropy-gate.'seed':x",
                "systemd.set_credential=\"entropy-gate\".seed:x",
                "\"systemd.set_credential\"=entropy-gate.seed:x",
                "sys'temd.set_cred'ential=entropy-gate.seed'':x",
                "systemd.set_credential=entropy-gate.seed\":x\"",
        };
        static const char *const no[] = {
                "systemd.set_credential=other.seed:x",
                "systemd.set_credential=entropy-gate.seedx:x",
                "systemd.set_credential=entropy_gate.seed:x",
                "systemd.set_credential",
                "systemd.set_credential=entropy-gate.seed",
                "systemd.set_credential=",
                "",
        };

        for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
                print_message("%s\n", yes[i]);
                assert_true(proc_cmdline_may_set_credential(yes[i], "entropy-gate.seed"));
        }
        for (size_t i = 0; i < ELEMENTSOF(no); i++) {
                print_message("%s\n", no[i]);
                assert_false(proc_cmdline_may_set_credential(no[i], "entropy-gate.seed"));
        }
}

static void test_read_root(void **state) {
        char root[PATH_MAX], path[PATH_MAX + 64], host[PATH_MAX + 16];
        char *s = NULL;

        /* An image's tree has no kernel: an empty command line. */
        test_tmpdir(root, "test-proc-cmdline");
        root_set(root);
        assert_int_equal(proc_cmdline_read(&s), 0);
        assert_string_equal(s, "");
        free(s);

        test_write_text(root, "proc/cmdline", "entropy_gate.timeout=3\n");
        snprintf(path, sizeof(path), "%s/proc/cmdline", root);
        assert_int_equal(proc_cmdline_read(&s), 0);
        assert_string_equal(s, "entropy_gate.timeout=3\n");
        free(s);
        /* A tree tool's tree: its kernel command line is its boot
         * loader's, and a /proc mounted there the build host's. */
        root_set_tree(CHASE_NO_XDEV);
        assert_int_equal(proc_cmdline_read(&s), 0);
        assert_string_equal(s, "");
        free(s);
        root_set(root);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(mkdir(path, 0755), 0);
        assert_int_equal(proc_cmdline_read(&s), -EISDIR);
        assert_int_equal(rmdir(path), 0);

        /* A link out of the root is taken inside it: an image whose /proc
         * points at a directory of the host's reads nothing there. */
        snprintf(host, sizeof(host), "%s.host", root);
        assert_int_equal(mkdir(host, 0755), 0);
        test_write_text(host, "cmdline", "entropy_gate.timeout=7\n");
        snprintf(path, sizeof(path), "%s/proc", root);
        assert_int_equal(rmdir(path), 0);
        assert_int_equal(symlink(host, path), 0);
        assert_int_equal(proc_cmdline_read(&s), 0);
        assert_string_equal(s, "");
        free(s);
        assert_int_equal(unlink(path), 0);
        test_rm_rf(host);

        /* The environment is no way in. */
        assert_int_equal(setenv("ENTROPY_GATE_PROC_CMDLINE", "entropy_gate.timeout=9", 1), 0);
        assert_int_equal(proc_cmdline_read(&s), 0);
        assert_string_equal(s, "");
        free(s);
        assert_int_equal(unsetenv("ENTROPY_GATE_PROC_CMDLINE"), 0);

        root_set(NULL);
        assert_int_equal(proc_cmdline_read(&s), 0); /* the host's /proc/cmdline */
        free(s);
        test_rm_rf(root);
}

static void test_efi_options_variable_to_text(void **state) {
        /* Attributes, then "a=б b" and its NUL in UTF-16LE, then an odd byte. */
        static const uint8_t var[] = { 7, 0, 0, 0, 'a', 0, '=', 0, 0x31, 0x04, ' ', 0, 'b', 0, 0, 0, 'x' };
        uint8_t buf[sizeof(var)];
        char out[sizeof(var) / 2 + 1];

        assert_int_equal(efi_options_variable_to_text(var, sizeof(var), out), 6);
        assert_string_equal(out, "a=? b?");
        /* In place. */
        memcpy(buf, var, sizeof(var));
        assert_int_equal(efi_options_variable_to_text(buf, sizeof(buf), (char *) buf), 6);
        assert_string_equal((char *) buf, "a=? b?");
        /* No room for a unit after the attributes, or not even them. */
        assert_int_equal(efi_options_variable_to_text(var, 5, out), 0);
        assert_string_equal(out, "");
        assert_int_equal(efi_options_variable_to_text(var, 2, out), 0);
        assert_string_equal(out, "");
}

/* Both copies of systemd's SystemdOptions EFI variable, inside the root. */
static void test_efi_options_read(void **state) {
        static const uint8_t var[] = { 7, 0, 0, 0, 'q', 0, 0x42, 0x04, 'x', 0, 0, 0 };
        char root[PATH_MAX], path[PATH_MAX + 128];
        char *s = NULL;

        test_tmpdir(root, "test-proc-cmdline-efi");
        root_set(root);
        for (EfiOptionsSource i = 0; i < _EFI_OPTIONS_SOURCE_MAX; i++)
                assert_int_equal(efi_options_read(i, &s), -ENOENT);

        test_write(root, efi_options_path(EFI_OPTIONS_CACHE) + 1, "quiet\0x=y\n", 10, 0644);
        assert_int_equal(efi_options_read(EFI_OPTIONS_CACHE, &s), 0);
        assert_string_equal(s, "quiet?x=y\n");
        free(s);
        test_write(root, efi_options_path(EFI_OPTIONS_VARIABLE) + 1, var, sizeof(var), 0644);
        assert_int_equal(efi_options_read(EFI_OPTIONS_VARIABLE, &s), 0);
        assert_string_equal(s, "q?x?");
        free(s);

        /* A tree tool's tree: an image's EFI variables are its firmware's. */
        root_set_tree(CHASE_NO_XDEV);
        for (EfiOptionsSource i = 0; i < _EFI_OPTIONS_SOURCE_MAX; i++)
                assert_int_equal(efi_options_read(i, &s), -ENOENT);
        root_set(root);

        /* Not a regular file: not read, and not absent either. */
        snprintf(path, sizeof(path), "%s%s", root, efi_options_path(EFI_OPTIONS_CACHE));
        assert_int_equal(unlink(path), 0);
        assert_int_equal(mkdir(path, 0755), 0);
        assert_int_equal(efi_options_read(EFI_OPTIONS_CACHE, &s), -EISDIR);

        root_set(NULL);
        test_rm_rf(root);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_get_key),
                cmocka_unit_test(test_kernel_quoting),
                cmocka_unit_test(test_isspace),
                cmocka_unit_test(test_may_set_credential),
                cmocka_unit_test(test_read_root),
                cmocka_unit_test(test_efi_options_variable_to_text),
                cmocka_unit_test(test_efi_options_read),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
