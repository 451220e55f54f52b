// SPDX-License-Identifier: LGPL-2.1-or-later
/* Measures programs side by side: each round runs every command once, in
 * an order that rotates from round to round, so that drift in the
 * machine's load (and whatever one command leaves behind for the next, such
 * as a journal commit still in flight) hits all of them alike. A command's
 * time is from posix_spawn() to its reaping: exec, dynamic loading, its
 * work and its exit. Before each timed run an optional preparation command
 * runs through /bin/sh, untimed.
 *
 * usage: bench-exec RUNS WARMUP NAME PREP COMMAND [NAME PREP COMMAND]...
 *   PREP    shell command run before each run of COMMAND, or "" for none
 *   COMMAND words separated by spaces, executed directly (no shell); leading
 *           VAR=VALUE words are added to its environment, and a leading
 *           ns=PATH word runs PREP and COMMAND in the mount namespace PATH
 *           (/proc/PID/ns/mnt): each program sees its own /var/lib
 *
 * prints one line per command, tab-separated:
 *   NAME  median_us  p10_us  p90_us  cpu_median_us  maxrss_median_kb  runs
 * (cpu: user + system time, from wait4()). Each command's output goes to
 * /dev/null; a command that fails stops the measurement. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

typedef struct Command {
        const char *name, *prep;
        int nsfd;                    /* mount namespace, or -1: ours */
        char **argv, **envp;
        double *wall, *cpu, *rss;
} Command;

static double now_us(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;
        return (x > y) - (x < y);
}

static double pct(double *v, int n, int p) {
        qsort(v, (size_t) n, sizeof(double), cmp);
        return v[(size_t) n * (size_t) p / 100 >= (size_t) n ? n - 1 : n * p / 100];
}

static int home_ns = -1;

static void enter(const Command *c) {
        if (setns(c->nsfd >= 0 ? c->nsfd : home_ns, CLONE_NEWNS) < 0) {
                perror("bench-exec: setns");
                exit(1);
        }
}

/* Words of @s split on spaces; leading VAR=VALUE words go to *ret_env, a
 * leading ns=PATH to *ret_ns. */
static char **split(const char *s, char ***ret_env, int *ret_ns) {
        char *copy = strdup(s), **argv, **env, *save = NULL;
        size_t n = 0, ne = 0, nenv = 0;

        for (char **e = environ; *e; e++)
                nenv++;
        argv = calloc(strlen(s) + 2, sizeof(char *));
        env = calloc(nenv + strlen(s) + 2, sizeof(char *));
        if (!copy || !argv || !env)
                exit(1);
        *ret_ns = -1;
        for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
                if (n == 0 && strncmp(w, "ns=", 3) == 0) {
                        *ret_ns = open(w + 3, O_RDONLY | O_CLOEXEC);
                        if (*ret_ns < 0) {
                                fprintf(stderr, "bench-exec: %s: %s\n", w + 3, strerror(errno));
                                exit(1);
                        }
                } else if (n == 0 && strchr(w, '=') && w[0] != '/')
                        env[ne++] = w;
                else
                        argv[n++] = w;
        }
        for (char **e = environ; *e; e++)
                env[ne++] = *e;
        *ret_env = env;
        return argv;
}

static void prepare(const Command *c) {
        int status;

        if (!c->prep || !*c->prep)
                return;
        status = system(c->prep);
        if (status != 0) {
                fprintf(stderr, "bench-exec: %s: preparation '%s' failed (%d)\n", c->name, c->prep, status);
                exit(1);
        }
}

/* One run; returns 0 and fills the measurements, or exits. */
static void run(const Command *c, double *wall, double *cpu, double *rss) {
        posix_spawn_file_actions_t fa;
        struct rusage ru;
        double t0, t1;
        pid_t pid;
        int status;

        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
        t0 = now_us();
        if (posix_spawn(&pid, c->argv[0], &fa, NULL, c->argv, c->envp) != 0) {
                fprintf(stderr, "bench-exec: cannot run %s: %s\n", c->argv[0], strerror(errno));
                exit(1);
        }
        while (wait4(pid, &status, 0, &ru) < 0)
                if (errno != EINTR) {
                        perror("wait4");
                        exit(1);
                }
        t1 = now_us();
        posix_spawn_file_actions_destroy(&fa);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                fprintf(stderr, "bench-exec: %s failed (status 0x%x)\n", c->name, status);
                exit(1);
        }
        *wall = t1 - t0;
        *cpu = (double) (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
                (double) (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
        *rss = (double) ru.ru_maxrss;
}

int main(int argc, char *argv[]) {
        int runs, warmup, n;
        Command *cmds;

        if (argc < 6 || (argc - 3) % 3 != 0 || (runs = atoi(argv[1])) <= 0 || (warmup = atoi(argv[2])) < 0) {
                fprintf(stderr, "usage: %s RUNS WARMUP NAME PREP COMMAND [NAME PREP COMMAND]...\n", argv[0]);
                return 2;
        }
        n = (argc - 3) / 3;
        home_ns = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
        if (home_ns < 0) {
                perror("bench-exec: /proc/self/ns/mnt");
                return 1;
        }
        cmds = calloc((size_t) n, sizeof(Command));
        if (!cmds)
                return 1;
        for (int i = 0; i < n; i++) {
                Command *c = cmds + i;

                c->name = argv[3 + 3 * i];
                c->prep = argv[4 + 3 * i];
                c->argv = split(argv[5 + 3 * i], &c->envp, &c->nsfd);
                c->wall = calloc((size_t) runs, sizeof(double));
                c->cpu = calloc((size_t) runs, sizeof(double));
                c->rss = calloc((size_t) runs, sizeof(double));
                if (!c->argv[0] || !c->wall || !c->cpu || !c->rss)
                        return 2;
        }

        for (int round = -warmup; round < runs; round++)
                for (int k = 0; k < n; k++) {
                        /* Rotate: each command follows each other one equally often. */
                        Command *c = cmds + (k + (round < 0 ? 0 : round)) % n;
                        double w, u, r;

                        enter(c);
                        prepare(c);
                        run(c, &w, &u, &r);
                        if (round >= 0) {
                                c->wall[round] = w;
                                c->cpu[round] = u;
                                c->rss[round] = r;
                        }
                }

        for (int i = 0; i < n; i++) {
                Command *c = cmds + i;
                double med = pct(c->wall, runs, 50), p10 = pct(c->wall, runs, 10), p90 = pct(c->wall, runs, 90);

                printf("%s\t%.1f\t%.1f\t%.1f\t%.1f\t%.0f\t%d\n", c->name, med, p10, p90, pct(c->cpu, runs, 50),
                       pct(c->rss, runs, 50), runs);
        }
        return 0;
}
