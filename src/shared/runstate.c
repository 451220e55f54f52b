// SPDX-License-Identifier: LGPL-2.1-or-later
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "macro.h"
#include "paths.h"
#include "runstate.h"

#define RUNSTATE_MAX 4096

const char *runstate_dir(void) {
        const char *e = getenv("ENTROPY_GATE_RUN_DIR");
        return e && *e ? e : RUN_DIR_DEFAULT;
}

int runstate_write(const char *name, const char *content) {
        const char *dir = runstate_dir();
        _cleanup_close_ int dfd = -EBADF, fd = -EBADF;
        char tmp[64];
        size_t left = strlen(content);
        int r;

        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return negative_errno();
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (dfd < 0)
                return negative_errno();

        snprintf(tmp, sizeof(tmp), ".#%s.%ld", name, (long) getpid());
        fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0)
                return negative_errno();
        for (const char *p = content; left > 0;) {
                ssize_t n = write(fd, p, left);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        r = negative_errno();
                        goto fail;
                }
                p += n;
                left -= (size_t) n;
        }
        /* No fsync: /run is tmpfs and this is about this boot only. */
        if (renameat(dfd, tmp, dfd, name) < 0) {
                r = negative_errno();
                goto fail;
        }
        return 0;

fail:
        (void) unlinkat(dfd, tmp, 0);
        return r;
}

int runstate_read_key(const char *name, const char *key, char **ret) {
        _cleanup_close_ int dfd = -EBADF, fd = -EBADF;
        char buf[RUNSTATE_MAX + 1];
        size_t klen = strlen(key);
        ssize_t n;

        dfd = open(runstate_dir(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return negative_errno();
        fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        if (fd < 0)
                return negative_errno();
        n = read(fd, buf, RUNSTATE_MAX);
        if (n < 0)
                return negative_errno();
        buf[n] = 0;

        for (char *line = buf, *next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;
                if (strncmp(line, key, klen) == 0 && line[klen] == '=') {
                        char *v = strdup(line + klen + 1);
                        if (!v)
                                return -ENOMEM;
                        *ret = v;
                        return 1;
                }
        }
        return 0;
}
