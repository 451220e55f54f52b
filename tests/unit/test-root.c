// SPDX-License-Identifier: LGPL-2.1-or-later
/* Paths inside a root: joined, and resolved with symlinks followed the way
 * the system would, never out of the root. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "io-util.h"
#include "macro.h"
#include "root.h"
#include "test-util.h"

static char root[PATH_MAX];

static void link_at(const char *target, const char *rel) {
        char path[PATH_MAX + 64];

        snprintf(path, sizeof(path), "%s/%s", root, rel);
        assert_int_equal(symlink(target, path), 0);
}

/* What root_open_follow(@path) reads, or the error as a string. */
static const char *read_via(const char *path) {
        static char out[128];
        _cleanup_close_ int fd = root_open_follow(path);
        char *buf = NULL;
        size_t n;
        int r;

        if (fd < 0) {
                snprintf(out, sizeof(out), "error %d", fd);
                return out;
        }
        r = read_fd_bounded(fd, 100, READ_NUL_TERMINATE, &buf, &n);
        if (r < 0)
                snprintf(out, sizeof(out), "error %d", r);
        else
                snprintf(out, sizeof(out), "%s", buf);
        free(buf);
        return out;
}

static int setup(void **state) {
        test_tmpdir(root, "test-root");
        test_write_text(root, "etc/real", "inside");
        test_write_text(root, "var/lib/id", "deep");
        return 0;
}

static int teardown(void **state) {
        root_set(NULL);
        test_rm_rf(root);
        return 0;
}

static void test_set_and_join(void **state) {
        char *p;

        root_set(NULL);
        assert_null(root_get());
        assert_int_equal(root_path("/etc/x", &p), 0);
        assert_string_equal(p, "/etc/x");
        free(p);
        root_set("/");
        assert_null(root_get());
        root_set("");
        assert_null(root_get());
        root_set("/srv/image///");
        assert_string_equal(root_get(), "/srv/image");
        assert_int_equal(root_path("/etc/x", &p), 0);
        assert_string_equal(p, "/srv/image/etc/x");
        free(p);
}

static void test_follow(void **state) {
        root_set(root);
        assert_string_equal(read_via("/etc/real"), "inside");
        /* Relative and absolute links, both inside the root. */
        link_at("real", "etc/rel");
        assert_string_equal(read_via("/etc/rel"), "inside");
        link_at("/var/lib/id", "etc/abs");
        assert_string_equal(read_via("/etc/abs"), "deep");
        /* An absolute target means the root's, never the host's. */
        link_at("/etc/hostname", "etc/host");
        assert_string_equal(read_via("/etc/host"), "error -2");
        /* ".." stops at the root. */
        link_at("../../../../etc/real", "var/lib/up");
        assert_string_equal(read_via("/var/lib/up"), "inside");
        /* A directory on the way may be a link too. */
        link_at("/var/lib", "etc/lib");
        assert_string_equal(read_via("/etc/lib/id"), "deep");
        link_at("/../../..", "etc/top");
        assert_string_equal(read_via("/etc/top/etc/real"), "inside");
        /* Loops end. */
        link_at("loop2", "etc/loop1");
        link_at("loop1", "etc/loop2");
        assert_string_equal(read_via("/etc/loop1"), "error -40");
        assert_string_equal(read_via("/etc/missing"), "error -2");

        /* Without a root, the system's own resolution. */
        root_set(NULL);
        assert_string_equal(read_via("/proc/self/comm"), "test-root\n");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_set_and_join),
                cmocka_unit_test(test_follow),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
