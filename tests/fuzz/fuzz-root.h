/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A scratch root, made once per fuzzing process, for targets that drive the
 * loaders (config_load(), proc_cmdline_read_into()) through a file holding
 * exactly the input's bytes: their bounded reads are then fuzzed at every
 * size, the buffer boundaries among them. */

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "root.h"

static char fuzz_root_dir[64];

static inline int fuzz_root_remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw) {
        (void) remove(path);
        return 0;
}

static inline void fuzz_root_remove(void) {
        (void) nftw(fuzz_root_dir, fuzz_root_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static inline const char *fuzz_root(void) {
        if (!fuzz_root_dir[0]) {
                snprintf(fuzz_root_dir, sizeof(fuzz_root_dir), "/tmp/eg-fuzz-root.XXXXXX");
                if (!mkdtemp(fuzz_root_dir))
                        abort();
                root_set(fuzz_root_dir);
                (void) atexit(fuzz_root_remove);
        }
        return fuzz_root_dir;
}

/* Write @data to @path (absolute, inside the root), its directories made. */
static inline void fuzz_root_write(const char *path, const void *data, size_t size) {
        char p[512];
        int fd;

        snprintf(p, sizeof(p), "%s%s", fuzz_root(), path);
        for (char *s = p + strlen(fuzz_root()) + 1; (s = strchr(s, '/')); s++) {
                *s = 0;
                (void) mkdir(p, 0755);
                *s = '/';
        }
        fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
                abort();
        for (size_t o = 0; o < size;) {
                ssize_t k = write(fd, (const char *) data + o, size - o);
                if (k <= 0)
                        abort();
                o += (size_t) k;
        }
        close(fd);
}
