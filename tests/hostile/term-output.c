// SPDX-License-Identifier: LGPL-2.1-or-later
/* entropyctl shows names from an image and text from files and logs that
 * someone else wrote. Attacks on the terminal and on JSON readers: C1
 * controls (U+009B is CSI, U+009D OSC) as UTF-8 and as raw bytes, invalid
 * UTF-8, a name that spells an escape, a path of PATH_MAX bytes. Nothing a
 * terminal acts on may get through, and no byte may be lost or confused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "json.h"
#include "macro.h"
#include "plot.h"
#include "terminal.h"

/* Does @s hold anything a terminal acts on: C0, DEL, C1 as UTF-8 (0xc2
 * 0x80..0x9f) or as a raw byte (0x80..0x9f where no sequence continues)? */
static bool terminal_active(const char *s) {
        const unsigned char *p = (const unsigned char *) s;

        for (size_t i = 0; p[i]; i++) {
                if (p[i] < 0x20 || p[i] == 0x7f)
                        return true;
                if (p[i] == 0xc2 && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f)
                        return true;
                if (p[i] >= 0x80 && p[i] <= 0x9f && (i == 0 || p[i - 1] < 0x80))
                        return true;
        }
        return false;
}

static void test_c1_utf8(void **state) {
        /* CSI 2 J (clear screen) and OSC 0 ; title BEL, as UTF-8 code points. */
        assert_false(terminal_active(TERMINAL_ESCAPE("/var/lib/\xc2\x9b" "2J")));
        assert_false(terminal_active(TERMINAL_ESCAPE("\xc2\x9d" "0;owned\xc2\x9c")));
}

static void test_c1_raw(void **state) {
        /* The same as single bytes, which 8-bit terminals take as C1. */
        assert_false(terminal_active(TERMINAL_ESCAPE("/var/lib/\x9b" "2J")));
        assert_false(terminal_active(TERMINAL_ESCAPE("\x9d" "0;owned\x07")));
}

static void test_invalid_utf8(void **state) {
        /* A lead byte that would swallow the next character, and a lone
         * continuation byte: both escaped, the text after them intact. */
        assert_string_equal(TERMINAL_ESCAPE("a\xe2" "b\x80" "c"), "a\\xe2b\\x80c");
}

static void test_spelled_escape(void **state) {
        /* A name that spells "\x1b" must not look like one that holds ESC. */
        char a[64], b[64];

        snprintf(a, sizeof(a), "%s", TERMINAL_ESCAPE("seed\\x1b"));
        snprintf(b, sizeof(b), "%s", TERMINAL_ESCAPE("seed\x1b"));
        assert_string_not_equal(a, b);
}

static void test_bidi(void **state) {
        /* RIGHT-TO-LEFT OVERRIDE: "/x/\u202edees" shows as "/x/seed". The
         * isolates and separators likewise: escaped, never shown as such. */
        assert_string_equal(TERMINAL_ESCAPE("/x/\xe2\x80\xae" "dees"), "/x/\\xe2\\x80\\xaedees");
        assert_string_equal(TERMINAL_ESCAPE("\xe2\x81\xa6" "a\xe2\x80\xa8"), "\\xe2\\x81\\xa6a\\xe2\\x80\\xa8");
        /* Text around them is untouched. */
        assert_string_equal(TERMINAL_ESCAPE("caf\xc3\xa9 \xe2\x82\xac"), "caf\xc3\xa9 \xe2\x82\xac");
}

static void test_long_path(void **state) {
        /* PATH_MAX - 1 bytes of raw CSI: shown whole, never cut short. */
        static char in[4096];
        const char *e;

        memset(in, '\x9b', sizeof(in) - 1);
        e = TERMINAL_ESCAPE(in);
        assert_int_equal(strlen(e), 4 * (sizeof(in) - 1));
        assert_false(terminal_active(e));
}

static void test_json_lossless(void **state) {
        /* Two paths that differ only in invalid bytes must come out
         * different, and as what they hold. */
        static char a[256], b[256];
        FILE *f;
        JsonWriter j;

        f = fmemopen(a, sizeof(a), "w");
        json_init(&j, f, JSON_FORMAT_SHORT);
        json_string(&j, NULL, "/x\xff");
        assert_int_equal(fclose(f), 0);
        f = fmemopen(b, sizeof(b), "w");
        json_init(&j, f, JSON_FORMAT_SHORT);
        json_string(&j, NULL, "/x\xfe");
        assert_int_equal(fclose(f), 0);
        assert_string_not_equal(a, b);
        assert_string_equal(a, "[47,120,255]");

        /* C1 inside an otherwise valid string: escaped, not raw. */
        f = fmemopen(a, sizeof(a), "w");
        json_init(&j, f, JSON_FORMAT_SHORT);
        json_string(&j, NULL, "\xc2\x9b" "2J");
        assert_int_equal(fclose(f), 0);
        assert_string_equal(a, "\"\\u009b2J\"");
}

/* Anything a terminal acts on in a document that keeps its newlines: C1
 * as UTF-8, and the bidirectional overrides, isolates and separators. */
static bool c1_or_bidi(const char *s) {
        const unsigned char *p = (const unsigned char *) s;

        for (size_t i = 0; p[i]; i++) {
                if (p[i] == 0xc2 && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f)
                        return true;
                if (p[i] == 0xe2 && p[i + 1] == 0x80 && p[i + 2] >= 0xa8 && p[i + 2] <= 0xae)
                        return true;
                if (p[i] == 0xe2 && p[i + 1] == 0x81 && p[i + 2] >= 0xa6 && p[i + 2] <= 0xa9)
                        return true;
        }
        return false;
}

static void test_plot_svg(void **state) {
        /* A saved timeline from anywhere, drawn to standard output, which
         * may be a terminal: its texts and names become SVG text. */
        PlotBoot b = {
                .label = "boot\xc2\x9d" "0;owned\xc2\x9c",
                .seed_verdict = "credited\xc2\x9b" "2J\xc2\x9b" "31m",
                .gate_verdict = "ready \xe2\x80\xae" "deliaf",
                .provenance = "\xe2\x81\xa6" "x\xe2\x80\xa8",
                .units = { { .name = "u\xc2\x9b" "1;31mZ", .span = { 1000, 2000 } } },
                .n_units = 1,
                .end = 2000,
        };
        char *text = NULL;
        size_t size = 0;
        FILE *f;

        f = open_memstream(&text, &size);
        assert_non_null(f);
        plot_write_svg(f, &b, 1);
        assert_int_equal(fclose(f), 0);
        assert_false(c1_or_bidi(text));
        /* What is around them stays. */
        assert_non_null(strstr(text, "credited 2J 31m"));
        assert_non_null(strstr(text, "u 1;31mZ"));
        free(text);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_c1_utf8),
                cmocka_unit_test(test_c1_raw),
                cmocka_unit_test(test_invalid_utf8),
                cmocka_unit_test(test_spelled_escape),
                cmocka_unit_test(test_bidi),
                cmocka_unit_test(test_long_path),
                cmocka_unit_test(test_json_lossless),
                cmocka_unit_test(test_plot_svg),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
