// SPDX-License-Identifier: LGPL-2.1-or-later
/* The pager: how $SYSTEMD_PAGER and $PAGER are split into a command, how
 * many rows output takes (a pager only for what does not fit), and that no
 * pager starts when standard output is not a terminal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "macro.h"
#include "pager.h"

static void test_split(void **state) {
        char buf[64], *argv[4];

        assert_int_equal(pager_split("less", buf, sizeof(buf), argv, ELEMENTSOF(argv)), 1);
        assert_string_equal(argv[0], "less");
        assert_null(argv[1]);

        assert_int_equal(pager_split("  less\t-S  -R\n", buf, sizeof(buf), argv, ELEMENTSOF(argv)), 3);
        assert_string_equal(argv[0], "less");
        assert_string_equal(argv[1], "-S");
        assert_string_equal(argv[2], "-R");
        assert_null(argv[3]);

        assert_int_equal(pager_split("", buf, sizeof(buf), argv, ELEMENTSOF(argv)), 0);
        assert_null(argv[0]);
        assert_int_equal(pager_split(" \t", buf, sizeof(buf), argv, ELEMENTSOF(argv)), 0);

        /* Too many words, too long: refused, never cut. */
        assert_int_equal(pager_split("a b c d", buf, sizeof(buf), argv, ELEMENTSOF(argv)), -E2BIG);
        assert_int_equal(pager_split("0123456789012345678901234567890123456789012345678901234567890123",
                                     buf, sizeof(buf), argv, ELEMENTSOF(argv)), -E2BIG);
}

static void test_rows(void **state) {
        static const struct { const char *text; unsigned columns; size_t rows; } t[] = {
                { "", 80, 0 },
                { "\n", 80, 1 },
                { "a\nb\n", 80, 2 },
                { "a\nb", 80, 2 },                       /* no final newline */
                { "0123456789\n", 10, 1 },
                { "0123456789a\n", 10, 2 },              /* wraps */
                { "0123456789012345678901\n", 10, 3 },
                /* Colour takes no room; UTF-8 is one column a character. */
                { "\x1b[0;1;32m0123456789\x1b[0m\n", 10, 1 },
                { "caf\xc3\xa9" "caf\xc3\xa9" "ca\n", 10, 1 },
                { "x\n", 0, 1 },                          /* unknown width: 80 */
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                print_message("case %zu\n", i);
                assert_int_equal(text_rows(t[i].text, strlen(t[i].text), t[i].columns), t[i].rows);
        }
}

static void test_not_a_terminal(void **state) {
        /* The test runner's standard output is a file or a pipe: no pager,
         * whatever the environment asks for. */
        assert_int_equal(setenv("SYSTEMD_PAGER", "false", 1), 0);
        assert_int_equal(pager_open(false), 0);
        pager_close();
        assert_int_equal(pager_open(true), 0);
        pager_close();
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_split),
                cmocka_unit_test(test_rows),
                cmocka_unit_test(test_not_a_terminal),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
