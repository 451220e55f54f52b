// SPDX-License-Identifier: LGPL-2.1-or-later
/* Finding the other entropy daemons' processes: names the kernel cut to 15
 * characters, argv[0] deciding then, and a scan of a constructed /proc. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "daemons.h"
#include "macro.h"
#include "test-util.h"

static void test_process_is(void **state) {
        assert_true(process_is("haveged", "haveged\n", NULL));
        assert_true(process_is("haveged", "haveged", NULL));
        assert_false(process_is("haveged", "haveged2\n", NULL));
        assert_false(process_is("haveged", "havege\n", NULL));
        assert_false(process_is("rngd", "rngd\n\n", NULL));

        /* 18 characters: comm says 15, argv[0] (any directory) decides. */
        assert_true(process_is("jitterentropy-rngd", "jitterentropy-r\n", "/usr/sbin/jitterentropy-rngd"));
        assert_true(process_is("jitterentropy-rngd", "jitterentropy-r\n", "jitterentropy-rngd"));
        assert_false(process_is("jitterentropy-rngd", "jitterentropy-r\n", "/usr/bin/jitterentropy-rngx"));
        assert_false(process_is("jitterentropy-rngd", "jitterentropy-r\n", NULL));
        assert_false(process_is("jitterentropy-rngd", "jitterentropy\n", "/usr/sbin/jitterentropy-rngd"));
}

static void test_table(void **state) {
        /* Every daemon status names has a process name and at least one unit. */
        assert_true(entropy_daemons_count >= 5);
        for (size_t i = 0; i < entropy_daemons_count; i++) {
                assert_non_null(entropy_daemons[i].process);
                assert_non_null(entropy_daemons[i].units[0]);
        }
}

static void test_find(void **state) {
        char dir[PATH_MAX];
        _cleanup_close_ int fd = -EBADF;
        pid_t pids[2];
        size_t n;

        test_tmpdir(dir, "test-daemons");
        test_write_text(dir, "300/comm", "haveged\n");
        test_write_text(dir, "12/comm", "haveged\n");
        test_write_text(dir, "7/comm", "haveged\n");
        test_write_text(dir, "40/comm", "jitterentropy-r\n");
        test_write(dir, "40/cmdline", "/usr/sbin/jitterentropy-rngd\0-v\0", 32, 0644);
        test_write_text(dir, "41/comm", "jitterentropy-r\n");
        test_write(dir, "41/cmdline", "/usr/bin/other\0", 15, 0644);
        test_write_text(dir, "1/comm", "systemd\n");
        /* Each runs as root, as /proc/PID/status says. */
        for (size_t i = 0; i < 5; i++) {
                char path[32];

                snprintf(path, sizeof(path), "%s/status", (const char *[]) { "300", "12", "7", "40", "41" }[i]);
                test_write_text(dir, path, "Name:\tx\nUmask:\t0022\nState:\tS (sleeping)\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n");
        }
        /* Not processes, and a process that exited while we looked. */
        test_write_text(dir, "self/comm", "haveged\n");
        test_write_text(dir, "0/comm", "haveged\n");
        test_mkdir_p(dir, "55");

        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(process_find(fd, "haveged", pids, ELEMENTSOF(pids), &n), 0);
        assert_int_equal(n, 3);              /* all of them counted... */
        assert_int_equal(pids[0], 7);        /* ...the first, sorted, listed */
        assert_int_equal(pids[1], 12);
        assert_int_equal(process_find(fd, "jitterentropy-rngd", pids, ELEMENTSOF(pids), &n), 0);
        assert_int_equal(n, 1);
        assert_int_equal(pids[0], 40);
        assert_int_equal(process_find(fd, "urngd", pids, ELEMENTSOF(pids), &n), 0);
        assert_int_equal(n, 0);
        test_rm_rf(dir);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_process_is),
                cmocka_unit_test(test_table),
                cmocka_unit_test(test_find),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
