// SPDX-License-Identifier: LGPL-2.1-or-later
/* The kernel command line decides whether seeds are credited
 * (entropy_gate.credit=0) and whether the initrd waits; it must be split
 * exactly as the kernel splits it, or a switch the kernel saw is lost (or
 * one it did not see is obeyed). Attacks: Latin-1 NBSP (0xA0), which the
 * kernel's isspace() counts as a space, alone and as the second byte of a
 * UTF-8 character; a switch hidden in another parameter's quoted value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "config.h"
#include "proc-cmdline.h"

static void check_credit(const char *cmdline, bool want) {
        Config c;

        assert_int_equal(config_init(&c), 0);
        assert_int_equal(config_apply_cmdline(&c, cmdline, NULL, NULL), 0);
        assert_int_equal(c.credit, want);
        config_done(&c);
}

static void test_nbsp_separates(void **state) {
        check_credit("quiet\xa0" "entropy_gate.credit=0", false);
        check_credit("root=/dev/vda1\xa0" "entropy_gate.credit=0\xa0ro", false);
        /* U+00E0 as UTF-8 ends in 0xA0: the kernel splits there too. */
        check_credit("lang=\xc3\xa0" "entropy_gate.credit=0", false);
}

static void test_quoted_value_hides(void **state) {
        check_credit("foo=\"x entropy_gate.credit=0\"", true);
        check_credit("foo=\"x\xa0" "entropy_gate.credit=0\"", true);
}

static void test_other_bytes_do_not_separate(void **state) {
        /* NEL (0x85) and the C0 separators are not the kernel's spaces. */
        check_credit("quiet\x85" "entropy_gate.credit=0", true);
        check_credit("quiet\x1f" "entropy_gate.credit=0", true);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_nbsp_separates),
                cmocka_unit_test(test_quoted_value_hides),
                cmocka_unit_test(test_other_bytes_do_not_separate),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
