/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The other programs that feed or seed the kernel's pool, which status
 * names when present: their units' states when systemd answers, and their
 * processes, found by name in /proc (inside the root, root.h), on systems
 * without systemd too. */

typedef struct EntropyDaemon {
        const char *name;            /* as people call it */
        const char *process;         /* its executable's name */
        const char *const *units;    /* the unit names distributions ship it as; NULL-terminated */
} EntropyDaemon;

extern const EntropyDaemon entropy_daemons[];
extern const size_t entropy_daemons_count;

/* Pure: is a process whose /proc/PID/comm says @comm (one trailing newline
 * allowed) and whose argv[0] is @argv0 (NULL when unknown) @process? The
 * kernel cuts comm to 15 characters; argv[0] decides then, by its last
 * path component. */
bool process_is(const char *process, const char *comm, const char *argv0);

/* Every process named @process in the proc directory @proc_fd that runs
 * as root (real and effective user ID 0 in /proc/PID/status: a program of
 * that name another user started can credit nothing): the @max
 * lowest pids into @pids, sorted; *ret_n is how many were found in all. 0,
 * or -errno when the directory cannot be read. */
#define DAEMON_PIDS_MAX 8
int process_find(int proc_fd, const char *process, pid_t *pids, size_t max, size_t *ret_n);
