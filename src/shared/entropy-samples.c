// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <string.h>

#include "entropy-samples.h"
#include "macro.h"

static uint32_t msec_of(usec_t u) {
        u /= USEC_PER_MSEC;
        return u > UINT32_MAX ? UINT32_MAX : (uint32_t) u;
}

static void put(EntropySamples *s, uint32_t msec, unsigned bits) {
        s->s[s->n++] = (EntropySample) { .msec = msec, .bits = MIN(bits, ENTROPY_SAMPLES_BITS_MAX) };
}

/* Full: keep samples 0, 2, 4, ... and halve the rate from now on. */
static void halve(EntropySamples *s) {
        unsigned j = 0;

        for (unsigned i = 0; i < s->n; i += 2)
                s->s[j++] = s->s[i];
        s->n = j;
        s->stride = MAX(s->stride, 1u) * 2;
        s->offered = 0;
}

void entropy_samples_add(EntropySamples *s, usec_t since, unsigned bits) {
        uint32_t msec = msec_of(since);

        if (s->n > 0 && msec < s->s[s->n - 1].msec)
                return;
        if (s->offered++ % MAX(s->stride, 1u) != 0)
                return;
        if (s->n == ENTROPY_SAMPLES_MAX) {
                halve(s);
                s->offered = 1;   /* this one is kept: the next is a stride on */
        }
        put(s, msec, bits);
}

void entropy_samples_add_last(EntropySamples *s, usec_t since, unsigned bits) {
        uint32_t msec = msec_of(since);

        if (s->n > 0 && msec < s->s[s->n - 1].msec)
                return;
        if (s->n == ENTROPY_SAMPLES_MAX)
                s->n--;
        put(s, msec, bits);
}

static char *put_u32(char *p, uint32_t v) {
        char d[10];
        size_t n = 0;

        do
                d[n++] = (char) ('0' + v % 10);
        while ((v /= 10) > 0);
        while (n > 0)
                *p++ = d[--n];
        return p;
}

int entropy_samples_format(const EntropySamples *s, char *buf, size_t size) {
        char *p = buf;

        if (size == 0)
                return -ENOBUFS;
        for (unsigned i = 0; i < s->n; i++) {
                char one[24], *q = one;

                if (i > 0)
                        *q++ = ' ';
                q = put_u32(q, s->s[i].msec);
                *q++ = ':';
                q = put_u32(q, s->s[i].bits);
                if ((size_t) (q - one) >= size - (size_t) (p - buf)) {
                        buf[0] = 0;
                        return -ENOBUFS;
                }
                memcpy(p, one, (size_t) (q - one));
                p += q - one;
        }
        *p = 0;
        return (int) (p - buf);
}

int entropy_samples_push(EntropySamples *s, uint64_t msec, uint64_t bits) {
        if (s->n == ENTROPY_SAMPLES_MAX || msec > UINT32_MAX || bits > ENTROPY_SAMPLES_BITS_MAX ||
            (s->n > 0 && msec < s->s[s->n - 1].msec))
                return -EBADMSG;
        s->s[s->n++] = (EntropySample) { .msec = (uint32_t) msec, .bits = (uint32_t) bits };
        return 0;
}

/* Decimal digits, no sign, no leading zero but "0", at most @max. */
static const char *parse_u32(const char *p, uint32_t max, uint32_t *ret) {
        uint64_t v = 0;
        const char *start = p;

        while (*p >= '0' && *p <= '9') {
                v = v * 10 + (uint64_t) (*p - '0');
                if (v > max)
                        return NULL;
                p++;
        }
        if (p == start || (*start == '0' && p - start > 1))
                return NULL;
        *ret = (uint32_t) v;
        return p;
}

int entropy_samples_parse(const char *text, EntropySamples *ret) {
        EntropySamples s = {};
        const char *p = text;

        *ret = (EntropySamples) {};
        while (*p) {
                uint32_t msec, bits;

                if (s.n > 0 && *p++ != ' ')
                        return -EBADMSG;
                p = parse_u32(p, UINT32_MAX, &msec);
                if (!p || *p++ != ':')
                        return -EBADMSG;
                p = parse_u32(p, ENTROPY_SAMPLES_BITS_MAX, &bits);
                if (!p || entropy_samples_push(&s, msec, bits) < 0)
                        return -EBADMSG;
        }
        *ret = s;
        return 0;
}
