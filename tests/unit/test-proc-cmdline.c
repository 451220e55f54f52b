// SPDX-License-Identifier: LGPL-2.1-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "macro.h"
#include "proc-cmdline.h"

static void check(const char *cmdline, const char *key, int want_r, const char *want_value) {
        char *v = (char *) "untouched";
        int r = proc_cmdline_get_key(cmdline, key, &v);

        assert_int_equal(r, want_r);
        if (want_value)
                assert_string_equal(v, want_value);
        else
                assert_null(v);
        free(v);
}

static void test_get_key(void **state) {
        check("", "entropy_gate.timeout", 0, NULL);
        check("quiet splash", "entropy_gate.timeout", 0, NULL);
        check("root=/dev/vda entropy_gate.timeout=5s quiet", "entropy_gate.timeout", 1, "5s");
        check("entropy-gate.timeout=5s", "entropy_gate.timeout", 1, "5s");
        check("entropy_gate.timeout=1 entropy_gate.timeout=2", "entropy_gate.timeout", 1, "2");
        check("entropy_gate.timeoutx=1", "entropy_gate.timeout", 0, NULL);
        check("xentropy_gate.timeout=1", "entropy_gate.timeout", 0, NULL);
        check("entropy_gate.units=\"a.service b.service\" ro", "entropy_gate.units", 1, "a.service b.service");
        check("x=\"entropy_gate.credit=0\"", "entropy_gate.credit", 0, NULL);
        check("entropy_gate.credit", "entropy_gate.credit", 1, NULL);
        check("entropy_gate.credit=", "entropy_gate.credit", 1, "");
        check("\tentropy_gate.credit=0\n", "entropy_gate.credit", 1, "0");
        check("a=b=c", "a", 1, "b=c");
}

static void test_read_env(void **state) {
        char *s = NULL;

        assert_int_equal(setenv("ENTROPY_GATE_PROC_CMDLINE", "entropy_gate.timeout=3", 1), 0);
        assert_int_equal(proc_cmdline_read(&s), 0);
        assert_string_equal(s, "entropy_gate.timeout=3");
        free(s);
        assert_int_equal(unsetenv("ENTROPY_GATE_PROC_CMDLINE"), 0);
        assert_int_equal(proc_cmdline_read(&s), 0); /* the host's /proc/cmdline */
        free(s);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_get_key),
                cmocka_unit_test(test_read_env),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
