// SPDX-License-Identifier: LGPL-2.1-or-later
/* The JSON reader behind "entropyctl plot FILE": what it accepts, what it
 * refuses and why, and a timeline written by the writer read back whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "json-parse.h"
#include "macro.h"
#include "timeline.h"

static void test_values(void **state) {
        JsonValue *v;
        char error[128];
        uint64_t u;

        assert_int_equal(json_parse(" {\"a\": [1, true, null, \"x\\u00e9\\ud83d\\udd11\\n\"], \"b\": {}} ",
                                    &v, error, sizeof error), 0);
        assert_int_equal(v->type, JSON_OBJECT);
        assert_int_equal(v->n, 2);
        const JsonValue *a = json_object_get(v, "a");
        assert_non_null(a);
        assert_int_equal(a->type, JSON_ARRAY);
        assert_int_equal(a->n, 4);
        assert_int_equal(json_value_uint64(a->items + 0, &u), 0);
        assert_int_equal(u, 1);
        assert_true(a->items[1].type == JSON_BOOL && a->items[1].boolean);
        assert_int_equal(a->items[2].type, JSON_NULL);
        assert_string_equal(a->items[3].string, "x\xc3\xa9\xf0\x9f\x94\x91\n");
        assert_int_equal(json_object_get(v, "b")->type, JSON_OBJECT);
        assert_null(json_object_get(v, "c"));
        json_value_free(v);

        assert_int_equal(json_parse("18446744073709551615", &v, error, sizeof error), 0);
        assert_int_equal(json_value_uint64(v, &u), 0);
        assert_true(u == UINT64_MAX);
        json_value_free(v);
        /* Not a non-negative integer that fits. */
        static const char *const not_uint[] = { "18446744073709551616", "-1", "1.5", "1e3", "\"1\"" };
        for (size_t i = 0; i < ELEMENTSOF(not_uint); i++) {
                assert_int_equal(json_parse(not_uint[i], &v, error, sizeof error), 0);
                assert_int_equal(json_value_uint64(v, &u), -EINVAL);
                json_value_free(v);
        }
}

static void test_refused(void **state) {
        static const char *const bad[] = {
                "", " ", "{", "[1,]", "{\"a\" 1}", "{\"a\":1,}", "[1 2]", "tru", "nul", "01", "1.", "-", "1e",
                "\"abc", "\"a\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\u0000\"", "\"a\tb\"",
                "{} x", "[\"\\ud800\\u0041\"]", "{1:2}",
        };
        char error[128];
        JsonValue *v = NULL;

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                error[0] = 0;
                assert_int_equal(json_parse(bad[i], &v, error, sizeof error), -EBADMSG);
                assert_non_null(startswith(error, "offset "));
        }
        /* Nesting is bounded, whatever the file's size. */
        char deep[2 * JSON_PARSE_DEPTH_MAX + 8] = "";
        for (int i = 0; i <= JSON_PARSE_DEPTH_MAX; i++)
                strcat(deep, "[");
        assert_int_equal(json_parse(deep, &v, error, sizeof error), -EBADMSG);
        assert_non_null(strstr(error, "nested deeper"));
}

static void test_timeline_roundtrip(void **state) {
        static const char doc[] =
                "{\"schema_version\": 1, \"future\": {\"x\": [1]}, \"events\": ["
                "{\"monotonic_usec\": 3000000, \"event\": \"crng-init-done\", \"source\": \"journal\", \"unit\": null,"
                " \"text\": \"kernel: random: crng init done\"},"
                "{\"monotonic_usec\": 0, \"event\": \"kernel-started\", \"source\": \"kernel\", \"unit\": null,"
                " \"text\": \"kernel started\"},"
                "{\"monotonic_usec\": 5, \"event\": \"from-the-future\", \"source\": \"x\", \"unit\": null, \"text\": \"\"},"
                "{\"monotonic_usec\": 4000000, \"event\": \"unit-started\", \"source\": \"elsewhere\","
                " \"unit\": \"ssh.service\", \"text\": \"ssh.service started\"}],"
                "\"not_found\": [{\"event\": \"seed-loaded\", \"text\": \"no seed\"}], \"notes\": [\"a note\"]}";
        Timeline t = {};
        char error[128] = "";
        char *out = NULL;
        size_t size = 0;
        FILE *f;

        assert_int_equal(timeline_from_json(&t, doc, error, sizeof error), 0);
        assert_int_equal(t.n, 3);                      /* the unknown kind skipped */
        assert_int_equal(t.events[0].kind, EVENT_KERNEL_STARTED);   /* sorted */
        assert_int_equal(t.events[1].kind, EVENT_CRNG_INIT_DONE);
        assert_true(t.events[1].usec == 3000000);
        assert_string_equal(t.events[2].unit, "ssh.service");
        assert_string_equal(t.events[2].source, "unknown");
        assert_int_equal(t.n_missing, 1);
        assert_int_equal(t.n_notes, 1);
        /* A file of an older version: no provenance, none read. */
        assert_false(t.have_provenance);
        t.have_provenance = true;
        t.provenance = PROVENANCE_JITTER;
        assert_int_equal(entropy_samples_parse("0:23 960:256", &t.entropy_avail), 0);
        t.entropy_avail_start = 2450000;
        t.provenance_text = strdup("most likely ready by the kernel's jitter generator after 1.000s of waiting");
        assert_non_null(t.provenance_text);

        /* What the writer makes of it, the reader reads back the same. */
        f = open_memstream(&out, &size);
        assert_non_null(f);
        timeline_write_json(&t, f, JSON_FORMAT_SHORT);
        assert_int_equal(fclose(f), 0);
        Timeline u = {};
        assert_int_equal(timeline_from_json(&u, out, error, sizeof error), 0);
        assert_int_equal(u.n, t.n);
        for (unsigned i = 0; i < t.n; i++) {
                assert_true(u.events[i].usec == t.events[i].usec);
                assert_int_equal(u.events[i].kind, t.events[i].kind);
                assert_string_equal(u.events[i].text, t.events[i].text);
        }
        assert_true(u.have_provenance);
        assert_int_equal(u.provenance, PROVENANCE_JITTER);
        assert_string_equal(u.provenance_text, t.provenance_text);
        assert_int_equal(u.entropy_avail.n, 2);
        assert_true(u.entropy_avail_start == 2450000);
        assert_int_equal(u.entropy_avail.s[1].msec, 960);
        assert_int_equal(u.entropy_avail.s[1].bits, 256);
        timeline_done(&u);
        /* Samples that go back in time, or too many bits: none taken, the rest drawn. */
        static const char *const bad_samples[] = {
                "{\"start_usec\": 1, \"samples\": [{\"msec\": 5, \"bits\": 1}, {\"msec\": 4, \"bits\": 2}]}",
                "{\"start_usec\": 1, \"samples\": [{\"msec\": 5, \"bits\": 65536}]}",
                "{\"start_usec\": -1, \"samples\": []}",
                "{\"start_usec\": 1, \"samples\": [{\"msec\": 4294967296, \"bits\": 1}]}",
                "{\"start_usec\": 1, \"samples\": \"0:1\"}",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad_samples); i++) {
                char doc2[512];
                Timeline x = {};

                snprintf(doc2, sizeof doc2, "{\"schema_version\": 1, \"events\": [], \"entropy_avail\": %s}",
                         bad_samples[i]);
                assert_int_equal(timeline_from_json(&x, doc2, error, sizeof error), 0);
                assert_int_equal(x.entropy_avail.n, 0);
                timeline_done(&x);
        }
        /* A verdict a newer version knows and this one does not: its text, as unknown. */
        Timeline n = {};
        assert_int_equal(timeline_from_json(&n, "{\"schema_version\": 1, \"events\": [], \"provenance\": "
                                            "{\"verdict\": \"quantum\", \"text\": \"ready by magic\"}}",
                                            error, sizeof error), 0);
        assert_true(n.have_provenance);
        assert_int_equal(n.provenance, PROVENANCE_UNKNOWN);
        assert_string_equal(n.provenance_text, "ready by magic");
        timeline_done(&n);
        /* null: none. */
        Timeline o = {};
        assert_int_equal(timeline_from_json(&o, "{\"schema_version\": 1, \"events\": [], \"provenance\": null}",
                                            error, sizeof error), 0);
        assert_false(o.have_provenance);
        timeline_done(&o);
        timeline_done(&t);
        free(out);

        /* Not a timeline. */
        Timeline w = {};
        assert_int_equal(timeline_from_json(&w, "[]", error, sizeof error), -EBADMSG);
        assert_int_equal(timeline_from_json(&w, "{\"schema_version\": 2, \"events\": []}", error, sizeof error), -EBADMSG);
        assert_non_null(strstr(error, "schema_version"));
        assert_int_equal(timeline_from_json(&w, "{\"schema_version\": 1, \"events\": [{\"event\": \"kernel-started\"}]}",
                                            error, sizeof error), -EBADMSG);
        assert_non_null(strstr(error, "events[0]"));
        timeline_done(&w);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_values),
                cmocka_unit_test(test_refused),
                cmocka_unit_test(test_timeline_roundtrip),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
