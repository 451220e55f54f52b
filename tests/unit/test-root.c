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
        (void) root_set(NULL);
        test_rm_rf(root);
        return 0;
}

static void test_set_and_join(void **state) {
        char *p, path[PATH_MAX + 64], *longname;

        assert_int_equal(root_set(NULL), 0);
        assert_null(root_get());
        assert_int_equal(root_path("/etc/x", &p), 0);
        assert_string_equal(p, "/etc/x");
        free(p);
        assert_int_equal(root_set("/"), 0);
        assert_null(root_get());
        assert_int_equal(root_set(""), 0);
        assert_null(root_get());
        snprintf(path, sizeof(path), "%s///", root);
        assert_int_equal(root_set(path), 0);
        assert_string_equal(root_get(), root);
        assert_int_equal(root_path("/etc/x", &p), 0);
        snprintf(path, sizeof(path), "%s/etc/x", root);
        assert_string_equal(p, path);
        free(p);

        /* A root that cannot be used as given is an error, never "/". */
        assert_int_equal(root_set("/nonexistent-root-dir"), -ENOENT);
        assert_null(root_get());
        snprintf(path, sizeof(path), "%s/etc/real", root);
        assert_int_equal(root_set(path), -ENOTDIR);
        assert_null(root_get());
        longname = malloc(PATH_MAX + 10);
        assert_non_null(longname);
        memset(longname, 'a', PATH_MAX + 9);
        longname[0] = '/';
        longname[PATH_MAX + 9] = 0;
        assert_int_equal(root_set(longname), -ENAMETOOLONG);
        assert_null(root_get());
        free(longname);
}

static void test_normalized(void **state) {
        static const char *const good[] = { "/", "/var/lib/entropy-gate", "/a", "/a.b/..c/...", "/x\ny" };
        static const char *const bad[] = { "", "var", "/var/", "//var", "/var//lib", "/./var", "/var/.",
                                           "/../..", "/var/lib/..", "/var/../../root/.aws", NULL };

        for (size_t i = 0; i < ELEMENTSOF(good); i++)
                assert_true(path_is_normalized_absolute(good[i]));
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                assert_false(path_is_normalized_absolute(bad[i]));
}

/* Every case through the kernel's resolver and through the rules by hand:
 * the same answer, and never a file outside the root. */
/* chase_open_path_at(), then fd_reopen_regular(). */
static int open_path_then_reopen(int rfd, const char *path, ChaseFlags flags) {
        _cleanup_close_ int fd = chase_open_path_at(rfd, path, flags);

        return fd < 0 ? fd : fd_reopen_regular(fd, NULL);
}

static void test_chase_table(void **state) {
        static const struct {
                const char *path;
                ChaseFlags flags;
                const char *want;             /* content read, or "error N" */
        } cases[] = {
                { "/etc/real",                 0,                  "inside" },
                { "etc/real",                  0,                  "inside" },
                { "/etc/../etc/./real",        0,                  "inside" },
                { "/../../../etc/real",        0,                  "inside" },
                { "/etc/t-rel",                0,                  "inside" },
                { "/etc/t-abs",                0,                  "deep" },
                { "/etc/t-host",               0,                  "error -2" },
                { "/etc/t-up",                 0,                  "inside" },
                { "/etc/t-dir/id",             0,                  "deep" },
                { "/etc/t-top/etc/real",       0,                  "inside" },
                { "/etc/t-top/../../etc/real", 0,                  "inside" },
                { "/etc/t-rel",                CHASE_NOFOLLOW,     "error -40" },
                { "/etc/t-dir/id",             CHASE_NOFOLLOW,     "deep" },
                { "/etc/t-dir/id",             CHASE_NO_SYMLINKS,  "error -40" },
                { "/etc/real",                 CHASE_NO_SYMLINKS,  "inside" },
                { "/etc/real",                 CHASE_DIRECTORY,    "error -20" },
                { "/etc/real/",                0,                  "error -20" },
                { "/etc/t-loop1",              0,                  "error -40" },
                { "/etc/t-proc",               0,                  "error -2" },
                { "/etc/missing",              0,                  "error -2" },
                /* No mount in the tree: the mount rules change nothing. */
                { "/etc/t-abs",                CHASE_NO_XDEV,      "deep" },
                { "/etc/t-top/../../etc/real", CHASE_NO_XDEV,      "inside" },
                { "/etc/t-host",               CHASE_NO_XDEV,      "error -2" },
                { "/etc/t-abs",                CHASE_MOUNTS_IN_TREE, "deep" },
                { "/etc/t-top/../../etc/real", CHASE_MOUNTS_IN_TREE, "inside" },
                { "/etc/t-host",               CHASE_MOUNTS_IN_TREE, "error -2" },
                { "/etc/t-proc",               CHASE_MOUNTS_IN_TREE, "error -2" },
        };

        link_at("real", "etc/t-rel");
        link_at("/var/lib/id", "etc/t-abs");
        link_at("/etc/hostname", "etc/t-host");
        link_at("../../../../etc/real", "var/lib/t-up");
        link_at("/var/lib/t-up", "etc/t-up");
        link_at("/var/lib", "etc/t-dir");
        link_at("/../../..", "etc/t-top");
        link_at("t-loop2", "etc/t-loop1");
        link_at("t-loop1", "etc/t-loop2");
        link_at("/proc/self/root/etc/hostname", "etc/t-proc");

        /* The kernel's resolver, the rules by hand, and the O_PATH open
         * that every read under a root takes, reopened for reading only
         * once it is known to be a regular file: one table for all three. */
        for (int by_hand = 0; by_hand < 3; by_hand++) {
                _cleanup_close_ int rfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

                assert_true(rfd >= 0);
                for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                        char out[128];
                        _cleanup_close_ int fd = by_hand == 1 ? chase_open_by_hand_at(rfd, cases[i].path, cases[i].flags) :
                                by_hand == 2 ? open_path_then_reopen(rfd, cases[i].path, cases[i].flags) :
                                chase_open_at(rfd, cases[i].path, cases[i].flags);

                        if (fd < 0)
                                snprintf(out, sizeof(out), "error %d", fd);
                        else {
                                char *buf = NULL;
                                size_t n;
                                int r = read_fd_bounded(fd, 100, READ_NUL_TERMINATE, &buf, &n);

                                if (r < 0)
                                        snprintf(out, sizeof(out), "error %d", r);
                                else
                                        snprintf(out, sizeof(out), "%s", buf);
                                free(buf);
                        }
                        if (!streq(out, cases[i].want))
                                fail_msg("%s %s (flags %#x): got \"%s\", want \"%s\"",
                                         by_hand == 1 ? "by hand" : by_hand == 2 ? "O_PATH" : "kernel",
                                         cases[i].path, (unsigned) cases[i].flags, out, cases[i].want);
                }
        }
}

static void test_parent_and_mkdir(void **state) {
        char name[NAME_MAX + 1];
        _cleanup_close_ int rfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct stat st, want;
        int fd;

        assert_true(rfd >= 0);
        link_at("/var", "etc/p-var");
        fd = chase_parent_at(rfd, "/etc/p-var/lib/id", 0, name);
        assert_true(fd >= 0);
        assert_string_equal(name, "id");
        assert_int_equal(fstat(fd, &st), 0);
        safe_close(fd);
        fd = chase_open_at(rfd, "/var/lib", CHASE_DIRECTORY);
        assert_int_equal(fstat(fd, &want), 0);
        safe_close(fd);
        assert_true(st.st_ino == want.st_ino);

        /* The last component is the caller's, never followed here. */
        fd = chase_parent_at(rfd, "/etc/p-var/", 0, name);
        assert_true(fd >= 0);
        assert_string_equal(name, "p-var");
        safe_close(fd);
        assert_int_equal(chase_parent_at(rfd, "/", 0, name), -EINVAL);
        assert_int_equal(chase_parent_at(rfd, "/etc/..", 0, name), -EINVAL);
        assert_int_equal(chase_parent_at(rfd, "/etc/.", 0, name), -EINVAL);

        /* Only the last component is created, 0700, inside the root; never
         * through a dangling link. */
        link_at("/var/lib/made", "etc/p-made");
        assert_int_equal(chase_open_at(rfd, "/etc/p-made", CHASE_DIRECTORY | CHASE_MKDIR), -ENOENT);
        assert_int_equal(fstatat(rfd, "var/lib/made", &st, 0), -1);
        link_at("/var/lib", "etc/p-lib");
        fd = chase_open_at(rfd, "/etc/p-lib/made", CHASE_DIRECTORY | CHASE_MKDIR);
        assert_true(fd >= 0);
        assert_int_equal(fstat(fd, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0700);
        safe_close(fd);
        assert_int_equal(fstatat(rfd, "var/lib/made", &st, 0), 0);
        assert_int_equal(chase_open_at(rfd, "/no/such/dir", CHASE_DIRECTORY | CHASE_MKDIR), -ENOENT);
}

static void test_system_root(void **state) {
        _cleanup_close_ int a = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        _cleanup_close_ int b = open("/proc/self/root", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        _cleanup_close_ int c = open("//./etc/..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        _cleanup_close_ int d = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        assert_int_equal(fd_is_system_root(a), 1);
        assert_int_equal(fd_is_system_root(b), 1);
        assert_int_equal(fd_is_system_root(c), 1);
        assert_int_equal(fd_is_system_root(d), 0);
}

/* The mount ID as /proc/self/fdinfo says it, for comparison. */
static uint64_t fdinfo_mnt_id(int fd) {
        char path[64], line[256];
        unsigned long long v = 0;
        FILE *f;

        snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
        f = fopen(path, "re");
        assert_non_null(f);
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "mnt_id: %llu", &v) == 1)
                        break;
        fclose(f);
        return v;
}

static void test_mount_rule(void **state) {
        _cleanup_close_ int rfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        _cleanup_close_ int sub = -EBADF, slash = -EBADF;
        uint64_t id;

        assert_true(rfd >= 0);
        assert_int_equal(fd_mount_id(rfd, &id), 0);
        assert_true(id > 0);
        assert_true(id == fdinfo_mnt_id(rfd));

        /* One step on one mount: allowed by every rule. */
        sub = chase_open_at(rfd, "/var/lib", CHASE_DIRECTORY);
        assert_true(sub >= 0);
        assert_int_equal(chase_check_step(rfd, rfd, sub, 0), 0);
        assert_int_equal(chase_check_step(rfd, rfd, sub, CHASE_NO_XDEV), 0);
        assert_int_equal(chase_check_step(rfd, rfd, sub, CHASE_MOUNTS_IN_TREE), 0);

        /* This system's root is never a step of a tree's walk under
         * --cross-mounts. */
        slash = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(slash >= 0);
        assert_int_equal(chase_check_step(rfd, rfd, slash, CHASE_MOUNTS_IN_TREE), CHASE_ERR_FOREIGN_MOUNT);

        /* The tree tools' rule is the root's until the next root_set(). */
        assert_int_equal(root_set(root), 0);
        assert_false(root_is_tree());
        root_set_tree(CHASE_NO_XDEV);
        assert_true(root_is_tree());
        assert_string_equal(read_via("/etc/real"), "inside");
        assert_int_equal(root_set(root), 0);
        assert_false(root_is_tree());
        assert_int_equal(root_set(NULL), 0);
}

static void test_follow(void **state) {
        assert_int_equal(root_set(root), 0);
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
        assert_int_equal(root_set(NULL), 0);
        assert_string_equal(read_via("/proc/self/comm"), "test-root\n");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_set_and_join),
                cmocka_unit_test(test_follow),
                cmocka_unit_test(test_normalized),
                cmocka_unit_test(test_chase_table),
                cmocka_unit_test(test_parent_and_mkdir),
                cmocka_unit_test(test_system_root),
                cmocka_unit_test(test_mount_rule),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
