/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>
#include <time.h>

typedef uint64_t usec_t;

#define USEC_INFINITY ((usec_t) UINT64_MAX)
#define USEC_PER_MSEC ((usec_t) 1000ULL)
#define USEC_PER_SEC  ((usec_t) 1000000ULL)
#define USEC_PER_MINUTE (60ULL * USEC_PER_SEC)
#define USEC_PER_HOUR (60ULL * USEC_PER_MINUTE)
#define NSEC_PER_USEC ((uint64_t) 1000ULL)

/* Current time of clock @id in µs; CLOCK_BOOTTIME is the clock the journal's
 * monotonic stamps and the kernel log line up with. */
usec_t now_usec(clockid_t id);

/* Parse a duration: "10" (seconds), "10s", "500ms", "2min", "1h", "1.5s",
 * combinations like "1min 30s", and "infinity". Pure. Returns 0 or -EINVAL /
 * -ERANGE; *ret untouched on failure. */
int parse_duration(const char *s, usec_t *ret);

/* Format a duration for people: "0.004s", "1.250s", "2min 3.000s", "infinity". */
const char *format_duration(char *buf, size_t size, usec_t u);
#define DURATION_MAX 32
#define FORMAT_DURATION(u) format_duration((char[DURATION_MAX]){}, DURATION_MAX, (u))
