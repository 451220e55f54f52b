/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* The seed directory, as a directory fd: every file operation below is
 * relative to it (openat, renameat, fsync of the directory), so that a path
 * swapped under us between two calls cannot redirect a read or a write, and
 * tests can hand in any temporary directory. None of these functions logs;
 * all return 0 (or a positive count) on success and -errno on failure. */

/* Open @path as a directory, creating it (mode 0700, last component only)
 * when it does not exist, and take an exclusive flock on it. Two
 * entropy-seed processes (a load racing a save, an admin's manual run) then
 * never both read the same seed before either replaced it. The lock is held
 * until the fd is closed. Returns the directory fd, or -errno. */
int seed_dir_open_locked(const char *path);

/* Owner and mode facts the crediting rules need. */
typedef struct SeedStat {
        uid_t uid;
        mode_t mode;    /* type and permission bits, as in st_mode */
        off_t size;
} SeedStat;

int seed_dir_stat(int dfd, SeedStat *ret);

/* Open @name under @dfd for reading without following a symlink
 * (-ELOOP) and without blocking on a FIFO (O_NONBLOCK), and report what it
 * is. A file that is not regular is reported, not read: the caller decides
 * what to say about it. Returns the fd, or -errno (-ENOENT: no such file). */
int seed_file_open(int dfd, const char *name, SeedStat *ret_stat);

/* Read at most @max bytes from the regular file @fd into a new buffer. A
 * file larger than @max is refused with -EFBIG before anything is read when
 * fstat says so, and by reading at most @max + 1 bytes when it grew since:
 * a 1 GiB file costs neither memory nor time. The buffer is malloc'd with
 * room for @max bytes; the caller wipes and frees it. */
int seed_file_read(int fd, size_t max, void **ret_buf, size_t *ret_size);

/* Open and read @path (absolute, or relative to the current directory)
 * the same bounded, non-following, non-blocking way: for the machine-id,
 * legacy seeds and credentials. -EBADFD when it is not a regular file. */
int read_file_bounded(const char *path, size_t max, void **ret_buf, size_t *ret_size);

/* Replace @name under @dfd with @size bytes of @buf, atomically and
 * durably: a temporary file created O_EXCL with mode 0600, written,
 * fsync()ed, renamed over @name, then the directory fsync()ed. After a
 * crash or power cut at any point @name holds either the old content or
 * the complete new one, never a mixture; once this returns 0 the new
 * content survives a power cut. On failure the temporary file is removed
 * and @name is untouched. Call it with the directory lock held: the
 * temporary name is fixed, and a leftover from a killed run is removed
 * first, which is only safe when no other writer can exist. */
int seed_file_write_atomic(int dfd, const char *name, const void *buf, size_t size);
