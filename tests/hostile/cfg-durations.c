// SPDX-License-Identifier: LGPL-2.1-or-later
/* A duration says how long the boot waits for the pool (--timeout=,
 * Timeout=, entropy_gate.timeout=, OpenWrt's timeout option). Attack: a
 * value just below the largest a usec_t holds, with a fraction, whose sum
 * wrapped past 2^64: "18446744073709.9s", meant as "for ever", waited
 * 0.35 s, and with OnTimeout=proceed the boot went on unseeded. A duration
 * is what it says or refused, never a smaller number. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "config.h"
#include "time-util.h"

/* Each is at least @at_least µs if it parses at all. */
static const struct {
        const char *in;
        usec_t at_least;
} huge[] = {
        { "18446744073709.9s",        18446744073709ULL * USEC_PER_SEC },
        { "18446744073709.999999s",   18446744073709ULL * USEC_PER_SEC },
        { "18446744073709551.9ms",    18446744073709551ULL * USEC_PER_MSEC },
        { "307445734561.9min",        307445734561ULL * USEC_PER_MINUTE },
        { "5124095576.99h",           5124095576ULL * USEC_PER_HOUR },
        { "5124095576h 59min",        5124095576ULL * USEC_PER_HOUR },
        { "18446744073709s 0.9s",     18446744073709ULL * USEC_PER_SEC },
        { "18446744073709551615us",   18446744073709551614ULL },
        { "18446744073709551614us",   18446744073709551614ULL },
};

static void test_parse_duration_never_wraps(void **state) {
        for (size_t i = 0; i < sizeof(huge) / sizeof(huge[0]); i++) {
                usec_t u = 7;
                int r = parse_duration(huge[i].in, &u);

                if (r < 0) {
                        assert_int_equal(r, -ERANGE);
                        assert_true(u == 7);
                } else if (u < huge[i].at_least) {
                        print_error("%s parsed as %llu us\n", huge[i].in, (unsigned long long) u);
                        fail();
                }
        }
}

/* "infinity" takes the space around it that "30s" takes: " 3s " was
 * 3 s, "infinity " was refused, and OpenWrt's script then waited its
 * default 30 s where the admin meant to hold the boot. */
static void test_infinity_with_space(void **state) {
        static const char *const good[] = { "infinity ", " infinity\n", "\tinfinity\t" };
        static const char *const bad[] = { "infinity x", "infinity 3s", "infinityinfinity" };

        for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
                usec_t u = 7;
                assert_int_equal(parse_duration(good[i], &u), 0);
                assert_true(u == USEC_INFINITY);
        }
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                usec_t u = 7;
                assert_true(parse_duration(bad[i], &u) < 0);
                assert_true(u == 7);
        }
}

/* The same values in the configuration file and on the kernel command
 * line: refused (the default, infinity, stays) or huge, never short. */
static void test_config_never_wraps(void **state) {
        for (size_t i = 0; i < sizeof(huge) / sizeof(huge[0]); i++) {
                char text[128], cmdline[128];
                Config c;

                snprintf(text, sizeof(text), "[Gate]\nTimeout=%s\n", huge[i].in);
                assert_int_equal(config_init(&c), 0);
                assert_int_equal(config_parse_text(&c, text, "test.conf", NULL, NULL), 0);
                assert_true(c.timeout >= huge[i].at_least);
                config_done(&c);

                snprintf(cmdline, sizeof(cmdline), "quiet \"entropy_gate.timeout=%s\"", huge[i].in);
                assert_int_equal(config_init(&c), 0);
                assert_int_equal(config_apply_cmdline(&c, cmdline, NULL, NULL), 0);
                assert_true(c.timeout >= huge[i].at_least);
                config_done(&c);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_duration_never_wraps),
                cmocka_unit_test(test_config_never_wraps),
                cmocka_unit_test(test_infinity_with_space),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
