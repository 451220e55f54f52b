/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "time-util.h"

/* The kernel's entropy_avail while the gate waits: the bits it has counted
 * towards initializing the CRNG (256 when initialized, on Linux >= 5.18),
 * sampled by the gate at each status tick, about once a second. It says how
 * fast the pool was filling, never whether it is ready (getrandom() alone
 * says that). A wait of any length fits in one record line: when the array
 * is full, every other sample is dropped and only every second offered one
 * is kept from then on; the last sample (the release) is always kept.
 * Pure. */

#define ENTROPY_SAMPLES_MAX 32
#define ENTROPY_SAMPLES_BITS_MAX 65535u      /* more is not a kernel's count */
/* "MSEC:BITS" each, space-separated: at most 10 + 1 + 5 + 1 bytes a sample. */
#define ENTROPY_SAMPLES_TEXT_MAX (ENTROPY_SAMPLES_MAX * 17 + 1)

typedef struct EntropySample {
        uint32_t msec;               /* since the gate started waiting */
        uint32_t bits;
} EntropySample;

typedef struct EntropySamples {
        EntropySample s[ENTROPY_SAMPLES_MAX];
        unsigned n;
        unsigned stride;             /* keep one of every @stride offered; 0 means 1 */
        unsigned offered;
} EntropySamples;

/* Offer a sample taken @since after the wait began. Bits above
 * ENTROPY_SAMPLES_BITS_MAX are clamped. Times go forward: a sample earlier
 * than the last kept one is ignored. */
void entropy_samples_add(EntropySamples *s, usec_t since, unsigned bits);

/* The last sample of a wait: always kept, replacing the newest when the
 * array is full. */
void entropy_samples_add_last(EntropySamples *s, usec_t since, unsigned bits);

/* A reader's sample, strictly: appended when there is room, @msec fits and
 * is not before the last one, and @bits is at most ENTROPY_SAMPLES_BITS_MAX;
 * else -EBADMSG and @s unchanged. The rule of entropy_samples_parse(), for
 * samples read from elsewhere (a saved timeline). */
int entropy_samples_push(EntropySamples *s, uint64_t msec, uint64_t bits);

/* "0:12 1000:40 2000:256". Returns the length, or -ENOBUFS. "" for none. */
int entropy_samples_format(const EntropySamples *s, char *buf, size_t size);

/* Strict: the whole text is such a list (times never going back, at most
 * ENTROPY_SAMPLES_MAX samples, bits at most ENTROPY_SAMPLES_BITS_MAX), else
 * -EBADMSG and *ret empty. "" is no samples. */
int entropy_samples_parse(const char *text, EntropySamples *ret);
