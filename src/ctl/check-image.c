// SPDX-License-Identifier: LGPL-2.1-or-later
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "check-image.h"
#include "machine-id.h"
#include "macro.h"
#include "seed-store.h"

#define OUR_SEED_WHY "every clone would load the same seed; with a shared machine-id each would also credit it"
#define MACHINE_ID_WHY "every clone would have the same machine ID, and seeds bound to it would pass the binding " \
        "check on each; 'uninitialized' makes systemd generate one at first boot"

int image_checks_build(const char *seed_dir, ImageCheck **ret, size_t *ret_n) {
        size_t n = 0;
        ImageCheck *c;
        char *ours;

        c = calloc(legacy_seeds_count + 2, sizeof(ImageCheck));
        if (!c)
                return -ENOMEM;
        while (*seed_dir == '/')
                seed_dir++;
        if (asprintf(&ours, "%s/%s", seed_dir, SEED_FILE_NAME) < 0) {
                free(c);
                return -ENOMEM;
        }
        c[n++] = (ImageCheck) { ours, IMAGE_SEED, "entropy-gate seed", OUR_SEED_WHY };
        for (size_t i = 0; i < legacy_seeds_count; i++)
                c[n++] = (ImageCheck) { legacy_seeds[i].path + 1, IMAGE_SEED, legacy_seeds[i].what, legacy_seeds[i].why };
        c[n++] = (ImageCheck) { "etc/machine-id", IMAGE_MACHINE_ID, "machine ID", MACHINE_ID_WHY };
        *ret = c;
        *ret_n = n;
        return 0;
}

void image_checks_free(ImageCheck *checks, size_t n) {
        if (checks && n > 0)
                free((char *) checks[0].path);
        free(checks);
}


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

/* Empty, or "uninitialized": systemd makes a new ID on each machine. */
static bool machine_id_is_clean(const char *buf, size_t n) {
        MachineId m;

        machine_id_parse(buf, n, &m);
        return m.state == MACHINE_ID_EMPTY || m.state == MACHINE_ID_UNINITIALIZED;
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
                char buf[MACHINE_ID_FILE_MAX];
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
