// SPDX-License-Identifier: LGPL-2.1-or-later
/* eg-vm-watch: marks, in the kernel log, the moments of the seed store that
 * the crash tier cuts power at.
 *
 *   eg-vm-watch DIR
 *
 * Watches DIR with inotify and writes one kernel log record per event, which
 * the serial console carries to the host at once:
 *   EGCRASH tmp-created   a temporary seed file (".#seed.*") was created
 *   EGCRASH renamed       a new seed was renamed over "seed" (IN_MOVED_TO)
 * and, once at start, whether anyone holds the directory's lock (a lock
 * never outlives its holder, whatever happened to the previous boot):
 *   EGCRASH watching lock=free|held
 * The watch is in place before the program forks into the background and
 * the parent exits, so a unit of Type=forking ordered before
 * entropy-seed.service sees every rename of that service.
 *
 * With eg.crash.hold=load or eg.crash.hold=save on the kernel command line,
 * the rename done by that verb of entropy-seed also stops the process
 * (SIGSTOP; it takes effect before the process is back from rename(), so
 * before it syncs the directory and before load credits anything), checks
 * with a non-blocking flock() that it still holds the seed directory's
 * lock, and says so:
 *   EGCRASH hold verb=load|save pid=N lock=held|free
 * The host cuts the power then: exactly right after the rename, with the
 * lock held. Run with a real-time scheduling policy, the watcher preempts
 * the writer * the moment the kernel queues the event (one CPU). */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

static void mark(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void mark(const char *fmt, ...) {
        char line[256];
        va_list ap;
        int fd, n;

        n = snprintf(line, sizeof(line), "<5>EGCRASH ");
        va_start(ap, fmt);
        n += vsnprintf(line + n, sizeof(line) - 1 - (size_t) n, fmt, ap);
        va_end(ap);
        /* The newline ends the record: without it the kernel keeps the
         * record open for a continuation and the console prints it only
         * when the next message arrives, which may be a minute later. */
        if (n > (int) sizeof(line) - 2)
                n = (int) sizeof(line) - 2;
        line[n++] = '\n';
        line[n] = 0;
        fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return;
        (void) !write(fd, line, strlen(line));
        close(fd);
}

static bool read_small(const char *path, char *buf, size_t size) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n;

        if (fd < 0)
                return false;
        n = read(fd, buf, size - 1);
        close(fd);
        if (n < 0)
                return false;
        buf[n] = 0;
        return true;
}

/* "held" when a non-blocking flock() on DIR fails because someone holds it. */
static const char *lock_state(const char *dir) {
        const char *state = "unknown";
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (dfd < 0)
                return state;
        if (flock(dfd, LOCK_EX | LOCK_NB) >= 0) {
                state = "free";
                (void) flock(dfd, LOCK_UN);
        } else if (errno == EWOULDBLOCK)
                state = "held";
        close(dfd);
        return state;
}

/* The verb named by eg.crash.hold= on the kernel command line, or NULL. */
static const char *hold_requested(void) {
        char cmdline[4096];

        if (!read_small("/proc/cmdline", cmdline, sizeof(cmdline)))
                return NULL;
        if (strstr(cmdline, "eg.crash.hold=load"))
                return "load";
        if (strstr(cmdline, "eg.crash.hold=save"))
                return "save";
        return NULL;
}

/* Stop every "entropy-seed VERB" process; returns the last pid stopped. */
static pid_t stop_verb(const char *verb) {
        DIR *d = opendir("/proc");
        struct dirent *de;
        pid_t last = 0;

        if (!d)
                return 0;
        while ((de = readdir(d))) {
                char path[300], argv[256];
                int fd;
                ssize_t n;

                if (!isdigit((unsigned char) de->d_name[0]))
                        continue;
                snprintf(path, sizeof(path), "/proc/%s/cmdline", de->d_name);
                fd = open(path, O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        continue;
                n = read(fd, argv, sizeof(argv) - 1);
                close(fd);
                if (n <= 0)
                        continue;
                argv[n] = 0;
                /* argv[0] NUL argv[1]: "…/entropy-seed" then the verb. */
                const char *base = strrchr(argv, '/');
                base = base ? base + 1 : argv;
                size_t l0 = strlen(argv);
                if (strcmp(base, "entropy-seed") != 0 || (ssize_t) l0 + 1 >= n)
                        continue;
                if (strcmp(argv + l0 + 1, verb) != 0)
                        continue;
                pid_t pid = (pid_t) atoi(de->d_name);
                if (kill(pid, SIGSTOP) >= 0)
                        last = pid;
        }
        closedir(d);
        return last;
}

int main(int argc, char *argv[]) {
        char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
        const char *hold;
        int fd, wd;

        if (argc != 2) {
                fprintf(stderr, "usage: eg-vm-watch DIR\n");
                return 2;
        }
        if (mkdir(argv[1], 0700) < 0 && errno != EEXIST) {
                fprintf(stderr, "eg-vm-watch: %s: %m\n", argv[1]);
                return 1;
        }
        fd = inotify_init1(IN_CLOEXEC);
        if (fd < 0) {
                fprintf(stderr, "eg-vm-watch: inotify: %m\n");
                return 1;
        }
        wd = inotify_add_watch(fd, argv[1], IN_CREATE | IN_MOVED_TO);
        if (wd < 0) {
                fprintf(stderr, "eg-vm-watch: watch %s: %m\n", argv[1]);
                return 1;
        }
        hold = hold_requested();
        mark("watching lock=%s", lock_state(argv[1]));

        switch (fork()) {
        case -1:
                fprintf(stderr, "eg-vm-watch: fork: %m\n");
                return 1;
        case 0:
                break;
        default:
                return 0;   /* the watch is in place: the service is started */
        }
        (void) setsid();

        for (;;) {
                ssize_t n = read(fd, buf, sizeof(buf));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return 1;
                for (char *p = buf; p < buf + n;) {
                        const struct inotify_event *ev = (const struct inotify_event *) p;
                        p += sizeof(*ev) + ev->len;
                        if (ev->len == 0)
                                continue;
                        if ((ev->mask & IN_CREATE) && strncmp(ev->name, ".#seed.", 7) == 0)
                                mark("tmp-created");
                        if (!(ev->mask & IN_MOVED_TO) || strcmp(ev->name, "seed") != 0)
                                continue;
                        mark("renamed");
                        if (!hold)
                                continue;
                        pid_t pid = stop_verb(hold);
                        if (pid <= 0)
                                continue;   /* the other verb's rename, or gone already */
                        const char *lock = lock_state(argv[1]);
                        mark("hold verb=%s pid=%d lock=%s", hold, (int) pid, lock);
                }
        }
}
