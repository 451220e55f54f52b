/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "time-util.h"

/* The kernel log as /dev/kmsg hands it out, for what a boot without a
 * journal (or a journal without kernel messages) still knows: one record per
 * read(), "PRIORITY,SEQUENCE,USEC,FLAGS[,...];MESSAGE\n", then " KEY=VALUE"
 * continuation lines. */

#define KMSG_FACILITY_KERNEL 0  /* user space writing to /dev/kmsg can never claim it */

typedef struct KmsgRecord {
        unsigned facility, level;
        uint64_t seq;
        usec_t usec;                 /* the kernel's printk time: CLOCK_MONOTONIC, as the journal's */
        const char *message;         /* into the line parsed, not NUL-terminated */
        size_t message_len;
} KmsgRecord;

/* Pure: parse one record's first line, @n bytes without the newline.
 * 0, or -EBADMSG when it is not one. */
int kmsg_record_parse(const char *line, size_t n, KmsgRecord *ret);

/* Pure: is @r a message of the kernel's own (not one a program wrote to
 * /dev/kmsg) starting with @prefix? */
bool kmsg_record_is_kernel(const KmsgRecord *r, const char *prefix);

/* Read every record of the file @fd without blocking, from what dmesg(1)
 * shows (lseek(SEEK_DATA): the first record after the last "dmesg -c")
 * to the newest, handing each to @cb; a record overwritten while we read is
 * skipped. @fd may also be a regular file holding records, one a line.
 * @cb returns 0 to go on, > 0 to stop, < 0 to fail. Returns 0, or -errno. */
typedef int (*kmsg_record_cb)(const KmsgRecord *r, void *userdata);
int kmsg_read_all(int fd, kmsg_record_cb cb, void *userdata);
