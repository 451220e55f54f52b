// SPDX-License-Identifier: LGPL-2.1-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "time-util.h"

static void test_parse_duration_good(void **state) {
        static const struct {
                const char *in;
                usec_t out;
        } table[] = {
                { "10",         10 * USEC_PER_SEC },
                { "0",          0 },
                { "10s",        10 * USEC_PER_SEC },
                { "500ms",      500 * USEC_PER_MSEC },
                { "2min",       2 * USEC_PER_MINUTE },
                { "1h",         USEC_PER_HOUR },
                { "1.5s",       1500 * USEC_PER_MSEC },
                { "1min 30s",   90 * USEC_PER_SEC },
                { "1min30s",    90 * USEC_PER_SEC },
                { " 3s ",       3 * USEC_PER_SEC },
                { "infinity",   USEC_INFINITY },
                { "250us",      250 },
                { "200msec",    200 * USEC_PER_MSEC },
        };
        for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
                usec_t u = 7;
                assert_int_equal(parse_duration(table[i].in, &u), 0);
                assert_true(u == table[i].out);
        }
}

static void test_parse_duration_bad(void **state) {
        static const char *const bad[] = {
                "", " ", "s", "ms", "-1", "-1s", "1x", "10 s", "1.2.3", "abc", "1min 30",
                "infinityx", "Infinity", "1e3", "0x10", "10ss", "99999999999999999999",
                "18446744073709551615s", "1,5s", "+5", "5s,",
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                usec_t u = 7;
                assert_true(parse_duration(bad[i], &u) < 0);
                assert_true(u == 7); /* untouched on failure */
        }
        assert_true(parse_duration(NULL, &(usec_t) {0}) < 0);
}

static void test_format_duration(void **state) {
        assert_string_equal(FORMAT_DURATION(0), "0.000s");
        assert_string_equal(FORMAT_DURATION(4 * USEC_PER_MSEC), "0.004s");
        assert_string_equal(FORMAT_DURATION(1250 * USEC_PER_MSEC), "1.250s");
        assert_string_equal(FORMAT_DURATION(123 * USEC_PER_SEC), "2min 3.000s");
        assert_string_equal(FORMAT_DURATION(USEC_INFINITY), "infinity");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_duration_good),
                cmocka_unit_test(test_parse_duration_bad),
                cmocka_unit_test(test_format_duration),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
