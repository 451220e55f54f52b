/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <limits.h>
#include <stdbool.h>

/* The directory every system path is taken relative to: "/" on a running
 * system; an image's tree with entropy-seed --root= and entropyctl --root=
 * (image builders, and tests). Set once by a front end before anything
 * else; never from the environment. */

/* NULL, "" and "/" mean the real root. The string must outlive its use. */
void root_set(const char *dir);

/* NULL for the real root, else the directory without trailing slashes. */
const char *root_get(void);

/* @path (absolute) inside the root, in a new string: "/etc/x" or
 * "ROOT/etc/x". 0 or -ENOMEM. */
int root_path(const char *path, char **ret);

/* The same without allocating: @path itself on the real root, else
 * "ROOT/path" in @buf; NULL when that does not fit (ENAMETOOLONG). */
const char *root_path_buf(const char *path, char buf[static PATH_MAX]);

/* Open @path (absolute) inside the root for reading, following symlinks as
 * the running system would, but never out of the root: an absolute link
 * target is taken inside it, ".." stops at it. Non-blocking, close-on-exec.
 * Returns the fd or -errno (-ELOOP after too many links). */
int root_open_follow(const char *path);

/* The same resolution relative to the directory @root_fd, for callers that
 * hold an image's root open. */
int chase_open_at(int root_fd, const char *path);
