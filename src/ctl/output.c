// SPDX-License-Identifier: LGPL-2.1-or-later
#include <fcntl.h>

#include "io-util.h"
#include "macro.h"
#include "output.h"

int output_write(const char *path, const char *buf, size_t size) {
        int r;

        if (!path) {
                r = loop_write(STDOUT_FILENO, buf, size);
                return r;
        }
        /* A unique temporary name: two writers (a timer and a hand) never
         * take each other's temporary file. */
        return write_file_atomic_at(AT_FDCWD, path, buf, size, 0644, WRITE_UNIQUE_TMP);
}
