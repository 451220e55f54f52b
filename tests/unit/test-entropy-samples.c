// SPDX-License-Identifier: LGPL-2.1-or-later
/* The gate's samples of entropy_avail: thinning when full, the last sample
 * kept, the text's round trip and its strict parser. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "entropy-samples.h"
#include "macro.h"

static void test_few(void **state) {
        EntropySamples s = {}, back;
        char buf[ENTROPY_SAMPLES_TEXT_MAX];

        assert_int_equal(entropy_samples_format(&s, buf, sizeof(buf)), 0);
        assert_string_equal(buf, "");
        entropy_samples_add(&s, 1200, 12);                 /* 1.2 ms: 1 */
        entropy_samples_add(&s, 1000 * USEC_PER_MSEC, 40);
        entropy_samples_add(&s, 2000 * USEC_PER_MSEC, 96);
        entropy_samples_add(&s, 1500 * USEC_PER_MSEC, 1);  /* back in time: ignored */
        entropy_samples_add_last(&s, 2345678, 256);
        assert_int_equal(entropy_samples_format(&s, buf, sizeof(buf)), (int) strlen("1:12 1000:40 2000:96 2345:256"));
        assert_string_equal(buf, "1:12 1000:40 2000:96 2345:256");
        assert_int_equal(entropy_samples_parse(buf, &back), 0);
        assert_int_equal(back.n, 4);
        assert_int_equal(back.s[3].msec, 2345);
        assert_int_equal(back.s[3].bits, 256);
        assert_int_equal(entropy_samples_format(&s, buf, 10), -ENOBUFS);
        assert_string_equal(buf, "");
}

static void test_thinning(void **state) {
        EntropySamples s = {}, back;
        char buf[ENTROPY_SAMPLES_TEXT_MAX];

        /* An hour of ticks: never more than the array, evenly thinned, the
         * first sample and the last one kept. */
        for (unsigned t = 0; t < 3600; t++) {
                entropy_samples_add(&s, (usec_t) t * USEC_PER_SEC, t % 4096);
                assert_true(s.n <= ENTROPY_SAMPLES_MAX);
        }
        entropy_samples_add_last(&s, 3600 * USEC_PER_SEC + 5000, 256);
        assert_true(s.n >= ENTROPY_SAMPLES_MAX / 2);
        assert_int_equal(s.s[0].msec, 0);
        assert_int_equal(s.s[s.n - 1].msec, 3600005);
        assert_int_equal(s.s[s.n - 1].bits, 256);
        for (unsigned i = 1; i + 1 < s.n; i++)
                assert_int_equal(s.s[i].msec - s.s[i - 1].msec, s.s[1].msec - s.s[0].msec);
        /* The worst case fits its text buffer. */
        for (unsigned i = 0; i < ENTROPY_SAMPLES_MAX; i++)
                s.s[i] = (EntropySample) { UINT32_MAX, ENTROPY_SAMPLES_BITS_MAX };
        s.n = ENTROPY_SAMPLES_MAX;
        assert_true(entropy_samples_format(&s, buf, sizeof(buf)) > 0);
        assert_int_equal(entropy_samples_parse(buf, &back), 0);
        assert_int_equal(back.n, ENTROPY_SAMPLES_MAX);
}

static void test_clamp(void **state) {
        EntropySamples s = {};

        entropy_samples_add(&s, UINT64_MAX, 1u << 20);
        assert_int_equal(s.s[0].msec, UINT32_MAX);
        assert_int_equal(s.s[0].bits, ENTROPY_SAMPLES_BITS_MAX);
}

static void test_parse_strict(void **state) {
        static const char *const bad[] = {
                " 1:2", "1:2 ", "1:2  3:4", "1:", ":2", "1", "1:2,3:4", "-1:2", "01:2", "1:02",
                "2:1 1:1", "1:65536", "4294967296:1", "1:2\n", "x",
                ("0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 "
                 "0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0"),  /* 33 */
        };
        EntropySamples s;

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                assert_int_equal(entropy_samples_parse(bad[i], &s), -EBADMSG);
                assert_int_equal(s.n, 0);
        }
        assert_int_equal(entropy_samples_parse("", &s), 0);
        assert_int_equal(s.n, 0);
        assert_int_equal(entropy_samples_parse("0:0 0:256 4294967295:65535", &s), 0);
        assert_int_equal(s.n, 3);
        /* The same rule for a sample read from elsewhere. */
        assert_int_equal(entropy_samples_push(&s, 4294967294, 1), -EBADMSG);  /* back in time */
        assert_int_equal(entropy_samples_push(&s, UINT64_C(4294967296), 1), -EBADMSG);
        assert_int_equal(entropy_samples_push(&s, 4294967295, 65536), -EBADMSG);
        assert_int_equal(s.n, 3);
        assert_int_equal(entropy_samples_push(&s, 4294967295, 65535), 0);
        assert_int_equal(s.n, 4);
        s.n = ENTROPY_SAMPLES_MAX;
        assert_int_equal(entropy_samples_push(&s, UINT32_MAX, 0), -EBADMSG);    /* full */
        assert_int_equal(s.n, ENTROPY_SAMPLES_MAX);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_few),
                cmocka_unit_test(test_thinning),
                cmocka_unit_test(test_clamp),
                cmocka_unit_test(test_parse_strict),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
