// SPDX-License-Identifier: LGPL-2.1-or-later
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "macro.h"
#include "seed-store.h"

static void stat_to_seed_stat(const struct stat *st, SeedStat *ret) {
        *ret = (SeedStat) {
                .uid = st->st_uid,
                .mode = st->st_mode,
                .size = st->st_size,
        };
}

int seed_dir_open_locked(const char *path) {
        _cleanup_close_ int dfd = -EBADF;
        struct stat st;

        /* Only the last component is created: a missing /var/lib means the
         * state file system is not mounted, and creating a directory tree on
         * the root file system underneath the mount point would hide that. */
        if (mkdir(path, 0700) < 0 && errno != EEXIST)
                return negative_errno();

        dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY);
        if (dfd < 0)
                return negative_errno();
        if (fstat(dfd, &st) < 0)
                return negative_errno();
        if (!S_ISDIR(st.st_mode))
                return -ENOTDIR;

        /* Blocking is bounded: the only other holder is another entropy-seed,
         * which never waits for anything while holding it. */
        for (;;) {
                if (flock(dfd, LOCK_EX) >= 0)
                        break;
                if (errno != EINTR)
                        return negative_errno();
        }

        int r = dfd;
        dfd = -EBADF;
        return r;
}

int seed_dir_stat(int dfd, SeedStat *ret) {
        struct stat st;

        if (fstat(dfd, &st) < 0)
                return negative_errno();
        stat_to_seed_stat(&st, ret);
        return 0;
}

int seed_file_open(int dfd, const char *name, SeedStat *ret_stat) {
        _cleanup_close_ int fd = -EBADF;
        struct stat st;

        /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
         * writer that never comes, and boot with it. O_NOFOLLOW: the seed is
         * ours only if the name itself is the file; a symlink could point at
         * anything, including a file every clone shares. */
        fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        if (fstat(fd, &st) < 0)
                return negative_errno();
        stat_to_seed_stat(&st, ret_stat);

        int r = fd;
        fd = -EBADF;
        return r;
}

int seed_file_read(int fd, size_t max, void **ret_buf, size_t *ret_size) {
        struct stat st;
        unsigned char *buf;
        size_t n = 0;

        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode))
                return -EBADFD;
        if (st.st_size < 0 || (unsigned long long) st.st_size > max)
                return -EFBIG;

        /* One byte more than allowed: the file may have grown after fstat. */
        buf = malloc(max + 1);
        if (!buf)
                return -ENOMEM;
        for (;;) {
                ssize_t k = read(fd, buf + n, max + 1 - n);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0) {
                        int r = negative_errno();
                        erase(buf, max + 1);
                        free(buf);
                        return r;
                }
                if (k == 0)
                        break;
                n += (size_t) k;
                if (n > max) {
                        erase(buf, max + 1);
                        free(buf);
                        return -EFBIG;
                }
        }
        *ret_buf = buf;
        *ret_size = n;
        return 0;
}

int read_file_bounded(const char *path, size_t max, void **ret_buf, size_t *ret_size) {
        _cleanup_close_ int fd = -EBADF;
        struct stat st;

        fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode))
                return -EBADFD;
        return seed_file_read(fd, max, ret_buf, ret_size);
}

static int write_all(int fd, const void *buf, size_t size) {
        for (const unsigned char *p = buf; size > 0;) {
                ssize_t n = write(fd, p, size);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (n == 0)
                        return -EIO;
                p += n;
                size -= (size_t) n;
        }
        return 0;
}

int seed_file_write_atomic(int dfd, const char *name, const void *buf, size_t size) {
        _cleanup_close_ int fd = -EBADF;
        char tmp[256];
        int r;

        if ((size_t) snprintf(tmp, sizeof(tmp), ".#%s.new", name) >= sizeof(tmp))
                return -ENAMETOOLONG;

        /* A leftover from a run killed between create and rename holds a seed
         * that was never in place and never credited: drop it. We hold the
         * directory lock, so no other writer is using that name. */
        if (unlinkat(dfd, tmp, 0) < 0 && errno != ENOENT)
                return negative_errno();

        /* O_EXCL: never write into a file someone else created or linked. */
        fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
        if (fd < 0)
                return negative_errno();

        r = write_all(fd, buf, size);
        if (r < 0)
                goto fail;

        /* The data must be on disk before the rename is: otherwise a power cut
         * after the rename reached the journal can leave a zero-length or torn
         * seed under the real name (ext4 data=writeback, XFS). */
        if (fsync(fd) < 0) {
                r = negative_errno();
                goto fail;
        }
        fd = safe_close(fd);

        if (renameat(dfd, tmp, dfd, name) < 0) {
                r = negative_errno();
                goto fail;
        }

        /* The rename itself is durable only once the directory is: until then
         * a power cut can bring back the old seed, which the caller is about to
         * credit. Crediting only after this returns is what keeps a seed from
         * being credited twice. */
        if (fsync(dfd) < 0)
                return negative_errno();
        return 0;

fail:
        (void) unlinkat(dfd, tmp, 0);
        return r;
}
