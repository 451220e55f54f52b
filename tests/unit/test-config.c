// SPDX-License-Identifier: LGPL-2.1-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "config.h"

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

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_defaults),
                cmocka_unit_test(test_cmdline),
                cmocka_unit_test(test_parse_boolean),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
