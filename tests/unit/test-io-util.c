// SPDX-License-Identifier: LGPL-2.1-or-later
/* The I/O layer against a temporary directory: the loops, the bounded,
 * non-following, non-blocking read, and the atomic write. */
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "io-util.h"
#include "macro.h"
#include "test-util.h"

static char dir[PATH_MAX];
static int dfd = -EBADF;

static int setup(void **state) {
        test_tmpdir(dir, "test-io-util");
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(dfd >= 0);
        return 0;
}

static int teardown(void **state) {
        safe_close(dfd);
        test_rm_rf(dir);
        return 0;
}

static void put(const char *name, const char *content) {
        test_write(dir, name, content, strlen(content), 0600);
}

static void test_loops(void **state) {
        int p[2];
        char buf[16];

        assert_int_equal(pipe(p), 0);
        assert_int_equal(loop_write(p[1], "abcdef", 6), 0);
        safe_close(p[1]);
        /* Reads to end of file when asked for more than there is. */
        assert_int_equal(loop_read(p[0], buf, sizeof(buf)), 6);
        assert_memory_equal(buf, "abcdef", 6);
        assert_int_equal(loop_read(p[0], buf, sizeof(buf)), 0);
        safe_close(p[0]);
        assert_int_equal(loop_read(-1, buf, 1), -EBADF);
        assert_int_equal(loop_write(-1, buf, 1), -EBADF);
}

static void test_read_regular(void **state) {
        FileStat st;
        char *buf = NULL;
        size_t n = 0;
        int fd;

        put("a", "hello");
        fd = open_nofollow_at(dfd, "a", &st);
        assert_true(fd >= 0);
        assert_true(S_ISREG(st.mode));
        assert_int_equal(st.mode & 07777, 0600);
        assert_int_equal(st.uid, geteuid());
        assert_int_equal(read_fd_bounded(fd, 5, 0, &buf, &n), 0);
        assert_int_equal(n, 5);
        assert_memory_equal(buf, "hello", 5);
        free(buf);
        safe_close(fd);

        /* One byte over the bound is refused, and *ret_* stay untouched. */
        fd = open_nofollow_at(dfd, "a", &st);
        buf = (char *) 0x1;
        n = 42;
        assert_int_equal(read_fd_bounded(fd, 4, READ_SECRET, &buf, &n), -EFBIG);
        assert_ptr_equal(buf, (char *) 0x1);
        assert_int_equal(n, 42);
        safe_close(fd);

        /* Text: NUL-terminated, and a NUL inside refused on request. */
        assert_int_equal(read_file_at(dfd, "a", 100, READ_NUL_TERMINATE, &buf, &n, NULL), 0);
        assert_string_equal(buf, "hello");
        free(buf);
        test_write(dir, "nul", "a\0b", 3, 0600);
        assert_int_equal(read_file_at(dfd, "nul", 100, READ_REFUSE_NUL, &buf, &n, NULL), -EBADMSG);
        assert_int_equal(read_file_at(dfd, "nul", 100, 0, &buf, &n, &st), 0);
        assert_int_equal(n, 3);
        assert_true(S_ISREG(st.mode));
        free(buf);
}

static void test_read_huge_sparse(void **state) {
        _cleanup_close_ int fd = openat(dfd, "huge", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        FileStat st;
        char *buf = NULL;
        size_t n = 0;
        int rfd;

        assert_true(fd >= 0);
        assert_int_equal(ftruncate(fd, (off_t) 1 << 30), 0);
        rfd = open_nofollow_at(dfd, "huge", &st);
        assert_true(rfd >= 0);
        assert_true(st.size == (off_t) 1 << 30);
        assert_int_equal(read_fd_bounded(rfd, 596, 0, &buf, &n), -EFBIG);
        safe_close(rfd);
}

static void test_open_symlink_fifo_dir(void **state) {
        FileStat st;
        char *buf = NULL;
        size_t n = 0;
        char path[PATH_MAX + 64];
        int fd;

        put("target", "secret");
        assert_int_equal(symlinkat("target", dfd, "link"), 0);
        assert_int_equal(open_nofollow_at(dfd, "link", &st), -ELOOP);

        /* Opening a FIFO would block for a writer without O_NONBLOCK. */
        assert_int_equal(mkfifoat(dfd, "fifo", 0600), 0);
        fd = open_nofollow_at(dfd, "fifo", &st);
        assert_true(fd >= 0);
        assert_true(S_ISFIFO(st.mode));
        assert_int_equal(read_fd_bounded(fd, 100, 0, &buf, &n), -EBADFD);
        /* Never opened, only looked at: an O_PATH fd, and no reopen. */
        assert_true(fcntl(fd, F_GETFL) & O_PATH);
        assert_int_equal(fd_reopen_regular(fd, NULL), -EBADFD);
        safe_close(fd);

        /* A device likewise (/dev/zero's numbers; mknod needs root). */
        if (mknodat(dfd, "chr", S_IFCHR | 0600, makedev(1, 5)) >= 0) {
                fd = open_nofollow_at(dfd, "chr", &st);
                assert_true(fd >= 0);
                assert_true(S_ISCHR(st.mode));
                assert_true(fcntl(fd, F_GETFL) & O_PATH);
                assert_int_equal(read_fd_bounded(fd, 100, 0, &buf, &n), -EBADFD);
                assert_int_equal(fd_reopen_regular(fd, NULL), -EBADFD);
                safe_close(fd);
        }

        assert_int_equal(mkdirat(dfd, "sub", 0700), 0);
        fd = open_nofollow_at(dfd, "sub", &st);
        assert_true(fd >= 0);
        assert_true(S_ISDIR(st.mode));
        assert_int_equal(fd_reopen_regular(fd, NULL), -EISDIR);
        safe_close(fd);

        /* A regular file is reopened for reading. */
        fd = open_nofollow_at(dfd, "target", &st);
        assert_true(fd >= 0);
        assert_false(fcntl(fd, F_GETFL) & O_PATH);
        assert_int_equal(read_fd_bounded(fd, 100, READ_NUL_TERMINATE, &buf, &n), 0);
        assert_string_equal(buf, "secret");
        free(buf);
        safe_close(fd);

        assert_int_equal(open_nofollow_at(dfd, "missing", &st), -ENOENT);

        snprintf(path, sizeof(path), "%s/fifo", dir);
        assert_int_equal(read_file_at(AT_FDCWD, path, 100, 0, &buf, &n, NULL), -EBADFD);
        snprintf(path, sizeof(path), "%s/link", dir);
        assert_int_equal(read_file_at(AT_FDCWD, path, 100, 0, &buf, &n, NULL), -ELOOP);
        snprintf(path, sizeof(path), "%s/sub", dir);
        assert_int_equal(read_file_at(AT_FDCWD, path, 100, 0, &buf, &n, NULL), -EISDIR);
        snprintf(path, sizeof(path), "%s/target", dir);
        assert_int_equal(read_file_at(AT_FDCWD, path, 100, 0, &buf, &n, NULL), 0);
        assert_int_equal(n, 6);
        free(buf);
}

static void test_write_atomic(void **state) {
        struct stat st;
        FileStat fst;
        char *buf = NULL;
        size_t n = 0;

        /* A stale temporary file from a killed run does not get in the way. */
        put(".#seed.new", "stale");
        put("seed", "old");
        assert_int_equal(write_file_atomic_at(dfd, "seed", "new content", 11, 0600, WRITE_DURABLE), 0);
        assert_int_equal(fstatat(dfd, ".#seed.new", &st, AT_SYMLINK_NOFOLLOW), -1);
        assert_int_equal(errno, ENOENT);
        assert_int_equal(read_file_at(dfd, "seed", 100, 0, &buf, &n, &fst), 0);
        assert_int_equal(fst.mode & 07777, 0600);
        assert_int_equal(n, 11);
        assert_memory_equal(buf, "new content", 11);
        free(buf);

        /* The name is replaced, not followed: a symlink in its place is
         * replaced by the file, and its target is left alone. */
        put("victim", "keep");
        assert_int_equal(symlinkat("victim", dfd, "lnk"), 0);
        assert_int_equal(write_file_atomic_at(dfd, "lnk", "x", 1, 0600, WRITE_DURABLE), 0);
        assert_int_equal(fstatat(dfd, "lnk", &st, AT_SYMLINK_NOFOLLOW), 0);
        assert_true(S_ISREG(st.st_mode));
        assert_int_equal(read_file_at(dfd, "victim", 100, 0, &buf, &n, NULL), 0);
        assert_memory_equal(buf, "keep", 4);
        free(buf);

        /* A directory in the way: the write fails and leaves no temporary. */
        assert_int_equal(mkdirat(dfd, "d", 0700), 0);
        assert_int_equal(write_file_atomic_at(dfd, "d", "x", 1, 0600, WRITE_DURABLE), -EISDIR);
        assert_int_equal(fstatat(dfd, ".#d.new", &st, AT_SYMLINK_NOFOLLOW), -1);

        /* A directory at the temporary name is not a leftover of ours:
         * left alone, and -EEXIST says the name is in the way. */
        char tmp[NAME_MAX + 1];
        assert_int_equal(write_file_atomic_tmp_name("seed", tmp, sizeof(tmp)), 0);
        assert_string_equal(tmp, ".#seed.new");
        assert_int_equal(mkdirat(dfd, tmp, 0700), 0);
        assert_int_equal(write_file_atomic_at(dfd, "seed", "x", 1, 0600, WRITE_DURABLE), -EEXIST);
        assert_int_equal(fstatat(dfd, tmp, &st, AT_SYMLINK_NOFOLLOW), 0);
        assert_true(S_ISDIR(st.st_mode));
        assert_int_equal(read_file_at(dfd, "seed", 100, 0, &buf, &n, NULL), 0);
        assert_memory_equal(buf, "new content", 11);
        free(buf);
        assert_int_equal(unlinkat(dfd, tmp, AT_REMOVEDIR), 0);

        /* Unlocked writers: a temporary name of their own, never a
         * leftover's, and the mode asked for. */
        assert_int_equal(write_file_atomic_at(dfd, "rec", "A=1\n", 4, 0644, WRITE_UNIQUE_TMP), 0);
        assert_int_equal(read_file_at(dfd, "rec", 100, READ_NUL_TERMINATE, &buf, &n, &fst), 0);
        assert_string_equal(buf, "A=1\n");
        assert_int_equal(fst.mode & 07777, 0644);
        free(buf);
}

static void test_erase_free(void **state) {
        erase_free(NULL, 10);
        erase_free(strdup("secret"), 7);
}

/* The fd number both processes use in test_reopen_proc_not_ours(). */
#define FD_SLOT 200

/* A process that holds @name below the test directory O_PATH at FD_SLOT
 * until killed. */
static pid_t hold_at_slot(const char *name) {
        int p[2];
        char c;
        pid_t pid;

        assert_int_equal(pipe(p), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                int fd;

                /* Gone with the test, even when an assertion ends it. */
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                fd = openat(dfd, name, O_PATH | O_CLOEXEC);
                if (fd < 0 || dup2(fd, FD_SLOT) < 0)
                        _exit(1);
                (void) write(p[1], "x", 1);
                for (;;)
                        pause();
        }
        close(p[1]);
        assert_int_equal(read(p[0], &c, 1), 1);
        close(p[0]);
        return pid;
}

static void unhold(pid_t pid) {
        (void) kill(pid, SIGKILL);
        (void) waitpid(pid, NULL, 0);
}

/* Whoever may mount in our namespace can make /proc/self/fd say what it
 * likes: another process's fd directory bound over it (still the kernel's
 * procfs, but its links are that process's fds), or a tmpfs with links
 * of its own. The reopen must notice, and open neither the FIFO nor the
 * other file those links lead to. Needs root (a mount namespace of its
 * own, where all of this stays). */
static void test_reopen_proc_not_ours(void **state) {
        char self_fd[64], other_fd[128], fifo[PATH_MAX + 8];
        FileStat st;
        pid_t pid;
        int fd;

        if (geteuid() != 0 || unshare(CLONE_NEWNS) < 0 ||
            mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
                skip();
                return;
        }
        put("mine", "ours");
        put("other", "someone else's");
        (void) unlinkat(dfd, "fifo2", 0);
        assert_int_equal(mkfifoat(dfd, "fifo2", 0600), 0);
        snprintf(self_fd, sizeof(self_fd), "/proc/%d/fd", (int) getpid());

        fd = openat(dfd, "mine", O_PATH | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(dup2(fd, FD_SLOT), FD_SLOT);
        safe_close(fd);
        fd = fd_reopen_regular(FD_SLOT, &st);
        assert_true(fd >= 0);
        safe_close(fd);

        /* The link at our fd number is another process's: to a FIFO (which
         * a writer waits on), then to a regular file that is not ours. */
        for (int i = 0; i < 2; i++) {
                pid = hold_at_slot(i == 0 ? "fifo2" : "other");
                snprintf(other_fd, sizeof(other_fd), "/proc/%d/fd", (int) pid);
                assert_int_equal(mount(other_fd, self_fd, NULL, MS_BIND, NULL), 0);
                assert_int_equal(fd_reopen_regular(FD_SLOT, &st), -ESTALE);
                assert_int_equal(umount2(self_fd, MNT_DETACH), 0);
                unhold(pid);
        }

        /* A tmpfs over our fd directory, with a link to the FIFO. */
        assert_int_equal(mount("tmpfs", self_fd, "tmpfs", 0, NULL), 0);
        snprintf(fifo, sizeof(fifo), "%s/fifo2", dir);
        snprintf(other_fd, sizeof(other_fd), "%s/%d", self_fd, FD_SLOT);
        assert_int_equal(symlink(fifo, other_fd), 0);
        assert_int_equal(fd_reopen_regular(FD_SLOT, &st), -ENOSYS);
        assert_int_equal(umount2(self_fd, MNT_DETACH), 0);

        /* And with /proc/self/fd the kernel's again, ours again. */
        fd = fd_reopen_regular(FD_SLOT, &st);
        assert_true(fd >= 0);
        safe_close(fd);
        close(FD_SLOT);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_loops),
                cmocka_unit_test(test_read_regular),
                cmocka_unit_test(test_read_huge_sparse),
                cmocka_unit_test(test_open_symlink_fifo_dir),
                cmocka_unit_test(test_reopen_proc_not_ours),
                cmocka_unit_test(test_write_atomic),
                cmocka_unit_test(test_erase_free),
        };
        umask(022);
        return cmocka_run_group_tests(tests, setup, teardown);
}
