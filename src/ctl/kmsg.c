// SPDX-License-Identifier: LGPL-2.1-or-later
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "kmsg.h"
#include "macro.h"

/* The kernel's records are at most a few KiB (PRINTKRB_RECORD_MAX plus the
 * dictionary); a read() into a smaller buffer fails with EINVAL. */
#define KMSG_RECORD_MAX (16U * 1024U)
/* A regular file of records (a saved log, a test) is read this far at most. */
#define KMSG_FILE_MAX (64U * 1024U * 1024U)

static bool parse_u64(const char **p, const char *end, uint64_t *ret) {
        uint64_t v = 0;
        const char *s = *p;

        if (s >= end || *s < '0' || *s > '9')
                return false;
        for (; s < end && *s >= '0' && *s <= '9'; s++) {
                if (v > (UINT64_MAX - 9) / 10)
                        return false;
                v = v * 10 + (uint64_t) (*s - '0');
        }
        *p = s;
        *ret = v;
        return true;
}

int kmsg_record_parse(const char *line, size_t n, KmsgRecord *ret) {
        const char *p = line, *end = line + n, *semicolon;
        uint64_t prio, seq, usec;

        semicolon = memchr(line, ';', n);
        if (!semicolon)
                return -EBADMSG;
        if (!parse_u64(&p, semicolon, &prio) || p >= semicolon || *p++ != ',' ||
            !parse_u64(&p, semicolon, &seq) || p >= semicolon || *p++ != ',' ||
            !parse_u64(&p, semicolon, &usec))
                return -EBADMSG;
        /* The flags and any later fields are the kernel's to add. */
        if (p != semicolon && *p != ',')
                return -EBADMSG;
        if (prio > 0xffffff)
                return -EBADMSG;

        *ret = (KmsgRecord) {
                .facility = (unsigned) (prio >> 3),
                .level = (unsigned) (prio & 7),
                .seq = seq,
                .usec = usec,
                .message = semicolon + 1,
                .message_len = (size_t) (end - semicolon - 1),
        };
        return 0;
}

bool kmsg_record_is_kernel(const KmsgRecord *r, const char *prefix) {
        size_t l = strlen(prefix);

        return r->facility == KMSG_FACILITY_KERNEL && r->message_len >= l && memcmp(r->message, prefix, l) == 0;
}

/* Each complete line in @buf: records to @cb, continuation lines (" KEY=")
 * skipped. Returns the bytes consumed, or the callback's non-zero answer. */
static int dispatch_lines(char *buf, size_t n, size_t *ret_consumed, kmsg_record_cb cb, void *userdata) {
        size_t i = 0;

        for (;;) {
                char *nl = memchr(buf + i, '\n', n - i);
                KmsgRecord r;
                int k;

                if (!nl)
                        break;
                if (buf[i] != ' ' && kmsg_record_parse(buf + i, (size_t) (nl - buf - i), &r) >= 0) {
                        k = cb(&r, userdata);
                        if (k != 0) {
                                *ret_consumed = n;
                                return k;
                        }
                }
                i = (size_t) (nl - buf) + 1;
        }
        *ret_consumed = i;
        return 0;
}

int kmsg_read_all(int fd, kmsg_record_cb cb, void *userdata) {
        _cleanup_free_ char *buf = NULL;
        size_t have = 0, total = 0;
        bool skipping = false;

        buf = malloc(KMSG_RECORD_MAX);
        if (!buf)
                return -ENOMEM;
        /* What dmesg shows. On a regular file: its start (or ENXIO when empty). */
        (void) lseek(fd, 0, SEEK_DATA);

        while (total < KMSG_FILE_MAX) {
                size_t consumed;
                ssize_t n;
                int k;

                n = read(fd, buf + have, KMSG_RECORD_MAX - have);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno == EPIPE)
                                continue;   /* overwritten before we got to it: on to the next */
                        if (errno == EAGAIN)
                                break;      /* the newest record was read */
                        return negative_errno();
                }
                if (n == 0)
                        break;
                have += (size_t) n;
                total += (size_t) n;

                if (skipping) {
                        char *nl = memchr(buf, '\n', have);

                        if (!nl) {
                                have = 0;
                                continue;
                        }
                        consumed = (size_t) (nl - buf) + 1;
                        memmove(buf, buf + consumed, have - consumed);
                        have -= consumed;
                        skipping = false;
                }
                k = dispatch_lines(buf, have, &consumed, cb, userdata);
                if (k < 0)
                        return k;
                if (k > 0)
                        return 0;
                memmove(buf, buf + consumed, have - consumed);
                have -= consumed;
                /* A line longer than any record is not one: skip to its end. */
                if (have == KMSG_RECORD_MAX) {
                        have = 0;
                        skipping = true;
                }
        }
        return 0;
}
