/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>

/* Where a verb that makes a file format (plot's SVG, metrics' text) puts
 * it: standard output, or --output=FILE replaced atomically (a temporary
 * file renamed over it, mode 0644), so that a reader such as
 * node_exporter's textfile collector never sees half a file. 0 or -errno;
 * -EEXIST when FILE is there and not a regular file (a device such as
 * /dev/null, a symlink such as /dev/stdout, a FIFO): never replaced. */
int output_write(const char *path, const char *buf, size_t size);
