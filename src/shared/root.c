// SPDX-License-Identifier: LGPL-2.1-or-later
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#endif

#include "macro.h"
#include "root.h"

/* As many as the kernel follows in one lookup (MAXSYMLINKS is 40). */
#define CHASE_LINKS_MAX 40

static char root_dir_buf[PATH_MAX];
static const char *root_dir;
static int root_dfd = -EBADF;

int root_set(const char *dir) {
        size_t l;
        int fd;

        root_dir = NULL;
        root_dfd = safe_close(root_dfd);
        if (!dir)
                return 0;
        l = strlen(dir);
        while (l > 0 && dir[l - 1] == '/')
                l--;
        if (l == 0)
                /* "", "/", "//": the real root. */
                return 0;
        if (l >= sizeof(root_dir_buf))
                return -ENAMETOOLONG;
        memcpy(root_dir_buf, dir, l);
        root_dir_buf[l] = 0;
        fd = open(root_dir_buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        root_dir = root_dir_buf;
        root_dfd = fd;
        return 0;
}

const char *root_get(void) {
        return root_dir;
}

int root_fd(void) {
        if (root_dfd < 0) {
                root_dfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY);
                if (root_dfd < 0)
                        return negative_errno();
        }
        return root_dfd;
}

int root_path(const char *path, char **ret) {
        char *p;

        if (asprintf(&p, "%s%s", root_dir ?: "", path) < 0)
                return -ENOMEM;
        *ret = p;
        return 0;
}

const char *root_path_buf(const char *path, char buf[static PATH_MAX]) {
        int k;

        if (!root_dir)
                return path;
        k = snprintf(buf, PATH_MAX, "%s%s", root_dir, path);
        return k < 0 || k >= PATH_MAX ? NULL : buf;
}

static int open_flags(ChaseFlags flags) {
        return O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | (flags & CHASE_NOFOLLOW ? O_NOFOLLOW : 0) |
                (flags & CHASE_DIRECTORY ? O_DIRECTORY : 0);
}

/* The kernel's own resolver. -ENOSYS where it has none: before 5.6, or
 * behind a seccomp filter (which may say EPERM instead). */
static int chase_kernel(int root_fd, const char *path, ChaseFlags flags) {
#if defined(SYS_openat2) && defined(RESOLVE_IN_ROOT)
        struct open_how how = {
                .flags = (uint64_t) open_flags(flags),
                .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS |
                        (flags & CHASE_NO_XDEV ? RESOLVE_NO_XDEV : 0) |
                        (flags & CHASE_NO_SYMLINKS ? RESOLVE_NO_SYMLINKS : 0),
        };
        long fd = -1;

        /* EAGAIN: a rename somewhere in the tree raced the lookup of "..";
         * the kernel asks to try again rather than risk leaving the root. */
        for (unsigned i = 0; i < 16; i++) {
                fd = syscall(SYS_openat2, root_fd, *path ? path : ".", &how, sizeof(how));
                if (fd >= 0 || errno != EAGAIN)
                        break;
        }
        if (fd < 0)
                return errno == EPERM ? -ENOSYS : negative_errno();
        return (int) fd;
#else
        return -ENOSYS;
#endif
}

/* Reopen the directory @resolved ("a/b/c", components already found to
 * be directories, not links) from @root_fd, after a ".." took the walk one
 * step up: going back down from the root cannot leave it, where opening
 * ".." of a directory that a rename moved out of the root would. */
static int reopen_resolved(int root_fd, const char *resolved, ChaseFlags flags, dev_t dev) {
        _cleanup_close_ int dir = -EBADF;
        char buf[PATH_MAX], *p, *name;

        dir = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
        if (dir < 0)
                return negative_errno();
        snprintf(buf, sizeof(buf), "%s", resolved);
        for (p = buf; *p;) {
                struct stat st;
                int fd;

                name = p;
                p = strchrnul(p, '/');
                if (*p)
                        *p++ = 0;
                fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0)
                        return errno == ELOOP ? -ESTALE : negative_errno();
                safe_close(dir);
                dir = fd;
                if ((flags & CHASE_NO_XDEV) && (fstat(dir, &st) < 0 || st.st_dev != dev))
                        return -EXDEV;
        }
        return TAKE_FD(dir);
}

/* The same rules by hand: one component at a time, each opened O_NOFOLLOW
 * relative to the directory before it. A symlink's target replaces it
 * (from the root when absolute). Mount points are recognized by st_dev
 * only: a bind mount within one file system is caught where the kernel
 * resolves (RESOLVE_NO_XDEV), which every kernel since 5.6 does. */
static int chase_by_hand(int root_fd, const char *path, ChaseFlags flags) {
        _cleanup_close_ int dir = -EBADF;
        char todo[2 * PATH_MAX], resolved[PATH_MAX] = "", target[PATH_MAX], *p;
        size_t resolved_len = 0;
        unsigned links = 0;
        struct stat root_st;

        if (fstat(root_fd, &root_st) < 0)
                return negative_errno();
        if (strlen(path) >= PATH_MAX)
                return -ENAMETOOLONG;
        snprintf(todo, sizeof(todo), "%s", path);
        dir = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
        if (dir < 0)
                return negative_errno();

        for (p = todo;;) {
                _cleanup_close_ int fd = -EBADF;
                char *name;
                struct stat st;
                ssize_t n;
                bool last, slash;
                int k;

                while (*p == '/')
                        p++;
                if (!*p)
                        /* The path named a directory (or the root itself). */
                        return TAKE_FD(dir);
                name = p;
                p = strchrnul(p, '/');
                last = !p[strspn(p, "/")];
                slash = *p == '/';
                if (*p)
                        *p++ = 0;

                if (streq(name, "."))
                        continue;
                if (streq(name, "..")) {
                        /* Never above the root: there ".." is the root itself. */
                        char *up;

                        if (resolved_len == 0)
                                continue;
                        up = strrchr(resolved, '/');
                        resolved_len = up ? (size_t) (up - resolved) : 0;
                        resolved[resolved_len] = 0;
                        safe_close(dir);
                        dir = reopen_resolved(root_fd, resolved, flags, root_st.st_dev);
                        if (dir < 0)
                                return dir;
                        continue;
                }

                /* "name/" names a directory, as it does to the kernel. */
                fd = openat(dir, name, last ? open_flags(flags) | O_NOFOLLOW | (slash ? O_DIRECTORY : 0) :
                                              O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
                if (fd >= 0) {
                        if ((flags & CHASE_NO_XDEV) && (fstat(fd, &st) < 0 || st.st_dev != root_st.st_dev))
                                return -EXDEV;
                        if (last)
                                return TAKE_FD(fd);
                        k = snprintf(resolved + resolved_len, sizeof(resolved) - resolved_len, "%s%s",
                                     resolved_len ? "/" : "", name);
                        if (k < 0 || (size_t) k >= sizeof(resolved) - resolved_len)
                                return -ENAMETOOLONG;
                        resolved_len += (size_t) k;
                        safe_close(dir);
                        dir = TAKE_FD(fd);
                        continue;
                }
                if ((errno != ELOOP && errno != ENOTDIR) ||
                    fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(st.st_mode))
                        return negative_errno();

                /* A symlink. */
                if ((flags & CHASE_NO_SYMLINKS) || (last && (flags & CHASE_NOFOLLOW)))
                        return -ELOOP;
                if (++links > CHASE_LINKS_MAX)
                        return -ELOOP;
                n = readlinkat(dir, name, target, sizeof(target) - 1);
                if (n < 0)
                        return negative_errno();
                target[n] = 0;
                /* Its target replaces it: "TARGET/REST", in place. */
                k = snprintf(todo + sizeof(todo) / 2, sizeof(todo) / 2, "%s%s%s", target,
                             *p || slash ? "/" : "", p);
                if (k < 0 || (size_t) k >= sizeof(todo) / 2)
                        return -ENAMETOOLONG;
                memmove(todo, todo + sizeof(todo) / 2, (size_t) k + 1);
                p = todo;
                if (target[0] == '/') {
                        safe_close(dir);
                        dir = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
                        if (dir < 0)
                                return negative_errno();
                        resolved_len = 0;
                        resolved[0] = 0;
                }
        }
}

int chase_open_by_hand_at(int root_fd, const char *path, ChaseFlags flags) {
        return chase_by_hand(root_fd, path, flags & ~CHASE_MKDIR);
}

/* CHASE_DIRECTORY is O_DIRECTORY on every last open, by the kernel and by
 * hand (a link's target is opened with it too): no fstat() after. */
static int chase_plain(int root_fd, const char *path, ChaseFlags flags) {
        int fd = chase_kernel(root_fd, path, flags);

        return fd == -ENOSYS ? chase_by_hand(root_fd, path, flags) : fd;
}

/* Split @path into its parent (in @ret_parent, a buffer of PATH_MAX) and
 * its last component (in @ret_name). */
static int path_split(const char *path, char *ret_parent, char ret_name[static NAME_MAX + 1]) {
        size_t l = strlen(path), start;

        while (l > 0 && path[l - 1] == '/')
                l--;
        start = l;
        while (start > 0 && path[start - 1] != '/')
                start--;
        if (l == start || l - start > NAME_MAX)
                return l == start ? -EINVAL : -ENAMETOOLONG;
        if ((l - start == 1 && path[start] == '.') || (l - start == 2 && path[start] == '.' && path[start + 1] == '.'))
                return -EINVAL;
        if (start >= PATH_MAX)
                return -ENAMETOOLONG;
        memcpy(ret_parent, path, start);
        ret_parent[start] = 0;
        memcpy(ret_name, path + start, l - start);
        ret_name[l - start] = 0;
        return 0;
}

int chase_parent_at(int root_fd, const char *path, ChaseFlags flags, char ret_name[static NAME_MAX + 1]) {
        char parent[PATH_MAX], name[NAME_MAX + 1];
        int fd, r;

        r = path_split(path, parent, name);
        if (r < 0)
                return r;
        fd = chase_plain(root_fd, parent, (flags & ~(CHASE_NOFOLLOW | CHASE_MKDIR)) | CHASE_DIRECTORY);
        if (fd < 0)
                return fd;
        memcpy(ret_name, name, strlen(name) + 1);
        return fd;
}

int chase_open_at(int root_fd, const char *path, ChaseFlags flags) {
        char name[NAME_MAX + 1];
        int fd, pfd;

        fd = chase_plain(root_fd, path, flags & ~CHASE_MKDIR);
        if (fd != -ENOENT || !(flags & CHASE_MKDIR) || !(flags & CHASE_DIRECTORY))
                return fd;

        /* Only the last component is created: a missing parent (an
         * unmounted /var/lib) stays an error. */
        pfd = chase_parent_at(root_fd, path, flags, name);
        if (pfd < 0)
                return pfd;
        if (mkdirat(pfd, name, 0700) < 0 && errno != EEXIST) {
                fd = negative_errno();
                safe_close(pfd);
                return fd;
        }
        safe_close(pfd);
        return chase_plain(root_fd, path, flags & ~CHASE_MKDIR);
}

int root_open(const char *path, ChaseFlags flags) {
        int fd = root_fd();

        return fd < 0 ? fd : chase_open_at(fd, path, flags);
}

int root_open_parent(const char *path, ChaseFlags flags, char ret_name[static NAME_MAX + 1]) {
        int fd = root_fd();

        return fd < 0 ? fd : chase_parent_at(fd, path, flags, ret_name);
}

int root_open_follow(const char *path) {
        return root_open(path, 0);
}

int fd_is_system_root(int fd) {
        static const char *const roots[] = { "/", "/proc/1/root" };
        struct stat a, b;

        if (fstat(fd, &a) < 0)
                return negative_errno();
        for (size_t i = 0; i < ELEMENTSOF(roots); i++)
                /* /proc/1/root needs privileges to look at: a stat() that
                 * fails there says nothing, and "/" was compared already. */
                if (stat(roots[i], &b) >= 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
                        return 1;
        return 0;
}

bool path_is_normalized_absolute(const char *path) {
        const char *p;

        if (!path || path[0] != '/')
                return false;
        if (streq(path, "/"))
                return true;
        for (p = path; *p;) {
                size_t n;

                /* At a '/': the component after it. */
                p++;
                n = strcspn(p, "/");
                if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
                        return false;
                p += n;
        }
        return true;
}

/* The last component @name in the directory @dfd, O_PATH and not
 * followed, and not across a mount point with CHASE_NO_XDEV. */
static int open_last_as_path(int dfd, const char *name, ChaseFlags flags) {
        struct stat a, b;
        int fd;

#if defined(SYS_openat2) && defined(RESOLVE_IN_ROOT)
        struct open_how how = {
                .flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
                .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS |
                        (flags & CHASE_NO_XDEV ? RESOLVE_NO_XDEV : 0),
        };
        long k = syscall(SYS_openat2, dfd, name, &how, sizeof(how));

        if (k >= 0)
                return (int) k;
        if (errno != ENOSYS && errno != EPERM)
                return negative_errno();
#endif
        fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        /* By hand, as chase_by_hand() does: the device number only. */
        if ((flags & CHASE_NO_XDEV) && (fstat(dfd, &a) < 0 || fstat(fd, &b) < 0 || a.st_dev != b.st_dev)) {
                safe_close(fd);
                return -EXDEV;
        }
        return fd;
}

int chase_open_path_at(int root_fd, const char *path, ChaseFlags flags) {
        char cur[PATH_MAX], next[PATH_MAX], name[NAME_MAX + 1], target[PATH_MAX];
        unsigned links = 0;

        if (strlen(path) >= sizeof(cur))
                return -ENAMETOOLONG;
        memcpy(cur, path, strlen(path) + 1);
        /* "name/" names a directory, as it does to the kernel. */
        if (*path && path[strlen(path) - 1] == '/')
                flags |= CHASE_DIRECTORY;

        for (;;) {
                _cleanup_close_ int pfd = -EBADF, fd = -EBADF;
                struct stat st;
                size_t dirlen;
                ssize_t n;
                int k;

                /* Every directory on the way by the resolver, with its
                 * rules; only the last step is ours. */
                pfd = chase_parent_at(root_fd, cur, flags & ~CHASE_DIRECTORY, name);
                if (pfd < 0)
                        return pfd;
                fd = open_last_as_path(pfd, name, flags);
                if (fd < 0)
                        return fd;
                if (fstat(fd, &st) < 0)
                        return negative_errno();
                if (!S_ISLNK(st.st_mode)) {
                        if ((flags & CHASE_DIRECTORY) && !S_ISDIR(st.st_mode))
                                return -ENOTDIR;
                        return TAKE_FD(fd);
                }

                /* A symlink: its target replaces it, from the root when
                 * absolute, from its directory otherwise. */
                if ((flags & (CHASE_NOFOLLOW | CHASE_NO_SYMLINKS)) || ++links > CHASE_LINKS_MAX)
                        return -ELOOP;
                n = readlinkat(fd, "", target, sizeof(target) - 1);
                if (n < 0)
                        return negative_errno();
                if (n == 0)
                        return -ENOENT;
                target[n] = 0;
                dirlen = strlen(cur);
                while (dirlen > 0 && cur[dirlen - 1] == '/')
                        dirlen--;
                while (dirlen > 0 && cur[dirlen - 1] != '/')
                        dirlen--;
                k = target[0] == '/' ? snprintf(next, sizeof(next), "%s", target) :
                        snprintf(next, sizeof(next), "%.*s%s", (int) dirlen, cur, target);
                if (k < 0 || (size_t) k >= sizeof(next))
                        return -ENAMETOOLONG;
                memcpy(cur, next, (size_t) k + 1);
        }
}

int root_open_path(const char *path, ChaseFlags flags) {
        int fd = root_fd();

        return fd < 0 ? fd : chase_open_path_at(fd, path, flags);
}

int root_open_regular(const char *path, ChaseFlags flags, FileStat *ret_stat) {
        _cleanup_close_ int fd = -EBADF;

        fd = root_open_path(path, flags);
        if (fd < 0)
                return fd;
        return fd_reopen_regular(fd, ret_stat);
}
