// SPDX-License-Identifier: LGPL-2.1-or-later
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "check-image.h"
#include "macro.h"

const ImageCheck image_checks[] = {
        { "var/lib/entropy-gate/seed", IMAGE_SEED, "entropy-gate seed",
          "every clone would load the same seed; with a shared machine-id each would also credit it" },
        { "var/lib/systemd/random-seed", IMAGE_SEED, "systemd random seed",
          "systemd-random-seed loads it on every clone (and credits it where configured to)" },
        { "var/lib/seedrng/seed.credit", IMAGE_SEED, "SeedRNG creditable seed",
          "SeedRNG credits it: every clone would count the same bytes as entropy" },
        { "var/lib/seedrng/seed.no-credit", IMAGE_SEED, "SeedRNG seed",
          "mixed on every clone: not credited, but no secret either" },
        { "etc/urandom.seed", IMAGE_SEED, "urandom seed (init scripts)",
          "init scripts write it to /dev/urandom on every clone" },
        { "etc/machine-id", IMAGE_MACHINE_ID, "machine ID",
          "every clone would have the same machine ID, and seeds bound to it would pass the binding check on each; "
          "'uninitialized' makes systemd generate one at first boot" },
};
const unsigned image_checks_count = ELEMENTSOF(image_checks);

#define MACHINE_ID_READ_MAX 128

static void set_symlink(ImageFinding *f, int dfd, const char *name, const char *shown) {
        char target[256];
        ssize_t n = readlinkat(dfd, name, target, sizeof(target) - 1);

        if (n < 0)
                snprintf(target, sizeof(target), "?");
        else
                target[n] = 0;
        f->state = IMAGE_SYMLINK;
        snprintf(f->detail, sizeof(f->detail), "/%s is a symlink to %s: not followed", shown, target);
}

/* Walk every directory component of @path below @root_fd without
 * following symlinks. Returns the parent directory's fd with *ret_name
 * pointing into @path at the last component; or -errno with *ret filled
 * for the reasons that are findings (a symlink or a non-directory on the
 * way, -ENOENT when simply absent). */
static int open_parent(int root_fd, const char *path, const char **ret_name, ImageFinding *ret) {
        _cleanup_close_ int fd = -EBADF;
        char walked[256] = "";
        const char *p = path;

        fd = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
        if (fd < 0)
                return negative_errno();

        for (;;) {
                const char *slash = strchr(p, '/');
                char comp[256];
                struct stat st;
                int nfd;

                if (!slash) {
                        *ret_name = p;
                        nfd = fd;
                        fd = -EBADF;
                        return nfd;
                }
                snprintf(comp, sizeof(comp), "%.*s", (int) (slash - p), p);
                snprintf(walked, sizeof(walked), "%.*s", (int) (slash - path), path);

                nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (nfd < 0) {
                        int r = negative_errno();

                        if (r == -ENOENT) {
                                ret->state = IMAGE_ABSENT;
                                return r;
                        }
                        if (fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) >= 0 && S_ISLNK(st.st_mode)) {
                                set_symlink(ret, fd, comp, walked);
                                return -ELOOP;
                        }
                        ret->state = IMAGE_ODD;
                        snprintf(ret->detail, sizeof(ret->detail), "/%s: %s", walked,
                                 r == -ENOTDIR ? "not a directory" : strerror(-r));
                        return r;
                }
                safe_close(fd);
                fd = nfd;
                p = slash + 1;
        }
}

static bool machine_id_is_clean(const char *buf, size_t n) {
        /* Empty, or "uninitialized": systemd makes a new ID on this machine. */
        while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
                n--;
        return n == 0 || (n == strlen("uninitialized") && strncmp(buf, "uninitialized", n) == 0);
}

int image_check_one(int root_fd, const ImageCheck *c, ImageFinding *ret) {
        ImageFinding f = {};
        _cleanup_close_ int dfd = -EBADF, fd = -EBADF;
        const char *name;
        struct stat st;

        dfd = open_parent(root_fd, c->path, &name, &f);
        if (dfd < 0) {
                *ret = f;
                return 0;
        }
        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                if (errno == ENOENT)
                        f.state = IMAGE_ABSENT;
                else {
                        f.state = IMAGE_ODD;
                        snprintf(f.detail, sizeof(f.detail), "cannot stat: %s", strerror(errno));
                }
        } else if (S_ISLNK(st.st_mode))
                set_symlink(&f, dfd, name, c->path);
        else if (!S_ISREG(st.st_mode)) {
                f.state = IMAGE_ODD;
                snprintf(f.detail, sizeof(f.detail), "not a regular file");
        } else if (c->kind == IMAGE_SEED) {
                f.state = IMAGE_FOUND;
                snprintf(f.detail, sizeof(f.detail), "%lld bytes", (long long) st.st_size);
        } else {
                char buf[MACHINE_ID_READ_MAX];
                ssize_t n;

                fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
                n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));
                if (n < 0) {
                        f.state = IMAGE_ODD;
                        snprintf(f.detail, sizeof(f.detail), "cannot read: %s", strerror(errno));
                } else if (machine_id_is_clean(buf, (size_t) n))
                        f.state = IMAGE_CLEAN;
                else {
                        f.state = IMAGE_FOUND;
                        snprintf(f.detail, sizeof(f.detail), "holds a machine ID");
                }
        }
        *ret = f;
        return 0;
}

static int write_uninitialized(int dfd, const char *name) {
        static const char text[] = "uninitialized\n";
        _cleanup_close_ int fd = -EBADF;
        struct stat st;
        ssize_t n;

        fd = openat(dfd, name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode))
                return -EBADFD;
        if (ftruncate(fd, 0) < 0)
                return negative_errno();
        n = write(fd, text, sizeof(text) - 1);
        if (n < 0)
                return negative_errno();
        if ((size_t) n != sizeof(text) - 1)
                return -EIO;
        /* The image is about to be shipped: make it reach the disk. */
        if (fsync(fd) < 0)
                return negative_errno();
        return 0;
}

int image_fix_one(int root_fd, const ImageCheck *c) {
        ImageFinding f = {};
        _cleanup_close_ int dfd = -EBADF;
        const char *name;
        struct stat st;

        dfd = open_parent(root_fd, c->path, &name, &f);
        if (dfd < 0)
                return dfd;
        /* Walked again: only a regular file reached without a symlink is touched. */
        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode))
                return S_ISLNK(st.st_mode) ? -ELOOP : -EBADFD;

        if (c->kind == IMAGE_MACHINE_ID)
                return write_uninitialized(dfd, name);
        if (unlinkat(dfd, name, 0) < 0)
                return negative_errno();
        if (fsync(dfd) < 0)
                return negative_errno();
        return 0;
}
