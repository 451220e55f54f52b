// SPDX-License-Identifier: LGPL-2.1-or-later
/* The only file that talks to the kernel's random pool. */
#include <fcntl.h>
#include <linux/random.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/random.h>

#include "io-util.h"
#include "macro.h"
#include "pool.h"

/* The largest seed (SEED_SIZE_MAX) credited without the heap. */
#define POOL_STACK_SEED_MAX 512

#ifndef GRND_INSECURE
#define GRND_INSECURE 0x0004 /* Linux 5.6 */
#endif

int pool_probe_ready(void) {
        /* A zero-length GRND_NONBLOCK read is the kernel's own readiness query:
         * it returns 0 once the CRNG is initialized, EAGAIN before, and consumes
         * nothing. entropy_avail is not readiness and is never consulted. */
        if (getrandom(NULL, 0, GRND_NONBLOCK) >= 0)
                return 1;
        if (errno == EAGAIN)
                return 0;
        return negative_errno();
}

int pool_wait_ready(void) {
        if (getrandom(NULL, 0, 0) >= 0)
                return 0;
        return negative_errno();
}

/* /dev/urandom for writing, opened once: a load hands the kernel several
 * seeds in a row. Closed at exit. */
static int urandom_fd(void) {
        static int fd = -EBADF;

        if (fd < 0) {
                fd = open("/dev/urandom", O_WRONLY | O_CLOEXEC | O_NOCTTY);
                if (fd < 0) {
                        int r = negative_errno();
                        fd = -EBADF;
                        return r;
                }
        }
        return fd;
}

int pool_add_seed(const void *buf, size_t size, bool credit) {
        int fd;

        if (size == 0)
                return 0;

        fd = urandom_fd();
        if (fd < 0)
                return fd;

        if (credit) {
                /* A seed fits on the stack (no heap on the boot path,
                 * io-util.h); a larger credential goes to the heap. */
                union {
                        struct rand_pool_info info;
                        uint8_t bytes[sizeof(struct rand_pool_info) + POOL_STACK_SEED_MAX];
                } stack;
                struct rand_pool_info *info = &stack.info;
                size_t isize = sizeof(*info) + size;
                int r;

                if (size > INT32_MAX / 8)
                        return -EINVAL;
                if (size > POOL_STACK_SEED_MAX) {
                        info = malloc(isize);
                        if (!info)
                                return -ENOMEM;
                }
                info->entropy_count = (int) (size * 8);
                info->buf_size = (int) size;
                memcpy(info->buf, buf, size);
                r = RET_NERRNO(ioctl(fd, RNDADDENTROPY, info));
                erase(info, isize);
                if (info != &stack.info)
                        free(info);
                return r < 0 ? r : 0;
        }

        return loop_write(fd, buf, size);
}

/* A number of bits from a /proc/sys/kernel/random file. */
static int read_bits(const char *path, bool zero_ok) {
        char buf[16 + 2], *end;
        size_t n;
        long bits;
        int r;

        r = read_virtual_file_into(path, 16, buf, &n);
        if (r < 0)
                return r;
        errno = 0;
        bits = strtol(buf, &end, 10);
        if (errno != 0 || end == buf || bits < 0 || (bits == 0 && !zero_ok) || bits > INT32_MAX)
                return -EIO;
        return (int) bits;
}

int pool_size_bits(void) {
        return read_bits("/proc/sys/kernel/random/poolsize", false);
}

int pool_entropy_avail(void) {
        return read_bits("/proc/sys/kernel/random/entropy_avail", true);
}

static int getrandom_all(void *buf, size_t size, unsigned flags) {
        for (char *p = buf; size > 0;) {
                ssize_t n = getrandom(p, size, flags);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                p += n;
                size -= (size_t) n;
        }
        return 0;
}

int pool_random_bytes(void *buf, size_t size) {
        _cleanup_close_ int fd = -EBADF;
        ssize_t n;
        int r;

        r = getrandom_all(buf, size, GRND_NONBLOCK);
        if (r == 0)
                return 1;
        if (r != -EAGAIN)
                return r;

        r = getrandom_all(buf, size, GRND_INSECURE);
        if (r == 0)
                return 0;
        if (r != -EINVAL)
                return r;

        /* Kernels before 5.6 have no GRND_INSECURE; /dev/urandom gives the
         * same never-blocking, not-yet-trustworthy output. */
        fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        n = loop_read(fd, buf, size);
        return n < 0 ? (int) n : (size_t) n == size ? 0 : -EIO;
}

int pool_random_bytes_initialized(void *buf, size_t size) {
        /* No GRND_INSECURE, no /dev/urandom: a host whose own pool is not
         * initialized hands out nothing rather than bytes someone could
         * predict. */
        return getrandom_all(buf, size, GRND_NONBLOCK);
}
