// SPDX-License-Identifier: LGPL-2.1-or-later
/* Test helper: parse a seed file and print what it says, one KEY=VALUE per
 * line, so shell and Python tests can check seeds without reimplementing
 * the format.
 *
 *   seed-inspect FILE [MACHINE_ID]
 *
 * Prints CREDITABLE=yes|no, SEED_SIZE=N, SEED=<hex>, BINDING=<hex>,
 * GENERATION=<hex> (all zero: saved in no known VM generation) and, with
 * MACHINE_ID (the text of a machine-id file, "" for none), BOUND=yes|no.
 * Exit 0 when the file parses, 1 (with ERROR=<reason>) when it does not or
 * cannot be read, 2 on usage errors. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "macro.h"
#include "seed-file.h"

static void print_hex(const char *key, const uint8_t *p, size_t n) {
        printf("%s=", key);
        for (size_t i = 0; i < n; i++)
                printf("%02x", p[i]);
        putchar('\n');
}

int main(int argc, char *argv[]) {
        uint8_t buf[SEED_FILE_SIZE_MAX + 1], binding[SEED_BINDING_SIZE];
        _cleanup_close_ int fd = -EBADF;
        SeedFile f = {};
        const char *reason = NULL;
        struct stat st;
        ssize_t n;

        if (argc < 2 || argc > 3) {
                fprintf(stderr, "usage: seed-inspect FILE [MACHINE_ID]\n");
                return 2;
        }
        fd = open(argv[1], O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                printf("ERROR=cannot open a regular file\n");
                return 1;
        }
        n = read(fd, buf, sizeof(buf));
        if (n < 0) {
                printf("ERROR=%m\n");
                return 1;
        }
        if (seed_file_parse(buf, (size_t) n, &f, &reason) < 0) {
                printf("ERROR=%s\n", reason ?: "does not parse");
                return 1;
        }
        printf("CREDITABLE=%s\nSEED_SIZE=%zu\n", yes_no(f.creditable), f.seed_size);
        print_hex("SEED", f.seed, f.seed_size);
        print_hex("BINDING", f.binding, SEED_BINDING_SIZE);
        print_hex("GENERATION", f.generation, SEED_GENERATION_SIZE);
        if (argc == 3) {
                seed_binding_compute(argv[2][0] ? argv[2] : NULL, binding);
                printf("BOUND=%s\n", yes_no(memcmp(binding, f.binding, sizeof(binding)) == 0));
        }
        seed_file_erase(&f);
        return 0;
}
