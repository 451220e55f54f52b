// SPDX-License-Identifier: LGPL-2.1-or-later
/* Where libFuzzer is not available (gcc builds), run every file of the given
 * corpus directories (or the given files) through LLVMFuzzerTestOneInput once,
 * so the committed corpus is still checked, under ASan/UBSan when enabled. A
 * crash or abort fails the test; so does an empty corpus. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "macro.h"

#define INPUT_MAX (1024 * 1024)

static int run_file(int dir_fd, const char *name, const char *shown) {
        _cleanup_close_ int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        struct stat st;

        if (fd < 0 || fstat(fd, &st) < 0) {
                fprintf(stderr, "%s: %m\n", shown);
                return -errno;
        }
        if (!S_ISREG(st.st_mode))
                return 0;
        if (st.st_size > INPUT_MAX) {
                fprintf(stderr, "%s: larger than %d bytes\n", shown, INPUT_MAX);
                return -EFBIG;
        }

        /* Exactly the file's size, so ASan catches any read past it. */
        size_t size = (size_t) st.st_size;
        _cleanup_free_ uint8_t *buf = malloc(size ?: 1);
        if (!buf)
                return -ENOMEM;
        size_t got = 0;
        while (got < size) {
                ssize_t k = read(fd, buf + got, size - got);
                if (k < 0) {
                        fprintf(stderr, "%s: %m\n", shown);
                        return -errno;
                }
                if (k == 0)
                        break;
                got += (size_t) k;
        }
        /* Never NULL, even when empty: libFuzzer passes a valid pointer too,
         * and targets may hand it to memcpy(). */
        (void) LLVMFuzzerTestOneInput(buf, got);
        return 1;
}

int main(int argc, char *argv[]) {
        unsigned long inputs = 0;

        for (int i = 1; i < argc; i++) {
                DIR *d = opendir(argv[i]);
                if (!d) {
                        if (errno != ENOTDIR) {
                                fprintf(stderr, "%s: %m\n", argv[i]);
                                return EXIT_FAILURE;
                        }
                        int r = run_file(AT_FDCWD, argv[i], argv[i]);
                        if (r < 0)
                                return EXIT_FAILURE;
                        inputs += (unsigned long) r;
                        continue;
                }
                struct dirent *de;
                while ((de = readdir(d))) {
                        if (de->d_name[0] == '.')
                                continue;
                        int r = run_file(dirfd(d), de->d_name, de->d_name);
                        if (r < 0) {
                                (void) closedir(d);
                                return EXIT_FAILURE;
                        }
                        inputs += (unsigned long) r;
                }
                (void) closedir(d);
        }

        printf("%lu inputs executed\n", inputs);
        if (inputs == 0) {
                fprintf(stderr, "No inputs found: an empty corpus checks nothing.\n");
                return EXIT_FAILURE;
        }
        return EXIT_SUCCESS;
}
