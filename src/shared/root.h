/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "io-util.h"

/* The directory every system path is taken relative to: "/" on a running
 * system; an image's tree with entropy-seed --root= and entropyctl --root=
 * (image builders, and tests). Set once by a front end before anything
 * else; never from the environment.
 *
 * Every path under the root is opened through one resolver, for reads and
 * writes alike: component by component from the root's directory fd, never
 * leaving it. Symlinks are followed the way the booted image would follow
 * them (an absolute target starts again at the root, ".." stops at it),
 * magic links (/proc/PID/fd/N, /proc/self/root) never. The kernel does it
 * where it can (openat2(RESOLVE_IN_ROOT)); the same rules are applied by
 * hand where it cannot (kernels before 5.6, a seccomp filter that refuses
 * the system call). Creating, renaming, unlinking and fsyncing are then done
 * relative to the directory fd the resolver returned, never by a name
 * looked up again. */

/* How much of PATH_MAX a root leaves to the paths below it: the fixed
 * ones (/run/entropy-gate, /etc/machine-id, the legacy seeds) are shown
 * whole in messages, with the root in front. */
#define ROOT_SUFFIX_MAX 256

/* NULL, "" and "/" mean the real root. Opens @dir at once, so that a root
 * that cannot be used as given is an error here, never a silent fall back
 * to "/": -ENAMETOOLONG (longer than PATH_MAX - ROOT_SUFFIX_MAX), -ENOENT,
 * -ENOTDIR, -EACCES, ... The string is copied. */
int root_set(const char *dir);

/* NULL for the real root, else the directory as given without trailing
 * slashes: for messages. */
const char *root_get(void);

/* The root's directory fd ("/" opened on first use on the real root), or
 * -errno. Owned by this module. */
int root_fd(void);

/* @path (absolute) inside the root, in a new string: "/etc/x" or
 * "ROOT/etc/x", for messages only: no file is ever opened by it. 0 or
 * -ENOMEM. */
int root_path(const char *path, char **ret);

/* The same without allocating, in @buf; NULL when it does not fit. */
const char *root_path_buf(const char *path, char buf[static PATH_MAX]);

typedef enum ChaseFlags {
        /* A symlink as the last component is not followed: -ELOOP. */
        CHASE_NOFOLLOW    = 1 << 0,
        /* Never cross a mount point on the way (bind mounts included):
         * -EXDEV. For the tree tools (check-image, provision), which work on
         * a tree and nothing mounted into it. Mount points are told apart
         * by their mount ID (statx(STATX_MNT_ID), else the mnt_id: line of
         * /proc/self/fdinfo, Linux 3.15), never by the device number alone
         * (a bind mount keeps it): where neither says, every step might be
         * a mount point, and every step is -EXDEV. */
        CHASE_NO_XDEV     = 1 << 1,
        /* A symlink anywhere on the way is -ELOOP. */
        CHASE_NO_SYMLINKS = 1 << 2,
        /* The result must be a directory (-ENOTDIR). */
        CHASE_DIRECTORY   = 1 << 3,
        /* With CHASE_DIRECTORY: create the last component (mode 0700) when
         * it is missing; its parent must exist. */
        CHASE_MKDIR       = 1 << 4,
        /* The tree tools' --cross-mounts: a mount point may be crossed, but
         * only onto a file system whose files live on a block device or in
         * memory (ext4, xfs, btrfs, vfat, tmpfs...: an allow list) and that
         * is mounted nowhere outside the tree (a separate /var, an ESP, a
         * tmpfs mounted into the image), never onto one this system uses
         * elsewhere (a bind mount of a host directory, the host's root bound
         * in), never onto one that writes elsewhere whatever its mounts
         * (overlayfs, FUSE, NFS, CIFS, 9p, virtiofs), and never to a
         * directory that is this system's root: CHASE_ERR_FOREIGN_MOUNT. Always by hand: the kernel
         * has no such rule. */
        CHASE_MOUNTS_IN_TREE = 1 << 5,
} ChaseFlags;

/* CHASE_MOUNTS_IN_TREE refused a mount on the way: a file system that is
 * also mounted outside the tree (or cannot be shown not to be), one of a
 * type that may keep its files elsewhere, or this system's root. */
#define CHASE_ERR_FOREIGN_MOUNT (-EREMOTE)

/* Open @path (absolute or relative: both start at @root_fd) below
 * @root_fd, read-only, non-blocking, close-on-exec, never a controlling
 * terminal. Returns the fd or -errno (-ELOOP after 40 links). */
int chase_open_at(int root_fd, const char *path, ChaseFlags flags);

/* The rules of chase_open_at() applied by hand, as on kernels without
 * openat2() (no CHASE_MKDIR): exported so that tests hold both to one
 * table. */
int chase_open_by_hand_at(int root_fd, const char *path, ChaseFlags flags);

/* Open the directory that holds @path's last component, and copy that
 * component to @ret_name, for the *at() call that creates, renames or
 * unlinks it. A path whose last component is "", "." or ".." (the root
 * itself, or a name that is not one) is -EINVAL. */
int chase_parent_at(int root_fd, const char *path, ChaseFlags flags, char ret_name[static NAME_MAX + 1]);

/* The root is an image's tree, for the tree tools (provision,
 * check-image): every walk from root_fd() adds @flags (CHASE_NO_XDEV, or
 * CHASE_MOUNTS_IN_TREE with --cross-mounts), for reads as for writes, and
 * what only a running system has is never read in it (its /proc/cmdline
 * would be the build host's, or nothing). Until the next root_set(). */
void root_set_tree(ChaseFlags flags);

/* Whether root_set_tree() was called for the current root. */
bool root_is_tree(void);

/* The same below root_fd(). */
int root_open(const char *path, ChaseFlags flags);
int root_open_parent(const char *path, ChaseFlags flags, char ret_name[static NAME_MAX + 1]);

/* root_open(@path, 0): a file to read, as the running system would find
 * it. */
int root_open_follow(const char *path);

/* @path below @root_fd, resolved as chase_open_at() resolves it (@flags
 * alike), but the last component is opened O_PATH: whatever it is, it is
 * not opened for reading, so a device's driver is never called and a FIFO
 * never waited on. The fd is for fstat() and fd_reopen_regular(). Every
 * file read under a root is opened this way first. */
int chase_open_path_at(int root_fd, const char *path, ChaseFlags flags);

/* The same below root_fd(). */
int root_open_path(const char *path, ChaseFlags flags);

/* root_open_path(), then fd_reopen_regular(): a file to read, opened for
 * reading only when it is a regular file (-EISDIR, -EBADFD otherwise;
 * -ENOSYS without the kernel's /proc). @ret_stat as there. */
int root_open_regular(const char *path, ChaseFlags flags, FileStat *ret_stat);

/* 1 when the directory @fd is this system's root directory (or its init's
 * root, when this runs in a chroot) however it was reached: a bind mount, a
 * symlink, /proc/self/root. 0 when not, -errno. */
int fd_is_system_root(int fd);

/* The mount ID of the file @fd is on (statx(STATX_MNT_ID), else
 * /proc/self/fdinfo), as /proc/self/mountinfo numbers mounts. 0 or -errno
 * (-EOPNOTSUPP: neither is there to ask). */
int fd_mount_id(int fd, uint64_t *ret);

/* Whether the directory @fd is on an overlayfs whose upper layer is a tmpfs
 * or ramfs (systemd.volatile=overlay, overlayroot=tmpfs) or a disk file
 * system on memory (zram, /dev/ramN, a loop file in a tmpfs), or that is mounted
 * "volatile" (its fsync() does nothing): what is written there is gone at
 * the next boot, and the lower layer's files are back. 1, 0 (not an
 * overlay, no upper layer, or one kept on a disk), -errno when it cannot be
 * told: an upper directory whose name does not lead to it now (relative,
 * escaped, gone, in another mount namespace, on another file system) or
 * that is on a file system not known to be a disk. */
int fd_overlay_upper_is_volatile(int fd);

/* Whether @fd is on the initramfs the kernel unpacked at boot (a tmpfs or
 * ramfs that /proc/self/mountinfo calls "rootfs"): what is there came with
 * the boot image, the same at every boot, and nothing written there is kept.
 * 1, 0, -errno when it cannot be told (no /proc, the mount not in
 * mountinfo). */
int fd_is_on_initramfs_root(int fd);

/* Whether @fd is on a file system kept in memory: a tmpfs or ramfs, or a
 * disk file system on a block device made of memory (as for an overlay's
 * upper layer: zram, /dev/ramN, a loop file in a tmpfs, a partition,
 * device-mapper or md device or btrfs with one under it, as a snapshot of
 * a disk whose copy-on-write store is memory). What was written there is
 * gone at the next boot. 1, 0 (on a disk, or on a file system
 * whose devices nobody can ask about: an overlay, NFS, ZFS), -errno when
 * its block devices cannot be told apart from memory. */
int fd_is_in_memory(int fd);

/* Whether @fd is reached through an idmapped mount (Linux 5.12+): the
 * owners fstat() shows there are mapped, not the ones on the file system,
 * where a user whose files show as root's may read and change them; or
 * through an overlay whose upper layer is such a mount. 1, 0, -errno when
 * it cannot be told (no /proc, a mountinfo that is not the kernel's, the
 * mount not in it, an overlay's upper directory whose name does not lead
 * to it now). */
int fd_mount_is_idmapped(int fd);

/* The rule of @flags (CHASE_NO_XDEV, CHASE_MOUNTS_IN_TREE) for one step of
 * a walk below @root_fd, from the directory @from_fd to @fd (a directory or
 * the file at the end): 0, -EXDEV, CHASE_ERR_FOREIGN_MOUNT or -errno. For
 * walkers of their own (check-image) that take one step at a time. */
int chase_check_step(int root_fd, int from_fd, int fd, ChaseFlags flags);

/* Whether @path is absolute and normalized: no "." or ".." component, no
 * empty one ("//"), no trailing slash (except "/" itself). What
 * Directory= must be. */
bool path_is_normalized_absolute(const char *path);
