// SPDX-License-Identifier: LGPL-2.1-or-later
/* The logger: one line per message, plain or with the journal's "<N>"
 * prefix, %m from the error given, quiet and level filters, and lines cut
 * short still ending in a newline. stderr is a pipe the test reads. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "io-util.h"
#include "log.h"
#include "macro.h"

static int pipe_r = -EBADF, saved_stderr = -EBADF;

static int setup(void **state) {
        int p[2];

        if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
                return -1;
        pipe_r = p[0];
        saved_stderr = dup(STDERR_FILENO);
        if (dup2(p[1], STDERR_FILENO) < 0)
                return -1;
        safe_close(p[1]);
        return 0;
}

static int teardown(void **state) {
        (void) dup2(saved_stderr, STDERR_FILENO);
        safe_close(saved_stderr);
        safe_close(pipe_r);
        return 0;
}

static const char *drain(void) {
        static char buf[8192];
        ssize_t n = read(pipe_r, buf, sizeof(buf) - 1);

        buf[n > 0 ? n : 0] = 0;
        return buf;
}

static void test_plain(void **state) {
        char env[64];
        struct stat st;

        unsetenv("JOURNAL_STREAM");
        log_open("test-log", LOG_TARGET_STDERR);
        assert_int_equal(log_error_errno(-ENOENT, "Failed to open %s: %m", "x"), -ENOENT);
        assert_string_equal(drain(), "test-log: Failed to open x: No such file or directory\n");
        assert_int_equal(log_warning_errno(EACCES, "w %m"), -EACCES);
        assert_string_equal(drain(), "test-log: w Permission denied\n");
        log_info("info");
        log_debug("debug");
        assert_string_equal(drain(), "test-log: info\n");
        log_set_quiet(true);
        log_notice("notice");
        log_warning("warning");
        assert_string_equal(drain(), "test-log: warning\n");
        log_set_quiet(false);

        /* stderr is the journal: priorities, no name. */
        assert_int_equal(fstat(STDERR_FILENO, &st), 0);
        snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long) st.st_dev, (unsigned long long) st.st_ino);
        setenv("JOURNAL_STREAM", env, 1);
        log_open("test-log", LOG_TARGET_STDERR);
        log_notice("to the journal");
        assert_string_equal(drain(), "<5>to the journal\n");
        unsetenv("JOURNAL_STREAM");
}

static void test_long_line(void **state) {
        char big[5000];
        const char *out;

        memset(big, 'x', sizeof(big) - 1);
        big[sizeof(big) - 1] = 0;
        log_open("test-log", LOG_TARGET_STDERR);
        log_error("%s", big);
        out = drain();
        /* Cut short, but one whole line. */
        assert_true(strlen(out) > 1000);
        assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1);
}

static void test_config_warning(void **state) {
        log_open("test-log", LOG_TARGET_STDERR);
        log_config_warning(NULL, "/etc/x.conf", 3, "bad");
        assert_string_equal(drain(), "test-log: /etc/x.conf:3: bad\n");
        log_config_warning(NULL, "kernel command line", 0, "bad");
        assert_string_equal(drain(), "test-log: kernel command line: bad\n");
}

/* With SYSTEMD_LOG_TARGET=console, the kmsg target stays on stderr. */
static void test_kmsg_console(void **state) {
        setenv("SYSTEMD_LOG_TARGET", "console", 1);
        log_open("test-log", LOG_TARGET_KMSG);
        log_warning("name\twith\ncontrol");
        assert_string_equal(drain(), "test-log: name\\x09with\\x0acontrol\n");
        /* Lossless: a literal "\x0a" is not a newline. */
        log_warning("lit\\x0a and\n");
        assert_string_equal(drain(), "test-log: lit\\x5cx0a and\\x0a\n");
        log_close();
        unsetenv("SYSTEMD_LOG_TARGET");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_plain),
                cmocka_unit_test(test_long_line),
                cmocka_unit_test(test_config_warning),
                cmocka_unit_test(test_kmsg_console),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
