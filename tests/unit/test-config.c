// SPDX-License-Identifier: LGPL-2.1-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "config.h"
#include "paths.h"
#include "root.h"
#include "test-util.h"

static unsigned n_warnings;

static void count_warning(void *userdata, const char *source, unsigned line, const char *message) {
        assert_string_equal(source, "kernel command line");
        assert_non_null(strstr(message, (const char *) userdata));
        n_warnings++;
}

static void test_defaults(void **state) {
        Config c;

        assert_int_equal(config_init(&c), 0);
        assert_true(c.timeout == USEC_INFINITY);
        assert_int_equal(c.on_timeout, ON_TIMEOUT_FAIL);
        assert_true(c.warn_after == 10 * USEC_PER_SEC);
        assert_true(c.credit);
        assert_false(c.credit_without_machine_id);
        assert_null(c.units);
        config_done(&c);
}

static void test_cmdline(void **state) {
        Config c;

        assert_int_equal(config_init(&c), 0);
        n_warnings = 0;
        assert_int_equal(config_apply_cmdline(&c, "ro entropy_gate.timeout=200ms entropy_gate.on_timeout=proceed entropy_gate.credit=0",
                                              count_warning, (void *) "never"), 0);
        assert_true(c.timeout == 200 * USEC_PER_MSEC);
        assert_int_equal(c.on_timeout, ON_TIMEOUT_PROCEED);
        assert_false(c.credit);
        assert_int_equal(n_warnings, 0);

        /* Bad values: one warning each, naming the value; earlier values kept. */
        assert_int_equal(config_apply_cmdline(&c, "entropy_gate.timeout=soon", count_warning, (void *) "soon"), 0);
        assert_int_equal(config_apply_cmdline(&c, "entropy_gate.on_timeout=maybe", count_warning, (void *) "maybe"), 0);
        assert_int_equal(config_apply_cmdline(&c, "entropy_gate.credit=perhaps", count_warning, (void *) "perhaps"), 0);
        assert_int_equal(n_warnings, 3);
        assert_true(c.timeout == 200 * USEC_PER_MSEC);
        assert_int_equal(c.on_timeout, ON_TIMEOUT_PROCEED);
        assert_false(c.credit);
        config_done(&c);
}

static void test_parse_boolean(void **state) {
        assert_int_equal(parse_boolean("yes"), 1);
        assert_int_equal(parse_boolean("1"), 1);
        assert_int_equal(parse_boolean("ON"), 1);
        assert_int_equal(parse_boolean("0"), 0);
        assert_int_equal(parse_boolean("false"), 0);
        assert_true(parse_boolean("2") < 0);
        assert_true(parse_boolean("") < 0);
        assert_true(parse_boolean(NULL) < 0);
}

static void ignore_warning(void *userdata, const char *source, unsigned line, const char *message) {
        ++*(unsigned *) userdata;
}

/* Who turned crediting off is said, and said right. */
static void test_credit_origin(void **state) {
        unsigned n = 0;
        Config c;

        assert_int_equal(config_init(&c), 0);
        assert_null(config_credit_disabled_by(&c));
        assert_int_equal(config_parse_text(&c, "[Seed]\nCredit=no\n", "/etc/entropy-gate.conf", ignore_warning, &n), 0);
        assert_string_equal(config_credit_disabled_by(&c), "Credit=no in /etc/entropy-gate.conf");
        assert_int_equal(config_apply_cmdline(&c, "entropy_gate.credit=1", ignore_warning, &n), 0);
        assert_null(config_credit_disabled_by(&c));
        assert_int_equal(config_apply_cmdline(&c, "entropy-gate.credit=off", ignore_warning, &n), 0);
        assert_string_equal(config_credit_disabled_by(&c), "entropy_gate.credit=off on the kernel command line");
        assert_int_equal(n, 0);
        config_done(&c);

        /* Quoted as the kernel accepts it. */
        assert_int_equal(config_init(&c), 0);
        assert_int_equal(config_apply_cmdline(&c, "ro \"entropy_gate.credit=0\" quiet", ignore_warning, &n), 0);
        assert_false(c.credit);
        assert_non_null(config_credit_disabled_by(&c));
        config_done(&c);
}

static void test_credential_without_memory(void **state) {
        unsigned n = 0;
        Config c;

        assert_int_equal(config_init(&c), 0);
        assert_false(c.credit_credential_without_memory);
        assert_int_equal(config_parse_text(&c, "[Seed]\nCreditCredentialWithoutMemory=yes\n", "f", ignore_warning, &n), 0);
        assert_true(c.credit_credential_without_memory);
        /* Files only: the kernel command line cannot turn it on. */
        assert_int_equal(config_parse_text(&c, "[Seed]\nCreditCredentialWithoutMemory=\n", "f", ignore_warning, &n), 0);
        assert_int_equal(config_apply_cmdline(&c, "entropy_gate.credit_credential_without_memory=1", ignore_warning, &n), 0);
        assert_false(c.credit_credential_without_memory);
        assert_int_equal(n, 0);
        config_done(&c);
}

/* A value that does not parse may have meant no: off, for good. */
static void test_credit_fail_closed(void **state) {
        unsigned n = 0;
        Config c;

        assert_int_equal(config_init(&c), 0);
        assert_int_equal(config_apply_cmdline(&c, "entropy_gate.credit=perhaps", ignore_warning, &n), 0);
        assert_int_equal(n, 1);
        assert_non_null(config_credit_disabled_by(&c));
        assert_int_equal(config_apply_cmdline(&c, "entropy_gate.credit=1", ignore_warning, &n), 0);
        assert_non_null(strstr(config_credit_disabled_by(&c), "perhaps"));
        config_done(&c);

        assert_int_equal(config_init(&c), 0);
        assert_int_equal(config_parse_text(&c, "[Seed]\nCredit=nein\nCredit=yes\n", "f.conf", ignore_warning, &n), 0);
        assert_non_null(config_credit_disabled_by(&c));
        config_done(&c);
}

static char root[PATH_MAX];

#define PUT(path, text) test_write(root, (path), text, sizeof(text) - 1, 0644)

/* Loads @... and says whether crediting ended up off. */
static bool load_disables_credit(void) {
        unsigned n = 0;
        Config c;
        bool off;

        assert_int_equal(config_load(&c, ignore_warning, &n), 0);
        off = config_credit_disabled_by(&c) != NULL;
        config_done(&c);
        return off;
}

static void test_load_fail_closed(void **state) {
        char big[CONFIG_FILE_MAX + 100], p[3 * PATH_MAX], cmd[7 * PATH_MAX];

        test_tmpdir(root, "test-config");
        root_set(root);
        assert_false(load_disables_credit());

        /* The switches themselves. */
        PUT(CONF_FILE, "[Seed]\nCredit=no\n");
        assert_true(load_disables_credit());
        PUT("/proc/cmdline", "quiet\n");
        assert_true(load_disables_credit());
        PUT(CONF_FILE, "[Seed]\nCredit=yes\n");
        assert_false(load_disables_credit());
        PUT("/proc/cmdline", "ro \"entropy_gate.credit=0\"\n");
        assert_true(load_disables_credit());
        PUT("/proc/cmdline", "quiet\n");

        /* Over the size limit, or with a NUL: not read, and so not trusted. */
        memset(big, '#', sizeof(big));
        memcpy(big, "[Seed]\nCredit=no\n", 18);
        test_write(root, CONF_FILE, big, sizeof(big), 0644);
        assert_true(load_disables_credit());
        test_write(root, CONF_FILE, "[Seed]\nCredit=no\n\0\n", 20, 0644);
        assert_true(load_disables_credit());
        /* A line that does not parse, in any key. */
        PUT(CONF_FILE, "[Seed]\nCredit=yes\nCreditt=no\n");
        assert_true(load_disables_credit());
        PUT(CONF_FILE, "[Seed]\nCredit=yes\n");
        assert_false(load_disables_credit());
        /* A drop-in that is not a file, or is a link out of the root's reach. */
        PUT(CONF_DROPIN_DIR "/10-x.conf", "[Seed]\nCredit=yes\n");
        assert_false(load_disables_credit());
        snprintf(p, sizeof(p), "%s%s/20-loop.conf", root, CONF_DROPIN_DIR);
        assert_int_equal(symlink("20-loop.conf", p), 0);
        assert_true(load_disables_credit());
        assert_int_equal(unlink(p), 0);
        /* Masked by its text, in an image's tree whose /dev is empty until
         * it boots (dracut --sysroot=, provision), as on the booted system;
         * a link to another name there leads to nothing. */
        assert_int_equal(symlink("/dev/null", p), 0);
        assert_false(load_disables_credit());
        assert_int_equal(unlink(p), 0);
        assert_int_equal(symlink("/dev/nullx", p), 0);
        assert_true(load_disables_credit());
        assert_int_equal(unlink(p), 0);
        /* Masked as in systemd: a link to /dev/null is an empty file (a
         * device node in the test's root needs root to make). */
        if (geteuid() == 0) {
                assert_int_equal(symlink("/dev/null", p), 0);
                snprintf(cmd, sizeof(cmd), "mkdir -p '%s/dev' && cp -a /dev/null '%s/dev/null'", root, root);
                assert_int_equal(system(cmd), 0);
                assert_false(load_disables_credit());
                assert_int_equal(unlink(p), 0);
        }
        /* A symlinked configuration file is followed, inside the root. */
        snprintf(p, sizeof(p), "%s%s/10-x.conf", root, CONF_DROPIN_DIR);
        assert_int_equal(unlink(p), 0);
        PUT("/srv/eg.conf", "[Seed]\nCredit=no\n");
        snprintf(p, sizeof(p), "%s%s", root, CONF_FILE);
        assert_int_equal(unlink(p), 0);
        assert_int_equal(symlink("/srv/eg.conf", p), 0);
        assert_true(load_disables_credit());
        /* The kernel command line cannot be read: it may have said no. */
        assert_int_equal(unlink(p), 0);
        snprintf(p, sizeof(p), "%s/proc/cmdline", root);
        assert_int_equal(unlink(p), 0);
        assert_int_equal(mkdir(p, 0755), 0);
        assert_true(load_disables_credit());

        /* Environment variables move nothing. */
        assert_int_equal(rmdir(p), 0);
        setenv("ENTROPY_GATE_CONF", "/nonexistent", 1);
        setenv("ENTROPY_GATE_PROC_CMDLINE", "entropy_gate.credit=0", 1);
        assert_false(load_disables_credit());
        unsetenv("ENTROPY_GATE_CONF");
        unsetenv("ENTROPY_GATE_PROC_CMDLINE");

        root_set(NULL);
        test_rm_rf(root);
}

/* config_write_initrd(): what the initrd generators' hooks put into an
 * initrd, parsed again by the loader there, gives the same settings; a
 * broken configuration stays broken, whatever the kernel command line
 * says there; Credit=no stays one that the command line may turn on. */
static void parse_written(const Config *c, Config *ret) {
        char *text = NULL;
        size_t size = 0;
        unsigned n = 0;
        FILE *f = open_memstream(&text, &size);

        assert_non_null(f);
        assert_int_equal(config_write_initrd(c, f), 0);
        assert_int_equal(fclose(f), 0);
        assert_int_equal(config_init(ret), 0);
        assert_int_equal(config_parse_text(ret, text, "initrd.conf", ignore_warning, &n), 0);
        assert_int_equal(n, c->broken ? 1 : 0);
        free(text);
}

static void test_write_initrd(void **state) {
        static const char *const texts[] = {
                "",
                "[Gate]\nTimeout=1min 30.5s\nOnTimeout=proceed\nWarnAfter=infinity\n"
                "[Seed]\nDirectory=/var/lib/a b#c\nCreditWithoutMachineId=yes\n"
                "CreditCredentialWithoutMemory=yes\nCredit=no\n",
                "[Gate]\nTimeout=1us\nWarnAfter=0\n",
                /* Sums the parser takes whose total, as one number of
                 * microseconds, it refuses (it reads each number apart). */
                "[Gate]\nTimeout=18446744073709s 551614us\nWarnAfter=18446744073709551609us 5us\n",
                "[Seed]\nCredit=perhaps\nCredit=yes\n",
                "[Gate]\nTimeout=soon\n[Seed]\nCreditCredentialWithoutMemory=yes\n",
        };
        unsigned n = 0;

        for (size_t i = 0; i < ELEMENTSOF(texts); i++) {
                Config c, w;

                assert_int_equal(config_init(&c), 0);
                n = 0;
                assert_int_equal(config_parse_text(&c, texts[i], "f.conf", ignore_warning, &n), 0);
                /* A line that does not parse breaks the file (load_one()). */
                assert_true(i >= 4 || n == 0);
                if (i >= 4 && !c.broken)
                        c.broken = strdup("f.conf does not parse cleanly");
                parse_written(&c, &w);
                assert_true(w.timeout == c.timeout);
                assert_int_equal(w.on_timeout, c.on_timeout);
                assert_true(w.warn_after == c.warn_after);
                assert_string_equal(w.seed_dir, c.seed_dir);
                assert_int_equal(w.credit_without_machine_id, c.credit_without_machine_id);
                assert_int_equal(w.credit_credential_without_memory, c.credit_credential_without_memory);
                assert_int_equal(config_credit_disabled_by(&w) != NULL, config_credit_disabled_by(&c) != NULL);
                assert_int_equal(w.broken != NULL, c.broken != NULL);
                /* Only a broken configuration keeps crediting off against
                 * entropy_gate.credit=1 on the initrd's command line. */
                assert_int_equal(config_apply_cmdline(&w, "entropy_gate.credit=1", ignore_warning, &n), 0);
                assert_int_equal(config_credit_disabled_by(&w) != NULL, c.broken != NULL);
                config_done(&w);
                config_done(&c);
        }
}

/* Settings that would not read back as written (no file parses to a
 * Directory= with a newline; a Config can hold one): written broken. */
static void test_write_initrd_checked(void **state) {
        char *text = NULL;
        size_t size = 0;
        unsigned n = 0;
        FILE *f = open_memstream(&text, &size);
        Config c, w;

        assert_non_null(f);
        assert_int_equal(config_init(&c), 0);
        c.credit = false;
        c.seed_dir = strdup("/a\n[Gate]");
        assert_int_equal(config_write_initrd(&c, f), 1);
        assert_int_equal(fclose(f), 0);
        assert_non_null(strstr(text, "\nCredit=broken"));
        assert_int_equal(config_init(&w), 0);
        assert_int_equal(config_parse_text(&w, text, "initrd.conf", ignore_warning, &n), 0);
        assert_non_null(w.broken);
        config_done(&w);
        config_done(&c);
        free(text);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_defaults),
                cmocka_unit_test(test_cmdline),
                cmocka_unit_test(test_parse_boolean),
                cmocka_unit_test(test_credit_origin),
                cmocka_unit_test(test_credit_fail_closed),
                cmocka_unit_test(test_credential_without_memory),
                cmocka_unit_test(test_load_fail_closed),
                cmocka_unit_test(test_write_initrd),
                cmocka_unit_test(test_write_initrd_checked),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
