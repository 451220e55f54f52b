// SPDX-License-Identifier: LGPL-2.1-or-later
/* The configuration decides whether seeds are credited, and the gate and
 * the generator read it on every boot. Attacks on the loader: a file or a
 * drop-in (or the drop-in directory) that is a symbolic link to nothing
 * must fail closed, not count as absent; more drop-ins, bytes or units than
 * any system has must be an error that fails closed, never a long boot or a
 * silent subset; a byte order mark, which systemd accepts, must not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <unistd.h>

#include "config.h"
#include "paths.h"
#include "root.h"
#include "test-util.h"

/* As in config.h; spelled out so that this test builds against a tree
 * that has no caps at all, and fails there. */
#define DROPINS_MAX 1024
#define TOTAL_MAX (4 * 1024 * 1024)
#define UNITS_MAX 4096

static char root[PATH_MAX];
static unsigned n_warnings;
static char last_warning[1024];

static void record(void *userdata, const char *source, unsigned line, const char *message) {
        n_warnings++;
        snprintf(last_warning, sizeof(last_warning), "%s:%u: %s", source, line, message);
}

static int setup(void **state) {
        test_tmpdir(root, "eg-hostile-cfg");
        test_mkdir_p(root, "/proc/x");
        test_write(root, "/proc/cmdline", "quiet\n", 6, 0644);
        test_mkdir_p(root, CONF_DROPIN_DIR "/x");
        root_set(root);
        n_warnings = 0;
        last_warning[0] = 0;
        return 0;
}

static int teardown(void **state) {
        root_set(NULL);
        test_rm_rf(root);
        return 0;
}

static void in_root(const char *rel, char *buf) {
        int k = snprintf(buf, PATH_MAX, "%s%s", root, rel);

        assert_true(k > 0 && k < PATH_MAX);
}

static void load(Config *c) {
        assert_int_equal(config_load(c, record, NULL), 0);
}

static void test_dangling_file(void **state) {
        char p[PATH_MAX];
        Config c;

        in_root(CONF_FILE, p);
        assert_int_equal(symlink("/nonexistent/entropy-gate.conf", p), 0);
        load(&c);
        assert_non_null(c.broken);
        assert_non_null(strstr(c.broken, "entropy-gate.conf"));
        assert_non_null(config_credit_disabled_by(&c));
        config_done(&c);
}

static void test_dangling_dropin(void **state) {
        char p[PATH_MAX];
        Config c;

        in_root(CONF_DROPIN_DIR "/50-off.conf", p);
        assert_int_equal(symlink("../nowhere.conf", p), 0);
        load(&c);
        assert_non_null(c.broken);
        assert_non_null(strstr(c.broken, "50-off.conf"));
        config_done(&c);
}

static void test_dangling_dropin_dir(void **state) {
        char p[PATH_MAX];
        Config c;

        in_root(CONF_DROPIN_DIR, p);
        test_rm_rf(p);
        assert_int_equal(symlink("/nonexistent.d", p), 0);
        load(&c);
        assert_non_null(c.broken);
        assert_non_null(strstr(c.broken, "entropy-gate.conf.d"));
        config_done(&c);
}

static void test_symlink_loop(void **state) {
        char p[PATH_MAX];
        Config c;

        in_root(CONF_FILE, p);
        assert_int_equal(symlink(p, p), 0);
        load(&c);
        assert_non_null(c.broken);
        config_done(&c);
}

static void test_absent_is_fine(void **state) {
        Config c;

        load(&c);
        assert_null(c.broken);
        assert_int_equal(n_warnings, 0);
        config_done(&c);
}

static void test_bom(void **state) {
        static const char text[] = "\xef\xbb\xbf[Gate]\nTimeout=7s\n";
        Config c;

        test_write(root, CONF_FILE, text, sizeof(text) - 1, 0644);
        load(&c);
        assert_null(c.broken);
        assert_true(c.timeout == 7 * USEC_PER_SEC);
        config_done(&c);
}

static void test_too_many_dropins(void **state) {
        Config c;

        /* One of them says something: none may apply, and say so. */
        for (unsigned i = 0; i <= DROPINS_MAX; i++) {
                char rel[PATH_MAX];

                snprintf(rel, sizeof(rel), CONF_DROPIN_DIR "/%05u.conf", i);
                if (i == 0)
                        test_write(root, rel, "[Gate]\nTimeout=3s\n", 18, 0644);
                else
                        test_write(root, rel, "", 0, 0644);
        }
        load(&c);
        assert_non_null(c.broken);
        assert_true(c.timeout == USEC_INFINITY);
        config_done(&c);
}

static void test_too_many_bytes(void **state) {
        static char text[60 * 1024];
        unsigned n = TOTAL_MAX / sizeof(text) + 2;
        Config c;

        memset(text, '#', sizeof(text));
        for (size_t i = 100; i < sizeof(text); i += 100)
                text[i] = '\n';
        for (unsigned i = 0; i < n; i++) {
                char rel[PATH_MAX];

                snprintf(rel, sizeof(rel), CONF_DROPIN_DIR "/%03u.conf", i);
                test_write(root, rel, text, sizeof(text), 0644);
        }
        load(&c);
        assert_non_null(c.broken);
        config_done(&c);
}

static void test_too_many_units(void **state) {
        size_t size = 16 + (size_t) (UNITS_MAX + 1) * 12;
        _cleanup_free_ char *text = malloc(size);
        size_t o;
        Config c;

        assert_non_null(text);
        o = (size_t) snprintf(text, size, "[Gate]\nUnits=");
        for (unsigned i = 0; i <= UNITS_MAX; i++)
                o += (size_t) snprintf(text + o, size - o, "u%05u.sv ", i);
        test_write(root, CONF_FILE, text, o, 0644);
        load(&c);
        assert_non_null(c.broken);
        config_done(&c);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_dangling_file, setup, teardown),
                cmocka_unit_test_setup_teardown(test_dangling_dropin, setup, teardown),
                cmocka_unit_test_setup_teardown(test_dangling_dropin_dir, setup, teardown),
                cmocka_unit_test_setup_teardown(test_symlink_loop, setup, teardown),
                cmocka_unit_test_setup_teardown(test_absent_is_fine, setup, teardown),
                cmocka_unit_test_setup_teardown(test_bom, setup, teardown),
                cmocka_unit_test_setup_teardown(test_too_many_dropins, setup, teardown),
                cmocka_unit_test_setup_teardown(test_too_many_bytes, setup, teardown),
                cmocka_unit_test_setup_teardown(test_too_many_units, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
