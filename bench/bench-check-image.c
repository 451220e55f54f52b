// SPDX-License-Identifier: LGPL-2.1-or-later
/* The cost of entropyctl check-image on large legal images: a SeedRNG
 * directory of N entries (files, and one in four a symlink: each a finding
 * of its own), for N = 10^3 ... MAX. Prints, for each N, the time to scan
 * (walk and collect the findings) and to fix (remove every file found),
 * per entry, in CPU time (user and system), and the growth from the
 * previous N: about 10 when the cost is linear (n log n), 100 when it is
 * quadratic. Not a test: figures for
 * docs/performance.md and the issue that asked for them.
 *
 * usage: bench-check-image [MAX [DIR]]   (MAX default 1000000; the trees
 * are made in DIR, default /dev/shm, where no disk's fsync is measured) */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check-image.h"
#include "macro.h"

/* CPU time (user and system) of this process: what the walk costs,
 * whatever else the machine is running meanwhile. */
static double now(void) {
        struct timespec ts;

        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static void die(const char *what) {
        perror(what);
        exit(1);
}

static void rm_rf_at(int dfd, const char *name) {
        int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        DIR *d;

        if (fd >= 0 && (d = fdopendir(fd))) {
                for (struct dirent *de; (de = readdir(d));)
                        if (!streq(de->d_name, ".") && !streq(de->d_name, ".."))
                                rm_rf_at(dirfd(d), de->d_name);
                closedir(d);
                (void) unlinkat(dfd, name, AT_REMOVEDIR);
                return;
        }
        safe_close(fd);
        (void) unlinkat(dfd, name, 0);
}

int main(int argc, char *argv[]) {
        size_t max = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
        const char *dir = argc > 2 ? argv[2] : "/dev/shm";
        double prev_scan = 0, prev_fix = 0;
        ImageCheck *checks;
        size_t n_checks;
        char base[4096];

        if (image_checks_build("/var/lib/entropy-gate", &checks, &n_checks) < 0)
                die("image_checks_build");
        snprintf(base, sizeof(base), "%s/bench-check-image.XXXXXX", dir);
        if (!mkdtemp(base))
                die("mkdtemp");
        printf("%10s %10s %12s %8s %10s %12s %8s\n", "entries", "scan cpu s", "us/entry", "growth", "fix cpu s",
               "us/entry", "growth");
        for (size_t n = 1000; n <= max; n *= 10) {
                _cleanup_close_ int root = -EBADF, sd = -EBADF;
                ImageFinding *f;
                size_t nf, fixable = 0;
                double t0, t1, t2;
                char p[4200];

                snprintf(p, sizeof(p), "%s/root", base);
                rm_rf_at(AT_FDCWD, p);
                snprintf(p, sizeof(p), "%s/root/var/lib/seedrng", base);
                for (char *s = strchr(p + strlen(base) + 1, '/'); s; s = strchr(s + 1, '/')) {
                        *s = 0;
                        (void) mkdir(p, 0755);
                        *s = '/';
                }
                if (mkdir(p, 0755) < 0)
                        die("mkdir");
                sd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (sd < 0)
                        die(p);
                for (size_t i = 0; i < n; i++) {
                        char name[64];

                        snprintf(name, sizeof(name), "seed.%zu", i * 7919 % n);
                        if (i % 4 == 3) {
                                if (symlinkat("/nowhere", sd, name) < 0)
                                        die("symlinkat");
                        } else {
                                int fd = openat(sd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
                                if (fd < 0)
                                        die("openat");
                                close(fd);
                        }
                }
                snprintf(p, sizeof(p), "%s/root", base);
                root = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (root < 0)
                        die(p);

                t0 = now();
                if (image_scan(root, 0, checks, n_checks, &f, &nf) < 0)
                        die("image_scan");
                t1 = now();
                for (size_t i = 0; i < nf; i++)
                        if (f[i].action != IMAGE_ACTION_NONE) {
                                if (image_fix_one(root, 0, f + i, MACHINE_ID_RESET_UNINITIALIZED) < 0)
                                        die("image_fix_one");
                                fixable++;
                        }
                t2 = now();
                if (nf != n || fixable != n - n / 4)
                        fprintf(stderr, "bench-check-image: %zu findings, %zu fixed, for %zu entries\n", nf,
                                fixable, n);
                image_findings_free(f, nf);

                printf("%10zu %10.3f %12.2f %8.1f %10.3f %12.2f %8.1f\n", n, t1 - t0, (t1 - t0) * 1e6 / (double) n,
                       prev_scan > 0 ? (t1 - t0) / prev_scan : 0.0, t2 - t1, (t2 - t1) * 1e6 / (double) n,
                       prev_fix > 0 ? (t2 - t1) / prev_fix : 0.0);
                fflush(stdout);
                prev_scan = t1 - t0;
                prev_fix = t2 - t1;
        }
        rm_rf_at(AT_FDCWD, base);
        image_checks_free(checks, n_checks);
        return 0;
}
