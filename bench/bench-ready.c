// SPDX-License-Identifier: LGPL-2.1-or-later
/* Measures exec-until-READY=1: for each run, the time from posix_spawn() of
 * a program to the arrival of its READY=1 datagram on our notify socket.
 * The programs take turns, in an order that rotates from run to run, so
 * that drift in the machine's load hits them alike. Barrier fds are closed
 * at once, as systemd does, and each child is reaped before the next run
 * starts.
 *
 * usage: bench-ready ITERATIONS [LABEL=]COMMAND...
 *   COMMAND  words separated by spaces, executed directly (no shell); the
 *            label defaults to the first word's base name
 * prints, per program, tab-separated: label, median, 10th and 90th
 * percentile in µs, median peak RSS in KiB (wait4()), runs. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_us(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec / 1e3;
}

/* Receive one datagram (waiting up to @ms), closing any fds it carries.
 * Returns its length, 0 on timeout. */
static ssize_t receive(int sock, char *buf, size_t size, int ms) {
        char control[CMSG_SPACE(sizeof(int) * 8)];
        struct iovec iov = { .iov_base = buf, .iov_len = size - 1 };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                             .msg_controllen = sizeof(control) };
        struct pollfd p = { .fd = sock, .events = POLLIN };
        ssize_t n;

        if (poll(&p, 1, ms) <= 0)
                return 0;
        n = recvmsg(sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
        if (n < 0)
                return 0;
        buf[n] = 0;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
                if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                        int *fds = (int *) (void *) CMSG_DATA(c);
                        size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                        for (size_t i = 0; i < k; i++)
                                close(fds[i]);
                }
        return n;
}

static int cmp(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;
        return (x > y) - (x < y);
}

/* "[LABEL=]WORD WORD...": the words, and the label. */
static char **split(const char *s, const char **ret_label) {
        char *copy = strdup(s), **argv, *save = NULL, *eq, *sp;
        size_t n = 0;

        argv = calloc(strlen(s) + 2, sizeof(char *));
        if (!copy || !argv)
                exit(1);
        eq = strchr(copy, '=');
        sp = strchr(copy, ' ');
        *ret_label = NULL;
        if (eq && (!sp || eq < sp) && copy[0] != '/') {
                *eq = 0;
                *ret_label = copy;
                copy = eq + 1;
        }
        for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
                argv[n++] = w;
        if (n == 0)
                exit(2);
        if (!*ret_label)
                *ret_label = basename(argv[0]);
        return argv;
}

int main(int argc, char *argv[]) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        char path[] = "/tmp/eg-bench.XXXXXX", env[128], buf[4096];
        int n, nprog, sock;
        double **t, **rss;
        char ***args;
        const char **label;

        if (argc < 3 || (n = atoi(argv[1])) <= 0) {
                fprintf(stderr, "usage: %s ITERATIONS [LABEL=]COMMAND...\n", argv[0]);
                return 2;
        }
        nprog = argc - 2;
        if (!mkdtemp(path))
                return perror("mkdtemp"), 1;
        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/notify", path);
        sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (sock < 0 || bind(sock, (struct sockaddr *) &sa, sizeof(sa)) < 0)
                return perror("bind"), 1;
        snprintf(env, sizeof(env), "NOTIFY_SOCKET=%s", sa.sun_path);
        putenv(env);

        t = calloc((size_t) nprog, sizeof(*t));
        rss = calloc((size_t) nprog, sizeof(*rss));
        args = calloc((size_t) nprog, sizeof(*args));
        label = calloc((size_t) nprog, sizeof(*label));
        if (!t || !rss || !args || !label)
                return 1;
        for (int p = 0; p < nprog; p++) {
                t[p] = calloc((size_t) n, sizeof(double));
                rss[p] = calloc((size_t) n, sizeof(double));
                args[p] = split(argv[2 + p], &label[p]);
        }

        for (int i = 0; i < n; i++)
                for (int k = 0; k < nprog; k++) {
                        int p = (k + i) % nprog;
                        double t0, t1 = 0;
                        struct rusage ru;
                        pid_t pid;
                        int status;

                        t0 = now_us();
                        if (posix_spawn(&pid, args[p][0], NULL, NULL, args[p], environ) != 0)
                                return perror("posix_spawn"), 1;
                        for (;;) {
                                ssize_t m = receive(sock, buf, sizeof(buf), 5000);
                                if (m == 0) {
                                        fprintf(stderr, "%s: no READY=1 within 5s\n", label[p]);
                                        return 1;
                                }
                                if (strncmp(buf, "READY=1", 7) == 0 || strstr(buf, "\nREADY=1")) {
                                        t1 = now_us();
                                        break;
                                }
                        }
                        /* Drain what follows (BARRIER=1), then reap. */
                        while (wait4(pid, &status, WNOHANG, &ru) == 0)
                                (void) receive(sock, buf, sizeof(buf), 1);
                        while (receive(sock, buf, sizeof(buf), 0) > 0)
                                ;
                        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                                fprintf(stderr, "%s failed (status %d)\n", label[p], status);
                                return 1;
                        }
                        t[p][i] = t1 - t0;
                        rss[p][i] = (double) ru.ru_maxrss;
                }

        for (int p = 0; p < nprog; p++) {
                qsort(t[p], (size_t) n, sizeof(double), cmp);
                qsort(rss[p], (size_t) n, sizeof(double), cmp);
                printf("%s\t%.1f\t%.1f\t%.1f\t%.0f\t%d\n", label[p], t[p][n / 2], t[p][n / 10], t[p][n * 9 / 10],
                       rss[p][n / 2], n);
        }

        unlink(sa.sun_path);
        rmdir(path);
        return 0;
}
