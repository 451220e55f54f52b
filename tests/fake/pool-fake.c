// SPDX-License-Identifier: LGPL-2.1-or-later
/* A scripted kernel pool, linked in place of pool-linux.c by tests (the
 * link-time seam). The script comes from the environment:
 *
 *   FAKE_POOL_READY_AFTER_MS=N   ready N ms after the first pool call (default 0);
 *                                "never": never ready on its own
 *   FAKE_POOL_STATE=PATH         a file standing for the kernel across processes:
 *                                once it holds "ready", the pool is ready; a
 *                                credit of >= 256 bits writes it (as the kernel
 *                                initializes the CRNG)
 *   FAKE_POOL_ENOSYS=1           no getrandom(2): probing fails with ENOSYS
 *   FAKE_POOL_ADD_ERRNO=N        pool_add_seed() fails with errno N
 *   FAKE_POOL_SIZE_BITS=N        poolsize (default 256)
 *   FAKE_POOL_ENTROPY_AVAIL=N    entropy_avail while not ready (default: rising
 *                                from 0 to 255 over FAKE_POOL_READY_AFTER_MS,
 *                                0 for "never"); "error": unreadable (EACCES);
 *                                256 once ready
 *   FAKE_POOL_LOG=PATH           one line appended per seed handed to the pool:
 *                                "credit <bits> <hex>" or "mix <bytes> <hex>"
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "macro.h"
#include "pool.h"
#include "time-util.h"

static usec_t fake_start = 0;

static int env_int(const char *name, int def) {
        const char *e = getenv(name);
        return e && *e ? atoi(e) : def;
}

static bool state_ready(void) {
        const char *path = getenv("FAKE_POOL_STATE");
        char buf[8] = {};
        _cleanup_close_ int fd = -EBADF;

        if (!path)
                return false;
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return false;
        return read(fd, buf, sizeof(buf) - 1) >= 5 && strncmp(buf, "ready", 5) == 0;
}

/* Time left until the pool initializes on its own, USEC_INFINITY for never. */
static usec_t fake_left(void) {
        const char *e = getenv("FAKE_POOL_READY_AFTER_MS");
        usec_t after, now = now_usec(CLOCK_MONOTONIC);

        if (fake_start == 0)
                fake_start = now;
        if (state_ready())
                return 0;
        if (e && streq(e, "never"))
                return USEC_INFINITY;
        after = (usec_t) env_int("FAKE_POOL_READY_AFTER_MS", 0) * USEC_PER_MSEC;
        return now - fake_start >= after ? 0 : fake_start + after - now;
}

int pool_probe_ready(void) {
        if (env_int("FAKE_POOL_ENOSYS", 0))
                return -ENOSYS;
        return fake_left() == 0;
}

int pool_wait_ready(void) {
        usec_t left;

        if (env_int("FAKE_POOL_ENOSYS", 0))
                return -ENOSYS;
        /* Like getrandom(): sleeps until ready, returns EINTR if a handler ran.
         * The state file is re-read on each slice, so another process
         * crediting the fake pool releases this one. */
        while ((left = fake_left()) > 0) {
                usec_t slice = MIN(left, 20 * USEC_PER_MSEC);
                struct timespec ts = {
                        .tv_sec = (time_t) (slice / USEC_PER_SEC),
                        .tv_nsec = (long) (slice % USEC_PER_SEC * NSEC_PER_USEC),
                };
                if (nanosleep(&ts, NULL) < 0)
                        return negative_errno();
        }
        return 0;
}

static void log_seed(const char *what, size_t n, const void *buf, size_t size) {
        const char *path = getenv("FAKE_POOL_LOG");
        const unsigned char *p = buf;
        FILE *f;

        if (!path)
                return;
        f = fopen(path, "ae");
        if (!f)
                abort();
        fprintf(f, "%s %zu ", what, n);
        for (size_t i = 0; i < size; i++)
                fprintf(f, "%02x", p[i]);
        fputc('\n', f);
        if (fclose(f) != 0)
                abort();
}

int pool_add_seed(const void *buf, size_t size, bool credit) {
        int e = env_int("FAKE_POOL_ADD_ERRNO", 0);

        if (e > 0)
                return -e;
        if (size == 0)
                return 0;
        if (credit) {
                const char *path = getenv("FAKE_POOL_STATE");

                log_seed("credit", size * 8, buf, size);
                if (path && size * 8 >= 256) {
                        FILE *f = fopen(path, "we");
                        if (!f || fputs("ready\n", f) < 0 || fclose(f) != 0)
                                abort();
                }
        } else
                log_seed("mix", size, buf, size);
        return 0;
}

int pool_size_bits(void) {
        return env_int("FAKE_POOL_SIZE_BITS", 256);
}

int pool_entropy_avail(void) {
        const char *e = getenv("FAKE_POOL_ENTROPY_AVAIL");
        usec_t left = fake_left(), after;

        if (e && streq(e, "error"))
                return -EACCES;
        if (left == 0)
                return 256;
        if (e && *e)
                return atoi(e);
        if (left == USEC_INFINITY)
                return 0;
        after = (usec_t) env_int("FAKE_POOL_READY_AFTER_MS", 0) * USEC_PER_MSEC;
        return after == 0 ? 0 : (int) (255 - 255 * left / after);
}

static int read_urandom(void *buf, size_t size) {
        _cleanup_close_ int fd = -EBADF;

        fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        for (char *p = buf; size > 0;) {
                ssize_t n = read(fd, p, size);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return n < 0 ? negative_errno() : -EIO;
                p += n;
                size -= (size_t) n;
        }
        return 0;
}

int pool_random_bytes(void *buf, size_t size) {
        bool ready = pool_probe_ready() > 0;
        int r;

        r = read_urandom(buf, size);
        return r < 0 ? r : ready;
}

int pool_random_bytes_initialized(void *buf, size_t size) {
        int r = pool_probe_ready();

        if (r < 0)
                return r;
        if (r == 0)
                return -EAGAIN;
        return read_urandom(buf, size);
}
