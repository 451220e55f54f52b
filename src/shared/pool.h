/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The kernel's random pool, as the rest of the project sees it. Exactly one
 * implementation is linked into a binary: pool-linux.c (the kernel) or
 * tests/fake/pool-fake.c (a scripted pool for tests). Nothing else includes
 * <linux/random.h> or calls getrandom(). All functions return -errno on
 * failure. */

/* Is the CRNG initialized? 1 yes, 0 not yet, -ENOSYS when the kernel has no
 * getrandom(2) (< 3.17). Never blocks. */
int pool_probe_ready(void);

/* Block until the CRNG is initialized. 0 when ready; -EINTR when a signal
 * handler ran (the caller decides whether to wait again). Blocking in
 * getrandom() rather than poll()ing /dev/random makes kernels >= 5.4 run
 * their jitter entropy generator while we wait. */
int pool_wait_ready(void);

/* Give @size bytes to the kernel. With @credit, count them as 8 x @size bits
 * of entropy (RNDADDENTROPY on /dev/urandom, needs CAP_SYS_ADMIN: -EPERM
 * otherwise); without, mix them in uncredited (a write to /dev/urandom). */
int pool_add_seed(const void *buf, size_t size, bool credit);

/* The input pool size in bits (/proc/sys/kernel/random/poolsize). */
int pool_size_bits(void);

/* The kernel's entropy_avail (/proc/sys/kernel/random/entropy_avail): on
 * Linux >= 5.18 the bits counted towards initializing the CRNG, 256 once it
 * is. A figure for people watching a wait, never a readiness test. */
int pool_entropy_avail(void);

/* Fill @buf with @size random bytes without ever blocking. Returns 1 when the
 * bytes came from an initialized CRNG (GRND_NONBLOCK succeeded), 0 when the
 * pool was not ready and they came from GRND_INSECURE (or /dev/urandom on
 * kernels < 5.6): mixable, never to be trusted as a secret on their own. */
int pool_random_bytes(void *buf, size_t size);

/* Fill @buf with @size bytes from the initialized CRNG only
 * (getrandom(GRND_NONBLOCK)): -EAGAIN while it is not initialized, and no
 * fallback of any kind, for bytes that leave this machine as another
 * machine's secret (entropyctl credential). 0 or -errno. */
int pool_random_bytes_initialized(void *buf, size_t size);
