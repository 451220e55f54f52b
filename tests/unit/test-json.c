// SPDX-License-Identifier: LGPL-2.1-or-later
/* The JSON writer behind entropyctl --json: escaping of every kind of
 * string, and the shape of nested output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "json.h"
#include "macro.h"

static char *escaped(const char *s) {
        static char buf[4096];
        FILE *f = fmemopen(buf, sizeof(buf), "w");

        assert_non_null(f);
        json_escape(f, s);
        assert_int_equal(fclose(f), 0);
        return buf;
}

static void test_escape(void **state) {
        static const struct { const char *in, *out; } t[] = {
                { "", "\"\"" },
                { "plain", "\"plain\"" },
                { "a\"b\\c", "\"a\\\"b\\\\c\"" },
                { "\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"" },
                { "\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"" },
                { "/", "\"/\"" },
                /* Valid UTF-8 passes: 2, 3 and 4 bytes. */
                { "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\x91", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\x91\"" },
                /* Invalid: a stray continuation, a bad lead byte, truncated sequences. */
                { "\x80", "\"\\ufffd\"" },
                { "\xff\xfe", "\"\\ufffd\\ufffd\"" },
                { "\xc3", "\"\\ufffd\"" },
                { "\xe2\x82", "\"\\ufffd\\ufffd\"" },
                { "\xc3(", "\"\\ufffd(\"" },
                /* Overlong encodings of '/' and NUL, a surrogate, beyond U+10FFFF. */
                { "\xc0\xaf", "\"\\ufffd\\ufffd\"" },
                { "\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"" },
                { "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },
                { "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" },
                /* C1 controls are escaped (U+009B is CSI); U+00A0 is not one. */
                { "\xc2\x9b\xc2\x80\xc2\x9f\xc2\xa0", "\"\\u009b\\u0080\\u009f\xc2\xa0\"" },
                /* The largest valid code point. */
                { "\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\"" },
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                print_message("case %zu\n", i);
                assert_string_equal(escaped(t[i].in), t[i].out);
        }
}

/* The same document in @format, as written. */
static const char *write_document(JsonFormat format) {
        static char buf[4096];
        FILE *f = fmemopen(buf, sizeof(buf), "w");
        JsonWriter j;

        assert_non_null(f);
        json_init(&j, f, format);
        json_object_begin(&j, NULL);
        json_int(&j, "i", -5);
        json_uint(&j, "u", UINT64_MAX);
        json_bool(&j, "t", true);
        json_null(&j, "n");
        json_string(&j, "s", NULL);
        json_array_begin(&j, "empty");
        json_array_end(&j);
        json_object_begin(&j, "o");
        json_array_begin(&j, "a");
        json_string(&j, NULL, "x");
        json_bool(&j, NULL, false);
        json_array_end(&j);
        json_object_end(&j);
        json_object_end(&j);
        assert_int_equal(fclose(f), 0);
        return buf;
}

static void test_writer(void **state) {
        assert_string_equal(write_document(JSON_FORMAT_PRETTY),
                "{\n"
                "  \"i\": -5,\n"
                "  \"u\": 18446744073709551615,\n"
                "  \"t\": true,\n"
                "  \"n\": null,\n"
                "  \"s\": null,\n"
                "  \"empty\": [],\n"
                "  \"o\": {\n"
                "    \"a\": [\n"
                "      \"x\",\n"
                "      false\n"
                "    ]\n"
                "  }\n"
                "}\n");
}

static void test_writer_short(void **state) {
        /* One line, as systemd's --json=short: for scripts and for jq -c alike. */
        assert_string_equal(write_document(JSON_FORMAT_SHORT),
                "{\"i\":-5,\"u\":18446744073709551615,\"t\":true,\"n\":null,\"s\":null,"
                "\"empty\":[],\"o\":{\"a\":[\"x\",false]}}\n");
}

/* A path may hold any byte but NUL: what is not valid UTF-8 goes out as the
 * array of its bytes, losslessly; valid text stays a string. */
static void test_string_bytes(void **state) {
        static char buf[512];
        FILE *f = fmemopen(buf, sizeof(buf), "w");
        JsonWriter j;

        assert_non_null(f);
        json_init(&j, f, JSON_FORMAT_SHORT);
        json_object_begin(&j, NULL);
        json_string(&j, "bad", "/a\xff\n");
        json_string(&j, "c1", "/\x9b" "x");
        json_string(&j, "ok", "/tab\there/caf\xc3\xa9\n");
        json_object_end(&j);
        assert_int_equal(fclose(f), 0);
        assert_string_equal(buf, "{\"bad\":[47,97,255,10],\"c1\":[47,155,120],"
                                 "\"ok\":\"/tab\\there/caf\xc3\xa9\\n\"}\n");

        f = fmemopen(buf, sizeof(buf), "w");
        assert_non_null(f);
        json_init(&j, f, JSON_FORMAT_PRETTY);
        json_string(&j, NULL, "\xc3");
        assert_int_equal(fclose(f), 0);
        assert_string_equal(buf, "[195]");
}

static void test_format_names(void **state) {
        assert_int_equal(json_format_from_string("off"), JSON_FORMAT_OFF);
        assert_int_equal(json_format_from_string("short"), JSON_FORMAT_SHORT);
        assert_int_equal(json_format_from_string("pretty"), JSON_FORMAT_PRETTY);
        assert_int_equal(json_format_from_string("Pretty"), -EINVAL);
        assert_int_equal(json_format_from_string(""), -EINVAL);
        assert_int_equal(json_format_from_string(NULL), -EINVAL);
        for (int i = 0; i < _JSON_FORMAT_MAX; i++)
                assert_int_equal(json_format_from_string(json_format_to_string(i)), i);
        assert_null(json_format_to_string(_JSON_FORMAT_MAX));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_escape),
                cmocka_unit_test(test_string_bytes),
                cmocka_unit_test(test_writer),
                cmocka_unit_test(test_writer_short),
                cmocka_unit_test(test_format_names),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
