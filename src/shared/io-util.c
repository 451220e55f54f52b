// SPDX-License-Identifier: LGPL-2.1-or-later
#include <fcntl.h>
#include <signal.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/statfs.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <time.h>

#include "io-util.h"
#include "macro.h"
#include "time-util.h"

ssize_t loop_read(int fd, void *buf, size_t size) {
        size_t done = 0;

        while (done < size) {
                ssize_t k = read(fd, (char *) buf + done, size - done);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (k == 0)
                        break;
                done += (size_t) k;
        }
        return (ssize_t) done;
}

int dir_next(DIR *d, struct dirent **ret) {
        struct dirent *de;

        errno = 0;
        de = readdir(d);
        if (!de)
                return errno != 0 ? -errno : 0;
        *ret = de;
        return 1;
}

int loop_write(int fd, const void *buf, size_t size) {
        for (const char *p = buf; size > 0;) {
                ssize_t k = write(fd, p, size);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (k == 0)
                        return -EIO;
                p += k;
                size -= (size_t) k;
        }
        return 0;
}

void file_stat_from_stat(const struct stat *st, FileStat *ret) {
        *ret = (FileStat) {
                .dev = st->st_dev,
                .ino = st->st_ino,
                .nlink = st->st_nlink,
                .uid = st->st_uid,
                .gid = st->st_gid,
                .mode = st->st_mode,
                .size = st->st_size,
                .mtime = st->st_mtim,
        };
}

int fd_has_access_acl(int fd) {
        /* The kernel stores no ACL that only repeats the mode: the
         * attribute exists only for one with more entries. */
        if (fgetxattr(fd, "system.posix_acl_access", NULL, 0) >= 0)
                return 1;
        if (errno == ENODATA || errno == EOPNOTSUPP)
                return 0;
        return negative_errno();
}

/* <linux/magic.h>'s, which C libraries without kernel headers lack. */
#define PROC_FS_MAGIC 0x9fa0

bool path_is_procfs(const char *path) {
        struct statfs sfs;

        return statfs(path, &sfs) >= 0 && (uint32_t) sfs.f_type == (uint32_t) PROC_FS_MAGIC;
}

bool fd_is_procfs(int fd) {
        struct statfs sfs;

        return fstatfs(fd, &sfs) >= 0 && (uint32_t) sfs.f_type == (uint32_t) PROC_FS_MAGIC;
}

/* The body of fd_reopen_regular(), for callers that have @st already. */
static int reopen_regular(int path_fd, const struct stat *st, FileStat *ret_stat) {
        _cleanup_close_ int fd = -EBADF;
        char proc[32];
        struct stat nst;

        if (S_ISDIR(st->st_mode))
                return -EISDIR;
        if (S_ISLNK(st->st_mode))
                return -ELOOP;
        /* Opening a device runs its driver's open() (a watchdog arms
         * itself), a FIFO waits for a writer or is one: only a regular file
         * is ever opened for reading. */
        if (!S_ISREG(st->st_mode))
                return -EBADFD;
        /* Linux cannot open an O_PATH fd for reading by itself; its
         * /proc/self/fd link reopens the very inode the fd holds, which a
         * rename since cannot swap. Without the kernel's /proc, fail rather
         * than open by a name someone else may control. Not "/proc" alone:
         * whoever may mount in our namespace can put a tmpfs over
         * /proc/PID/fd, whose "links" then point anywhere (a FIFO, a file
         * outside the tree). Asked each time: such a mount may come at any
         * moment. */
        if (!path_is_procfs("/proc/self/fd"))
                return -ENOSYS;
        snprintf(proc, sizeof(proc), "/proc/self/fd/%i", path_fd);
        /* Before opening, where the link leads: a FIFO or a device put
         * behind it is then never opened at all... */
        if (stat(proc, &nst) < 0)
                return errno == ENOENT ? -ENOSYS : negative_errno();
        if (!S_ISREG(nst.st_mode) || nst.st_dev != st->st_dev || nst.st_ino != st->st_ino)
                return -ESTALE;
        /* ...and after, what was opened, for a mount that raced the
         * stat(). O_NONBLOCK and O_NOCTTY so that even then nothing
         * waits or becomes our terminal; no O_NOFOLLOW, the magic link
         * must be followed. */
        fd = open(proc, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return errno == ENOENT ? -ENOSYS : negative_errno();
        if (fstat(fd, &nst) < 0)
                return negative_errno();
        if (!S_ISREG(nst.st_mode) || nst.st_dev != st->st_dev || nst.st_ino != st->st_ino)
                return -ESTALE;
        if (ret_stat)
                file_stat_from_stat(st, ret_stat);
        return TAKE_FD(fd);
}

int fd_reopen_regular(int path_fd, FileStat *ret_stat) {
        struct stat st;

        if (fstat(path_fd, &st) < 0)
                return negative_errno();
        return reopen_regular(path_fd, &st, ret_stat);
}

int open_nofollow_at(int dfd, const char *path, FileStat *ret_stat) {
        _cleanup_close_ int fd = -EBADF;
        struct stat st;

        /* O_PATH: nothing is opened for reading until fstat() says it is a
         * regular file; a device's driver is never called, a FIFO never
         * waited on. O_NOFOLLOW: a file is what it claims to be only if the
         * name itself is the file; a symlink could point anywhere,
         * including at a file every clone of an image shares. */
        fd = openat(dfd, path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        if (fstat(fd, &st) < 0)
                return negative_errno();
        /* O_PATH|O_NOFOLLOW opens a symlink itself, where a plain open
         * refuses it. */
        if (S_ISLNK(st.st_mode))
                return -ELOOP;
        if (!S_ISREG(st.st_mode)) {
                /* Good for fstat() only: any read fails (EBADF). */
                if (ret_stat)
                        file_stat_from_stat(&st, ret_stat);
                return TAKE_FD(fd);
        }
        return reopen_regular(fd, &st, ret_stat);
}

const char *inode_type_to_string(mode_t mode) {
        switch (mode & S_IFMT) {
        case S_IFREG:  return "a regular file";
        case S_IFDIR:  return "a directory";
        case S_IFIFO:  return "a FIFO";
        case S_IFSOCK: return "a socket";
        case S_IFCHR:  return "a character device";
        case S_IFBLK:  return "a block device";
        case S_IFLNK:  return "a symbolic link";
        default:       return "of an unknown type";
        }
}

void erase_free(void *p, size_t size) {
        if (!p)
                return;
        erase(p, size);
        free(p);
}

int read_fd_bounded_stat_into(int fd, const FileStat *st, size_t max, ReadFlags flags, char *buf, size_t *ret_size) {
        ssize_t n;

        if (!S_ISREG(st->mode))
                return -EBADFD;
        if (st->size < 0 || (unsigned long long) st->size > max)
                return -EFBIG;

        /* One byte more than allowed: the file may have grown after fstat. */
        if (st->size > 0) {
                /* A regular file with a size: a read that returns less than
                 * asked for has reached the end, so one read() does. (Files
                 * of /proc and /sys say size 0 and are read to the end.) */
                do
                        n = read(fd, buf, max + 1);
                while (n < 0 && errno == EINTR);
                if (n < 0)
                        n = negative_errno();
        } else
                n = loop_read(fd, buf, max + 1);
        if (n < 0 || (size_t) n > max ||
            ((flags & READ_REFUSE_NUL) && memchr(buf, 0, (size_t) n))) {
                if (flags & READ_SECRET)
                        erase(buf, max + 1);
                return n < 0 ? (int) n : (size_t) n > max ? -EFBIG : -EBADMSG;
        }
        if (flags & READ_NUL_TERMINATE)
                buf[n] = 0;
        *ret_size = (size_t) n;
        return 0;
}

int read_fd_bounded_stat(int fd, const FileStat *st, size_t max, ReadFlags flags, char **ret_buf, size_t *ret_size) {
        char *buf;
        int r;

        if (!S_ISREG(st->mode))
                return -EBADFD;
        if (st->size < 0 || (unsigned long long) st->size > max)
                return -EFBIG;
        buf = malloc(max + 1);
        if (!buf)
                return -ENOMEM;
        r = read_fd_bounded_stat_into(fd, st, max, flags, buf, ret_size);
        if (r < 0) {
                free(buf);
                return r;
        }
        *ret_buf = buf;
        return 0;
}

int read_fd_bounded(int fd, size_t max, ReadFlags flags, char **ret_buf, size_t *ret_size) {
        struct stat st;
        FileStat fst;

        if (fstat(fd, &st) < 0)
                return negative_errno();
        file_stat_from_stat(&st, &fst);
        return read_fd_bounded_stat(fd, &fst, max, flags, ret_buf, ret_size);
}

int read_fd_once_into(int fd, size_t max, char *buf, size_t *ret_size) {
        ssize_t n;

        do
                n = read(fd, buf, max + 1);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return negative_errno();
        if ((size_t) n > max)
                return -EFBIG;
        buf[n] = 0;
        *ret_size = (size_t) n;
        return 0;
}

int read_virtual_file_into(const char *path, size_t max, char *buf, size_t *ret_size) {
        _cleanup_close_ int fd = -EBADF;

        fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        return read_fd_once_into(fd, max, buf, ret_size);
}

int read_virtual_file(const char *path, size_t max, char **ret_buf, size_t *ret_size) {
        char *buf;
        int r;

        buf = malloc(max + 2);
        if (!buf)
                return -ENOMEM;
        r = read_virtual_file_into(path, max, buf, ret_size);
        if (r < 0) {
                free(buf);
                return r;
        }
        *ret_buf = buf;
        return 0;
}

int read_file_at(int dfd, const char *path, size_t max, ReadFlags flags,
                 char **ret_buf, size_t *ret_size, FileStat *ret_stat) {
        _cleanup_close_ int fd = -EBADF;
        FileStat st;
        int r;

        fd = open_nofollow_at(dfd, path, &st);
        if (fd < 0)
                return fd;
        if (S_ISDIR(st.mode))
                return -EISDIR;
        r = read_fd_bounded_stat(fd, &st, max, flags, ret_buf, ret_size);
        if (r >= 0 && ret_stat)
                *ret_stat = st;
        return r;
}

/* The temporary name of @name: ".#BASE.new", or with WRITE_UNIQUE_TMP
 * ".#BASE.XXXXXXXXXXXXXXXX" (@attempt picks another), in @name's directory. */
static int tmp_name(const char *name, WriteFlags flags, unsigned attempt, char *ret, size_t size) {
        const char *base = strrchr(name, '/');
        int dirlen = base ? (int) (base - name + 1) : 0, k;

        base = base ? base + 1 : name;
        if (flags & WRITE_UNIQUE_TMP) {
                /* Unique without a system call: the monotonic clock in ns
                 * (vDSO) and where this process's stack is (ASLR). O_EXCL
                 * catches the rare collision, and the next attempt takes
                 * another name. */
                struct timespec ts = {};
                char hex[17];
                uint64_t u;

                (void) clock_gettime(CLOCK_MONOTONIC, &ts);
                u = (uint64_t) ts.tv_sec * UINT64_C(1000000000) + (uint64_t) ts.tv_nsec;
                u ^= (uint64_t) (uintptr_t) &ts;
                u += (uint64_t) attempt * UINT64_C(0x9e3779b97f4a7c15);
                /* By hand: printf's zero padding alone costs a fresh process
                 * two page faults in libc. */
                for (int i = 15; i >= 0; i--, u >>= 4)
                        hex[i] = "0123456789abcdef"[u & 15];
                hex[16] = 0;
                k = snprintf(ret, size, "%.*s.#%s.%s", dirlen, name, base, hex);
        } else
                k = snprintf(ret, size, "%.*s.#%s.new", dirlen, name, base);
        return k < 0 || (size_t) k >= size ? -ENAMETOOLONG : 0;
}

int write_file_atomic_tmp_name(const char *name, char *ret, size_t size) {
        return tmp_name(name, 0, 0, ret, size);
}

#define UNIQUE_TMP_ATTEMPTS 16

int write_file_atomic_at(int dfd, const char *name, const void *buf, size_t size, mode_t mode, WriteFlags flags) {
        _cleanup_close_ int fd = -EBADF;
        char tmp[PATH_MAX];
        unsigned attempt = 0;
        int r;

        /* A durable write fsyncs @dfd: it must be the directory @name is in. */
        if ((flags & WRITE_DURABLE) && strchr(name, '/'))
                return -EINVAL;

        for (;;) {
                r = tmp_name(name, flags, attempt, tmp, sizeof(tmp));
                if (r < 0)
                        return r;
                /* O_EXCL: never write into a file someone else created or linked. */
                fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, mode);
                if (fd >= 0 || errno != EEXIST || !(flags & WRITE_UNIQUE_TMP) || ++attempt >= UNIQUE_TMP_ATTEMPTS)
                        break;
        }
        if (fd < 0 && errno == EEXIST && !(flags & WRITE_UNIQUE_TMP)) {
                /* A leftover from a run killed between create and rename was
                 * never in place: drop it. Only under the caller's lock is the
                 * fixed name nobody else's. */
                if (unlinkat(dfd, tmp, 0) < 0 && errno != ENOENT)
                        /* A directory, or a file we may not remove: not
                         * ours to clear, and in the way for good. */
                        return -EEXIST;
                fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, mode);
        }
        if (fd < 0)
                return negative_errno();
        /* The mode asked for, not what the umask left of it, on the file
         * descriptor written, before the rename puts it in place. */
        if (fchmod(fd, mode) < 0) {
                r = negative_errno();
                goto fail;
        }

        r = loop_write(fd, buf, size);
        if (r < 0)
                goto fail;

        /* The data must be on disk before the rename is: otherwise a power
         * cut after the rename reached the journal can leave a zero-length or
         * torn file under the real name (ext4 data=writeback, XFS). */
        if ((flags & WRITE_DURABLE) && fsync(fd) < 0) {
                r = negative_errno();
                goto fail;
        }
        fd = safe_close(fd);

        if (renameat(dfd, tmp, dfd, name) < 0) {
                r = negative_errno();
                goto fail;
        }

        /* The rename itself is durable only once the directory is. */
        if ((flags & WRITE_DURABLE) && fsync(dfd) < 0)
                return negative_errno();
        return 0;

fail:
        (void) unlinkat(dfd, tmp, 0);
        return r;
}

void stdio_ensure_open(void) {
        /* In order: each /dev/null opened takes the lowest free number,
         * the closed one, as every one below it is open by then. Without
         * /dev/null nothing can be done, and the rest still runs. */
        for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++)
                if (fcntl(fd, F_GETFD) < 0 && errno == EBADF)
                        (void) open("/dev/null", O_RDWR | O_NOCTTY);
}

static void on_alarm(int sig) {
        /* Nothing: its only job is to interrupt flock() with EINTR. */
}

/* flock(LOCK_EX) bounded by @timeout: a timer signal installed without
 * SA_RESTART interrupts the wait. The free lock, the common case, costs
 * one system call. */
int flock_timeout(int fd, uint64_t timeout) {
        struct sigaction sa = { .sa_handler = on_alarm }, old_sa;
        struct itimerval it = {}, old_it;
        sigset_t unblock, old_mask;
        uint64_t deadline;
        int r;

        if (flock(fd, LOCK_EX | LOCK_NB) >= 0)
                return 0;
        if (errno != EWOULDBLOCK)
                return negative_errno();

        deadline = now_usec(CLOCK_MONOTONIC) + timeout;
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGALRM, &sa, &old_sa) < 0)
                return negative_errno();
        /* A supervisor may have started us with SIGALRM blocked (the mask
         * outlives execve): no tick would then ever end the wait. */
        sigemptyset(&unblock);
        sigaddset(&unblock, SIGALRM);
        if (sigprocmask(SIG_UNBLOCK, &unblock, &old_mask) < 0) {
                r = negative_errno();
                (void) sigaction(SIGALRM, &old_sa, NULL);
                return r;
        }
        /* Ticks, not one shot: a signal that lands just before flock()
         * blocks would otherwise be lost. */
        it.it_interval.tv_usec = it.it_value.tv_usec = 100 * 1000;
        if (setitimer(ITIMER_REAL, &it, &old_it) < 0) {
                r = negative_errno();
                (void) sigaction(SIGALRM, &old_sa, NULL);
                (void) sigprocmask(SIG_SETMASK, &old_mask, NULL);
                return r;
        }
        for (;;) {
                if (flock(fd, LOCK_EX) >= 0) {
                        r = 0;
                        break;
                }
                if (errno != EINTR) {
                        r = negative_errno();
                        break;
                }
                if (now_usec(CLOCK_MONOTONIC) >= deadline) {
                        r = -ETIMEDOUT;
                        break;
                }
        }
        /* The timer stopped while SIGALRM is still ours and unblocked: a
         * last tick is taken by on_alarm(), none is left pending. */
        (void) setitimer(ITIMER_REAL, &old_it, NULL);
        (void) sigaction(SIGALRM, &old_sa, NULL);
        (void) sigprocmask(SIG_SETMASK, &old_mask, NULL);
        return r;
}
