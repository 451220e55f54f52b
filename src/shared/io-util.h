/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* The I/O layer every module uses: one read loop, one write loop, one
 * bounded safe file read and one fd-relative atomic write. Nothing here
 * logs; everything returns 0 (or a count) on success and -errno on failure,
 * with out-parameters untouched on failure. */

/* The next entry of @d: 1 and *@ret set, 0 at the end, -errno when the
 * directory cannot be read. readdir() says both "end" and "error" with
 * NULL; a caller that takes an error for the end reads a directory it could
 * not list as an empty one, and a setting it holds is silently lost. */
int dir_next(DIR *d, struct dirent **ret);

/* read() until @size bytes or end of file, retrying EINTR. Returns the
 * number of bytes read (less than @size only at end of file), or -errno. */
ssize_t loop_read(int fd, void *buf, size_t size);

/* write() all @size bytes, retrying EINTR and short writes. 0 or -errno
 * (-EIO when the kernel accepts nothing). */
int loop_write(int fd, const void *buf, size_t size);

typedef enum ReadFlags {
        READ_NUL_TERMINATE = 1 << 0,  /* text: one byte more allocated, set to NUL */
        READ_REFUSE_NUL    = 1 << 1,  /* text: a NUL byte inside is -EBADMSG */
        READ_SECRET        = 1 << 2,  /* key material: the buffer is wiped on error paths */
} ReadFlags;

/* Facts about the file read, for callers that judge ownership and modes. */
typedef struct FileStat {
        dev_t dev;                    /* identity: the same file however it is named */
        ino_t ino;
        nlink_t nlink;
        uid_t uid;
        gid_t gid;
        mode_t mode;                  /* type and permission bits, as st_mode */
        off_t size;
        struct timespec mtime;
} FileStat;

void file_stat_from_stat(const struct stat *st, FileStat *ret);

/* Open @path relative to @dfd (AT_FDCWD, or a directory fd) for reading
 * without following a symlink in the last component (-ELOOP). Nothing but
 * a regular file is ever opened for reading: the name is opened O_PATH and
 * fstat()ed first, so a device's driver is never called and a FIFO never
 * waited on. Returns a readable fd for a regular file; for anything else an
 * O_PATH fd, good for fstat() only (reads fail with EBADF): the caller
 * decides what to say about it from @ret_stat (filled when non-NULL).
 * -ENOSYS without the kernel's /proc (see fd_reopen_regular()). */
int open_nofollow_at(int dfd, const char *path, FileStat *ret_stat);

/* Open the file an O_PATH fd (or any fd) holds for reading, if and only if
 * it is a regular file: -EISDIR, -ELOOP (a symlink itself), -EBADFD for
 * anything else, so a device or a FIFO is never opened. The reopen goes
 * through /proc/self/fd (Linux has no other way): -ENOSYS when
 * /proc/self/fd is not the kernel's, never a fall back to a name; -ESTALE
 * when the link does not lead to the very file @path_fd holds (something
 * mounted over /proc/PID/fd or one of its links), checked before the open
 * and again on the fd opened. A new fd, O_RDONLY|O_NONBLOCK; @ret_stat,
 * when non-NULL, what fstat() said. */
int fd_reopen_regular(int path_fd, FileStat *ret_stat);

/* Whether the file @fd has an access ACL: entries beyond what its mode
 * says, for other users or groups, to whom the group bits (then the ACL's
 * mask) may grant access. 1, 0 (none, or a file system without ACLs), or
 * -errno. */
int fd_has_access_acl(int fd);

/* Whether @path (followed) or @fd is on the kernel's procfs: not a tmpfs
 * or a bind mount someone put over a part of /proc to make its files and
 * links say what they like. */
bool path_is_procfs(const char *path);
bool fd_is_procfs(int fd);

/* Read the regular file @fd, at most @max bytes, into a new buffer. A file
 * larger than @max is refused with -EFBIG before anything is read when fstat
 * says so, and by reading at most @max + 1 bytes when it grew since: a 1 GiB
 * file costs neither memory nor time. -EBADFD when @fd is not a regular
 * file. The buffer has room for @max + 1 bytes (the caller wipes secrets
 * with that size, READ_SECRET) and is NUL-terminated with
 * READ_NUL_TERMINATE. */
int read_fd_bounded(int fd, size_t max, ReadFlags flags, char **ret_buf, size_t *ret_size);

/* The same for a file whose fstat() the caller already has. */
int read_fd_bounded_stat(int fd, const FileStat *st, size_t max, ReadFlags flags, char **ret_buf, size_t *ret_size);

/* Into the caller's @buf of @max + 1 bytes: the boot path reads its small
 * files into fixed buffers and never sets up a heap (which costs a fresh
 * process three system calls and their page faults). */
int read_fd_bounded_stat_into(int fd, const FileStat *st, size_t max, ReadFlags flags, char *buf, size_t *ret_size);

/* A kernel's virtual file (/proc, /sys: they report size 0 and hand over
 * their whole small content in one read()), or a test's stand-in for one:
 * not followed, not blocking, at most @max bytes (-EFBIG), one read(), a
 * NUL-terminated buffer. */
int read_virtual_file(const char *path, size_t max, char **ret_buf, size_t *ret_size);

/* The same into the caller's @buf of @max + 2 bytes. */
int read_virtual_file_into(const char *path, size_t max, char *buf, size_t *ret_size);

/* The read() of read_virtual_file_into() on an open @fd: for small files
 * whose every byte the caller then checks (the machine-id, the boot id),
 * opened by fd_reopen_regular() or root_open_regular(), so never a device
 * or a FIFO. */
int read_fd_once_into(int fd, size_t max, char *buf, size_t *ret_size);

/* open_nofollow_at() then read_fd_bounded(): the one way this project reads a
 * file it does not trust (seeds, the machine-id, credentials, configuration,
 * records). @ret_stat as for open_nofollow_at(), filled only on success. */
int read_file_at(int dfd, const char *path, size_t max, ReadFlags flags,
                 char **ret_buf, size_t *ret_size, FileStat *ret_stat);

/* "a directory", "a FIFO", ...: what a file that is not a regular one is,
 * for messages. */
const char *inode_type_to_string(mode_t mode);

/* flock(LOCK_EX) on @fd, waiting at most @timeout_usec for another holder
 * (-ETIMEDOUT): a lock held by someone else must not hang the boot. The
 * free lock, the common case, costs one system call. */
int flock_timeout(int fd, uint64_t timeout_usec);

/* Each of stdin, stdout and stderr that is closed, opened on /dev/null: a
 * file opened later would otherwise take its number, and what is written to
 * stdout or stderr would land in it (a seed, a record). Run before any file
 * is opened. */
void stdio_ensure_open(void);

/* Wipe @size bytes of @p and free it (NULL is fine). */
void erase_free(void *p, size_t size);

typedef enum WriteFlags {
        /* fsync the file before the rename and the directory after it: once
         * the call returns, the new content survives a power cut. */
        WRITE_DURABLE = 1 << 0,
        /* The temporary name is one of this writer's own, for writers that
         * hold no lock; otherwise it is fixed (".#NAME.new") and a leftover
         * from a killed run is removed first, which is only safe under a
         * lock. */
        WRITE_UNIQUE_TMP = 1 << 1,
} WriteFlags;

/* Replace @name under @dfd with @size bytes of @buf, atomically: a
 * temporary file created O_EXCL|O_NOFOLLOW with @mode next to it, written,
 * renamed over @name. After a crash at any point @name holds the old
 * content or the new, never a mixture. On failure the temporary file is
 * removed and @name is untouched. @name may have directories in it only
 * without WRITE_DURABLE (-EINVAL), which fsyncs @dfd as @name's directory. */
int write_file_atomic_at(int dfd, const char *name, const void *buf, size_t size, mode_t mode, WriteFlags flags);

/* The fixed temporary name write_file_atomic_at() uses for @name without
 * WRITE_UNIQUE_TMP, for messages (-EEXIST from it means that something it
 * will not remove, a directory or a file it may not unlink, holds that
 * name) and to know it among a directory's names. */
int write_file_atomic_tmp_name(const char *name, char *ret, size_t size);
