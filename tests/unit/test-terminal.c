// SPDX-License-Identifier: LGPL-2.1-or-later
/* When entropyctl colours its output: NO_COLOR always wins, SYSTEMD_COLORS
 * decides as in systemd, TERM=dumb has none, else only a terminal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "macro.h"
#include "terminal.h"

static void test_decide(void **state) {
        static const struct {
                const char *no_color, *systemd_colors, *term;
                bool tty, want;
        } t[] = {
                { NULL, NULL, "xterm", true, true },
                { NULL, NULL, "xterm", false, false },
                { NULL, NULL, NULL, true, true },
                /* NO_COLOR set, to anything: never, whatever else says. */
                { "1", NULL, "xterm", true, false },
                { "", NULL, "xterm", true, false },
                { "1", "1", "xterm", true, false },
                { "1", "24bit", "xterm", false, false },
                /* SYSTEMD_COLORS: a boolean or a mode decides, even without a terminal. */
                { NULL, "0", "xterm", true, false },
                { NULL, "no", "xterm", true, false },
                { NULL, "false", "xterm", true, false },
                { NULL, "1", "xterm", false, true },
                { NULL, "yes", "dumb", false, true },
                { NULL, "16", NULL, false, true },
                { NULL, "256", NULL, false, true },
                { NULL, "24bit", NULL, false, true },
                /* Anything else leaves it to the terminal. */
                { NULL, "auto", "xterm", true, true },
                { NULL, "auto", "xterm", false, false },
                { NULL, "bogus", "xterm", true, true },
                /* A dumb terminal gets none. */
                { NULL, NULL, "dumb", true, false },
                { NULL, "auto", "dumb", true, false },
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                print_message("case %zu\n", i);
                assert_int_equal(colors_decide(t[i].no_color, t[i].systemd_colors, t[i].term, t[i].tty), t[i].want);
        }
}

static void test_sequences(void **state) {
        /* Standard output is not a terminal under the test runner. */
        assert_int_equal(unsetenv("SYSTEMD_COLORS"), 0);
        assert_int_equal(setenv("NO_COLOR", "1", 1), 0);
        colors_init();
        assert_false(colors_enabled());
        assert_string_equal(ansi_red(), "");
        assert_string_equal(ansi_normal(), "");

        assert_int_equal(unsetenv("NO_COLOR"), 0);
        assert_int_equal(setenv("SYSTEMD_COLORS", "1", 1), 0);
        colors_init();
        assert_true(colors_enabled());
        assert_string_equal(ansi_red(), "\x1B[0;1;31m");
        assert_string_equal(ansi_normal(), "\x1B[0m");
}

static void test_escape(void **state) {
        char small[8];

        assert_string_equal(TERMINAL_ESCAPE("plain /path caf\xc3\xa9"), "plain /path caf\xc3\xa9");
        assert_string_equal(TERMINAL_ESCAPE("\x1b[2Jgone\r\n\x7f"), "\\x1b[2Jgone\\x0d\\x0a\\x7f");
        assert_string_equal(TERMINAL_ESCAPE(""), "");
        /* Cut short, never in the middle of an escape. */
        assert_string_equal(terminal_escape("abcdefghij", small, sizeof(small)), "abc");
        assert_string_equal(terminal_escape("\x01\x02", small, sizeof(small)), "\\x01");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_decide),
                cmocka_unit_test(test_sequences),
                cmocka_unit_test(test_escape),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
