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
        /* Cut short, never in the middle of an escape, and visibly. */
        assert_string_equal(terminal_escape("abcdefg", small, sizeof(small)), "abcdefg");
        assert_string_equal(terminal_escape("abcdefghij", small, sizeof(small)), "abcd...");
        assert_string_equal(terminal_escape("\x01", small, sizeof(small)), "\\x01");
        assert_string_equal(terminal_escape("\x01\x02", small, sizeof(small)), "\\x01...");
}

/* Escaped text back to bytes: the escaping must be lossless. */
static char *unescape(const char *s, char *buf) {
        char *o = buf;

        while (*s) {
                if (s[0] == '\\' && s[1] == '\\') {
                        *o++ = '\\';
                        s += 2;
                } else if (s[0] == '\\' && s[1] == 'x') {
                        unsigned v;
                        assert_int_equal(sscanf(s + 2, "%2x", &v), 1);
                        *o++ = (char) v;
                        s += 4;
                } else {
                        assert_true((unsigned char) *s >= 0x20 && *s != 0x7f);
                        *o++ = *s++;
                }
        }
        *o = 0;
        return buf;
}

static void test_escape_controls(void **state) {
        static const struct { const char *in, *out; } t[] = {
                /* C1 as UTF-8: U+009B (CSI), U+0080, U+009F; U+00A0 is not one. */
                { "a\xc2\x9b" "2Jb", "a\\xc2\\x9b2Jb" },
                { "\xc2\x80\xc2\x9f\xc2\xa0", "\\xc2\\x80\\xc2\\x9f\xc2\xa0" },
                /* C1 as raw bytes, and every other invalid byte. */
                { "\x9b" "31m", "\\x9b31m" },
                { "\x80\xff\xc3(", "\\x80\\xff\\xc3(" },
                /* Overlong, surrogate, beyond U+10FFFF, cut short. */
                { "\xc0\xaf", "\\xc0\\xaf" },
                { "\xed\xa0\x80", "\\xed\\xa0\\x80" },
                { "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80" },
                { "\xe2\x82", "\\xe2\\x82" },
                /* Valid text passes; a backslash is doubled. */
                { "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\x91", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\x91" },
                { "a\\x41", "a\\\\x41" },
                { "tab\there\nnewline", "tab\\x09here\\x0anewline" },
        };
        char back[256];

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                const char *e = TERMINAL_ESCAPE(t[i].in);

                print_message("case %zu\n", i);
                assert_string_equal(e, t[i].out);
                assert_string_equal(unescape(e, back), t[i].in);
        }

        /* Every byte, every pair of bytes: nothing a terminal acts on gets
         * through, and the bytes come back. */
        for (unsigned a = 1; a < 256; a++)
                for (unsigned b = 0; b < 256; b++) {
                        char in[3] = { (char) a, (char) b, 0 };
                        const char *e = TERMINAL_ESCAPE(in);

                        for (const unsigned char *p = (const unsigned char *) e; *p; p++) {
                                assert_true(*p >= 0x20 && *p != 0x7f);
                                if (*p == 0xc2)
                                        assert_true(p[1] >= 0xa0);
                        }
                        assert_string_equal(unescape(e, back), in);
                }
}

/* A path of PATH_MAX bytes, all of them escaped, is never cut. */
static void test_escape_long_path(void **state) {
        char in[4096];
        const char *e;

        memset(in, '\x9b', sizeof(in) - 1);
        in[sizeof(in) - 1] = 0;
        e = TERMINAL_ESCAPE(in);
        assert_int_equal(strlen(e), 4 * (sizeof(in) - 1));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_decide),
                cmocka_unit_test(test_sequences),
                cmocka_unit_test(test_escape),
                cmocka_unit_test(test_escape_controls),
                cmocka_unit_test(test_escape_long_path),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
