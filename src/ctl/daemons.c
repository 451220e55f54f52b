// SPDX-License-Identifier: LGPL-2.1-or-later
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "daemons.h"
#include "io-util.h"
#include "macro.h"

/* The kernel's TASK_COMM_LEN, less its NUL. */
#define COMM_MAX 15

const EntropyDaemon entropy_daemons[] = {
        { "systemd-random-seed", "systemd-random-seed",
          (const char *const[]) { "systemd-random-seed.service", NULL } },
        /* OpenWrt's jitter entropy daemon; procd, no systemd there. */
        { "urngd", "urngd", (const char *const[]) { "urngd.service", NULL } },
        /* rng-tools: rngd.service upstream and in Fedora, rng-tools-debian.service and
         * rng-tools.service in Debian's two packages. */
        { "rngd", "rngd",
          (const char *const[]) { "rngd.service", "rng-tools.service", "rng-tools-debian.service", NULL } },
        { "haveged", "haveged", (const char *const[]) { "haveged.service", NULL } },
        { "jitterentropy-rngd", "jitterentropy-rngd",
          (const char *const[]) { "jitterentropy.service", "jitterentropy-rngd.service", NULL } },
};
const size_t entropy_daemons_count = ELEMENTSOF(entropy_daemons);

bool process_is(const char *process, const char *comm, const char *argv0) {
        size_t l = strlen(comm), pl = strlen(process);
        const char *base;

        if (l > 0 && comm[l - 1] == '\n')
                l--;
        if (pl <= COMM_MAX)
                return l == pl && memcmp(comm, process, l) == 0;
        /* Cut by the kernel: the start must match, and argv[0] must agree. */
        if (l != COMM_MAX || memcmp(comm, process, COMM_MAX) != 0 || !argv0)
                return false;
        base = strrchr(argv0, '/');
        return streq(base ? base + 1 : argv0, process);
}

/* Keep the @max lowest pids, sorted, in @pids, which holds @n now. */
static void pids_insert(pid_t *pids, size_t n, size_t max, pid_t pid) {
        size_t i = n;

        if (max == 0)
                return;
        if (n == max) {
                if (pid >= pids[max - 1])
                        return;
                i = max - 1;
        }
        while (i > 0 && pids[i - 1] > pid) {
                pids[i] = pids[i - 1];
                i--;
        }
        pids[i] = pid;
}

/* /proc/PID/FILE, at most @max bytes, as a string; NULL when unreadable
 * (the process exited, or hides its details). */
static char *proc_read(int proc_fd, const char *pid, const char *file, size_t max) {
        char path[64], *buf = NULL;
        size_t n;

        if ((size_t) snprintf(path, sizeof(path), "%.20s/%.32s", pid, file) >= sizeof(path))
                return NULL;
        if (read_file_at(proc_fd, path, max, READ_NUL_TERMINATE, &buf, &n, NULL) < 0)
                return NULL;
        return buf;
}

/* Does /proc/PID/status say the process runs as root, its real and
 * effective user IDs 0 (as seen from our user namespace)? Only root
 * credits the pool (RNDADDENTROPY); any user can start a program named
 * rngd, and a setuid one it links to has a real ID that is not 0. */
static bool status_is_root(const char *status) {
        const char *p = status ? strstr(status, "\nUid:") : NULL;
        unsigned long real, effective;

        return p && sscanf(p + 5, "%lu %lu", &real, &effective) == 2 && real == 0 && effective == 0;
}

int process_find(int proc_fd, const char *process, pid_t *pids, size_t max, size_t *ret_n) {
        size_t n = 0;
        DIR *d;
        int fd;

        fd = openat(proc_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        d = fdopendir(fd);
        if (!d) {
                safe_close(fd);
                return -ENOMEM;
        }
        for (;;) {
                _cleanup_free_ char *comm = NULL, *cmdline = NULL, *status = NULL;
                struct dirent *de;
                char *end;
                long pid;
                int r;

                r = dir_next(d, &de);
                if (r < 0) {
                        closedir(d);
                        return r;
                }
                if (r == 0)
                        break;

                pid = strtol(de->d_name, &end, 10);
                if (pid <= 0 || *end)
                        continue;
                comm = proc_read(proc_fd, de->d_name, "comm", 64);
                if (!comm)
                        continue;
                /* argv[0] ends at the first NUL of cmdline: what the string holds. */
                if (strlen(process) > COMM_MAX)
                        cmdline = proc_read(proc_fd, de->d_name, "cmdline", 4096);
                if (!process_is(process, comm, cmdline))
                        continue;
                status = proc_read(proc_fd, de->d_name, "status", 8192);
                if (!status_is_root(status))
                        continue;
                pids_insert(pids, MIN(n, max), max, (pid_t) pid);
                n++;
        }
        closedir(d);
        *ret_n = n;
        return 0;
}
