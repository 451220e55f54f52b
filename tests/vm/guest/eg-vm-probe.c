// SPDX-License-Identifier: LGPL-2.1-or-later
/* eg-vm-probe: what a consumer of the pool sees, recorded inside the guest.
 *
 *   eg-vm-probe NAME          ask the kernel at once, without blocking,
 *                             whether the CRNG is initialized
 *   eg-vm-probe --wait NAME   sleep in poll() on /dev/random until the kernel
 *                             wakes its waiters, then record when
 *
 * The first form is the fact the VM checks stand on: getrandom(NULL, 0,
 * GRND_NONBLOCK) is the kernel's own answer (0: initialized, EAGAIN: not),
 * taken before anything else the program does. The second form records, in
 * the guest's CLOCK_BOOTTIME, an upper bound for the moment the pool became
 * initialized: the kernel marks the CRNG ready before it wakes the waiters of
 * crng_init_wait, which getrandom() and poll() share. poll() does not run the
 * kernel's jitter entropy generator (a blocking getrandom() does), so the
 * watcher does not change when the pool becomes ready.
 *
 * The answer goes to the kernel log (every tier can read it: the journal, the
 * serial console, dmesg) as one record
 *   eg-vm-probe: NAME READY=yes|no ERRNO=0|EAGAIN|... BOOTTIME_USEC=N MONOTONIC_USEC=N
 * (--wait adds WAITED=yes|no: whether poll() had to sleep) and, when /run is
 * writable, to /run/eg-vm-probe/NAME as KEY=VALUE lines.
 * Built static with the host compiler by the VM tiers; exit 0 unless the
 * answer could not be recorded anywhere. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static unsigned long long clock_usec(clockid_t id) {
        struct timespec ts;

        if (clock_gettime(id, &ts) < 0)
                return 0;
        return (unsigned long long) ts.tv_sec * 1000000ULL + (unsigned long long) ts.tv_nsec / 1000;
}

static bool write_all(int fd, const char *s) {
        size_t n = strlen(s);

        while (n > 0) {
                ssize_t k = write(fd, s, n);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        return false;
                s += k;
                n -= (size_t) k;
        }
        return true;
}

int main(int argc, char *argv[]) {
        unsigned long long boottime, monotonic;
        const char *name, *wait_state = NULL;
        bool wait = false, recorded = false;
        char line[512], path[256];
        int err = 0, fd;

        /* The answer first: everything after it only records it. */
        if (argc == 2 && argv[1][0] != '-') {
                if (getrandom(NULL, 0, GRND_NONBLOCK) < 0)
                        err = errno;
                boottime = clock_usec(CLOCK_BOOTTIME);
                monotonic = clock_usec(CLOCK_MONOTONIC);
                name = argv[1];
        } else if (argc == 3 && strcmp(argv[1], "--wait") == 0) {
                struct pollfd p = { .events = POLLIN };

                wait = true;
                name = argv[2];
                p.fd = open("/dev/random", O_RDONLY | O_CLOEXEC | O_NOCTTY);
                if (p.fd < 0) {
                        fprintf(stderr, "eg-vm-probe: /dev/random: %m\n");
                        return 1;
                }
                /* First without sleeping: was it initialized already? */
                for (int timeout = 0;; timeout = -1) {
                        int r = poll(&p, 1, timeout);
                        if (r > 0 && (p.revents & POLLIN))
                                break;
                        if (r < 0 && errno != EINTR) {
                                fprintf(stderr, "eg-vm-probe: poll: %m\n");
                                return 1;
                        }
                        if (r == 0)
                                wait_state = "yes";
                }
                if (!wait_state)
                        wait_state = "no";
                boottime = clock_usec(CLOCK_BOOTTIME);
                monotonic = clock_usec(CLOCK_MONOTONIC);
                close(p.fd);
        } else {
                fprintf(stderr, "usage: eg-vm-probe [--wait] NAME\n");
                return 2;
        }
        if (strchr(name, '/') || strlen(name) > 64) {
                fprintf(stderr, "eg-vm-probe: bad name\n");
                return 2;
        }

        /* <5>: notice, below the console level of a "quiet" boot. */
        snprintf(line, sizeof(line),
                 "<5>eg-vm-probe: %s READY=%s ERRNO=%s BOOTTIME_USEC=%llu MONOTONIC_USEC=%llu%s%s\n",
                 name, err == 0 ? "yes" : "no",
                 err == 0 ? "0" : err == EAGAIN ? "EAGAIN" : strerrorname_np(err) ?: "?",
                 boottime, monotonic, wait ? " WAITED=" : "", wait ? wait_state : "");
        fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (fd >= 0) {
                recorded = write_all(fd, line);
                close(fd);
        }

        (void) mkdir("/run/eg-vm-probe", 0755);
        snprintf(path, sizeof(path), "/run/eg-vm-probe/%s", name);
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0644);
        if (fd >= 0) {
                snprintf(line, sizeof(line), "READY=%s\nERRNO=%d\nBOOTTIME_USEC=%llu\nMONOTONIC_USEC=%llu\n%s%s%s",
                         err == 0 ? "yes" : "no", err, boottime, monotonic,
                         wait ? "WAITED=" : "", wait ? wait_state : "", wait ? "\n" : "");
                recorded = write_all(fd, line) || recorded;
                close(fd);
        }
        if (!recorded)
                fprintf(stderr, "eg-vm-probe: %s: could not record READY=%s anywhere\n",
                        name, err == 0 ? "yes" : "no");
        return recorded ? 0 : 1;
}
