// SPDX-License-Identifier: LGPL-2.1-or-later
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

#include "macro.h"
#include "root.h"

/* As many as the kernel follows in one lookup (MAXSYMLINKS is 40). */
#define CHASE_LINKS_MAX 40

static const char *root_dir;

void root_set(const char *dir) {
        static char buf[PATH_MAX];
        size_t l;

        root_dir = NULL;
        if (!dir)
                return;
        l = strlen(dir);
        while (l > 0 && dir[l - 1] == '/')
                l--;
        if (l == 0 || l >= sizeof(buf))
                return;
        memcpy(buf, dir, l);
        buf[l] = 0;
        root_dir = buf;
}

const char *root_get(void) {
        return root_dir;
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

int chase_open_at(int root_fd, const char *path) {
        _cleanup_close_ int dir = -EBADF;
        _cleanup_free_ char *todo = NULL;
        unsigned links = 0, depth = 0;
        char *p;

        dir = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
        if (dir < 0)
                return negative_errno();
        todo = strdup(path);
        if (!todo)
                return -ENOMEM;

        for (p = todo;;) {
                _cleanup_close_ int fd = -EBADF;
                char *name, target[PATH_MAX], *next;
                struct stat st;
                ssize_t n;
                bool last;

                while (*p == '/')
                        p++;
                if (!*p)
                        /* The path named a directory (or the root itself). */
                        return TAKE_FD(dir);
                name = p;
                p = strchrnul(p, '/');
                last = !p[strspn(p, "/")];
                if (*p)
                        *p++ = 0;

                if (streq(name, "."))
                        continue;
                if (streq(name, "..")) {
                        /* Never above the root: there ".." is the root itself. */
                        if (depth == 0)
                                continue;
                        fd = openat(dir, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        if (fd < 0)
                                return negative_errno();
                        safe_close(dir);
                        dir = TAKE_FD(fd);
                        depth--;
                        continue;
                }

                fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY |
                                       (last ? 0 : O_DIRECTORY));
                if (fd >= 0) {
                        if (last)
                                return TAKE_FD(fd);
                        safe_close(dir);
                        dir = TAKE_FD(fd);
                        depth++;
                        continue;
                }
                if ((errno != ELOOP && errno != ENOTDIR) ||
                    fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(st.st_mode))
                        return negative_errno();

                /* A symlink: its target replaces it, resolved inside the root. */
                if (++links > CHASE_LINKS_MAX)
                        return -ELOOP;
                n = readlinkat(dir, name, target, sizeof(target) - 1);
                if (n < 0)
                        return negative_errno();
                target[n] = 0;
                if (asprintf(&next, "%s/%s", target, p) < 0)
                        return -ENOMEM;
                free(todo);
                todo = p = next;
                if (target[0] == '/') {
                        safe_close(dir);
                        dir = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
                        if (dir < 0)
                                return negative_errno();
                        depth = 0;
                }
        }
}

int root_open_follow(const char *path) {
        _cleanup_close_ int root_fd = -EBADF;
        int fd;

        if (!root_dir) {
                fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
                return fd < 0 ? negative_errno() : fd;
        }
        root_fd = open(root_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (root_fd < 0)
                return negative_errno();
        return chase_open_at(root_fd, path);
}
