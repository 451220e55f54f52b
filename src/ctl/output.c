// SPDX-License-Identifier: LGPL-2.1-or-later
#include <fcntl.h>
#include <sys/stat.h>

#include "io-util.h"
#include "macro.h"
#include "output.h"

int output_write(const char *path, const char *buf, size_t size) {
        struct stat st;
        int r;

        if (!path) {
                r = loop_write(STDOUT_FILENO, buf, size);
                return r;
        }
        /* The rename would put a regular file in place of a device or a
         * symlink: /dev/null or /dev/stdout replaced, for everyone, until
         * the next boot. Only a file, or nothing, is replaced. */
        if (lstat(path, &st) >= 0 && !S_ISREG(st.st_mode))
                return -EEXIST;
        /* A unique temporary name: two writers (a timer and a hand) never
         * take each other's temporary file. */
        return write_file_atomic_at(AT_FDCWD, path, buf, size, 0644, WRITE_UNIQUE_TMP);
}
