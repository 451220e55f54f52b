// SPDX-License-Identifier: LGPL-2.1-or-later
/* The seed store against a temporary directory: bounded, non-following,
 * non-blocking reads; the atomic write; the directory lock. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "macro.h"
#include "seed-store.h"

static char dir[] = "/tmp/test-seed-store.XXXXXX";
static int dfd = -EBADF;

static int setup(void **state) {
        assert_non_null(mkdtemp(dir));
        dfd = seed_dir_open_locked(dir);
        assert_true(dfd >= 0);
        return 0;
}

static int teardown(void **state) {
        char cmd[128];

        safe_close(dfd);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
        return 0;
}

static void put(const char *name, const char *content) {
        _cleanup_close_ int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, content, strlen(content)), (ssize_t) strlen(content));
}

static void test_read_regular(void **state) {
        SeedStat st;
        void *buf = NULL;
        size_t n = 0;
        int fd;

        put("a", "hello");
        fd = seed_file_open(dfd, "a", &st);
        assert_true(fd >= 0);
        assert_true(S_ISREG(st.mode));
        assert_int_equal(st.mode & 07777, 0600);
        assert_int_equal(st.uid, geteuid());
        assert_int_equal(seed_file_read(fd, 5, &buf, &n), 0);
        assert_int_equal(n, 5);
        assert_memory_equal(buf, "hello", 5);
        free(buf);
        safe_close(fd);

        /* One byte over the bound is refused, and *ret_* stay untouched. */
        fd = seed_file_open(dfd, "a", &st);
        buf = (void *) 0x1;
        n = 42;
        assert_int_equal(seed_file_read(fd, 4, &buf, &n), -EFBIG);
        assert_ptr_equal(buf, (void *) 0x1);
        assert_int_equal(n, 42);
        safe_close(fd);
}

static void test_read_huge_sparse(void **state) {
        _cleanup_close_ int fd = openat(dfd, "huge", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        SeedStat st;
        void *buf = NULL;
        size_t n = 0;
        int rfd;

        assert_true(fd >= 0);
        assert_int_equal(ftruncate(fd, (off_t) 1 << 30), 0);
        rfd = seed_file_open(dfd, "huge", &st);
        assert_true(rfd >= 0);
        assert_true(st.size == (off_t) 1 << 30);
        assert_int_equal(seed_file_read(rfd, 596, &buf, &n), -EFBIG);
        safe_close(rfd);
}

static void test_open_symlink_fifo_dir(void **state) {
        SeedStat st;
        void *buf = NULL;
        size_t n = 0;
        char path[256];
        int fd;

        put("target", "secret");
        assert_int_equal(symlinkat("target", dfd, "link"), 0);
        assert_int_equal(seed_file_open(dfd, "link", &st), -ELOOP);

        /* Opening a FIFO would block for a writer without O_NONBLOCK. */
        assert_int_equal(mkfifoat(dfd, "fifo", 0600), 0);
        fd = seed_file_open(dfd, "fifo", &st);
        assert_true(fd >= 0);
        assert_true(S_ISFIFO(st.mode));
        assert_int_equal(seed_file_read(fd, 100, &buf, &n), -EBADFD);
        safe_close(fd);

        assert_int_equal(mkdirat(dfd, "sub", 0700), 0);
        fd = seed_file_open(dfd, "sub", &st);
        assert_true(fd >= 0);
        assert_true(S_ISDIR(st.mode));
        safe_close(fd);

        assert_int_equal(seed_file_open(dfd, "missing", &st), -ENOENT);

        snprintf(path, sizeof(path), "%s/fifo", dir);
        assert_int_equal(read_file_bounded(path, 100, &buf, &n), -EBADFD);
        snprintf(path, sizeof(path), "%s/link", dir);
        assert_int_equal(read_file_bounded(path, 100, &buf, &n), -ELOOP);
        snprintf(path, sizeof(path), "%s/target", dir);
        assert_int_equal(read_file_bounded(path, 100, &buf, &n), 0);
        assert_int_equal(n, 6);
        free(buf);
}

static void test_write_atomic(void **state) {
        struct stat st;
        SeedStat sst;
        void *buf = NULL;
        size_t n = 0;
        int fd;

        /* A stale temporary file from a killed run does not get in the way. */
        put(".#seed.new", "stale");
        put("seed", "old");
        assert_int_equal(seed_file_write_atomic(dfd, "seed", "new content", 11), 0);
        assert_int_equal(fstatat(dfd, ".#seed.new", &st, AT_SYMLINK_NOFOLLOW), -1);
        assert_int_equal(errno, ENOENT);
        fd = seed_file_open(dfd, "seed", &sst);
        assert_true(fd >= 0);
        assert_int_equal(sst.mode & 07777, 0600);
        assert_int_equal(seed_file_read(fd, 100, &buf, &n), 0);
        assert_int_equal(n, 11);
        assert_memory_equal(buf, "new content", 11);
        free(buf);
        safe_close(fd);

        /* The name is replaced, not followed: a symlink in its place is
         * replaced by the file, and its target is left alone. */
        put("victim", "keep");
        assert_int_equal(symlinkat("victim", dfd, "lnk"), 0);
        assert_int_equal(seed_file_write_atomic(dfd, "lnk", "x", 1), 0);
        assert_int_equal(fstatat(dfd, "lnk", &st, AT_SYMLINK_NOFOLLOW), 0);
        assert_true(S_ISREG(st.st_mode));
        fd = seed_file_open(dfd, "victim", &sst);
        assert_int_equal(seed_file_read(fd, 100, &buf, &n), 0);
        assert_memory_equal(buf, "keep", 4);
        free(buf);
        safe_close(fd);

        /* A directory in the way: the write fails and leaves no temporary. */
        assert_int_equal(mkdirat(dfd, "d", 0700), 0);
        assert_int_equal(seed_file_write_atomic(dfd, "d", "x", 1), -EISDIR);
        assert_int_equal(fstatat(dfd, ".#d.new", &st, AT_SYMLINK_NOFOLLOW), -1);
}

static void test_lock(void **state) {
        _cleanup_close_ int other = -EBADF;
        char path[256];
        SeedStat st;
        int fd;

        /* Another open of the directory cannot take the lock while we hold it. */
        other = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(other >= 0);
        assert_int_equal(flock(other, LOCK_EX | LOCK_NB), -1);
        assert_int_equal(errno, EWOULDBLOCK);

        /* A missing directory is created 0700; only the last component. */
        snprintf(path, sizeof(path), "%s/new", dir);
        fd = seed_dir_open_locked(path);
        assert_true(fd >= 0);
        assert_int_equal(seed_dir_stat(fd, &st), 0);
        assert_true(S_ISDIR(st.mode));
        assert_int_equal(st.mode & 07777, 0700);
        safe_close(fd);
        snprintf(path, sizeof(path), "%s/no/such", dir);
        assert_int_equal(seed_dir_open_locked(path), -ENOENT);

        /* A file where the directory should be. */
        put("file", "x");
        snprintf(path, sizeof(path), "%s/file", dir);
        assert_int_equal(seed_dir_open_locked(path), -ENOTDIR);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_read_regular),
                cmocka_unit_test(test_read_huge_sparse),
                cmocka_unit_test(test_open_symlink_fifo_dir),
                cmocka_unit_test(test_write_atomic),
                cmocka_unit_test(test_lock),
        };
        umask(022);
        return cmocka_run_group_tests(tests, setup, teardown);
}
