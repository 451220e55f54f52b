// SPDX-License-Identifier: LGPL-2.1-or-later
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>
#if __has_include(<linux/loop.h>)
#include <linux/loop.h>
#endif
#if __has_include(<linux/btrfs.h>)
#include <linux/btrfs.h>
#endif
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#endif

#include "io-util.h"
#include "macro.h"
#include "root.h"

/* As many as the kernel follows in one lookup (MAXSYMLINKS is 40). */
#define CHASE_LINKS_MAX 40

static char root_dir_buf[PATH_MAX];
static const char *root_dir;
static int root_dfd = -EBADF;
static ChaseFlags root_tree_flags;
static bool root_tree;

int root_set(const char *dir) {
        size_t l;
        int fd;

        root_dir = NULL;
        root_dfd = safe_close(root_dfd);
        root_tree = false;
        root_tree_flags = 0;
        if (!dir)
                return 0;
        l = strlen(dir);
        while (l > 0 && dir[l - 1] == '/')
                l--;
        if (l == 0)
                /* "", "/", "//": the real root. */
                return 0;
        /* Room left for the names below it that messages show whole
         * (ROOT_SUFFIX_MAX). */
        if (l >= sizeof(root_dir_buf) - ROOT_SUFFIX_MAX)
                return -ENAMETOOLONG;
        memcpy(root_dir_buf, dir, l);
        root_dir_buf[l] = 0;
        fd = open(root_dir_buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        root_dir = root_dir_buf;
        root_dfd = fd;
        return 0;
}

void root_set_tree(ChaseFlags flags) {
        root_tree = true;
        root_tree_flags = flags & (CHASE_NO_XDEV | CHASE_MOUNTS_IN_TREE);
}

bool root_is_tree(void) {
        return root_tree;
}

const char *root_get(void) {
        return root_dir;
}

int root_fd(void) {
        if (root_dfd < 0) {
                root_dfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY);
                if (root_dfd < 0)
                        return negative_errno();
        }
        return root_dfd;
}

int root_path(const char *path, char **ret) {
        char *p;

        if (asprintf(&p, "%s%s", root_dir ?: "", path) < 0)
                return -ENOMEM;
        *ret = p;
        return 0;
}

const char *root_path_buf(const char *path, char buf[static PATH_MAX]) {
        int k;

        if (!root_dir)
                return path;
        k = snprintf(buf, PATH_MAX, "%s%s", root_dir, path);
        return k < 0 || k >= PATH_MAX ? NULL : buf;
}

static int open_flags(ChaseFlags flags) {
        return O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | (flags & CHASE_NOFOLLOW ? O_NOFOLLOW : 0) |
                (flags & CHASE_DIRECTORY ? O_DIRECTORY : 0);
}

/* The kernel's own resolver. -ENOSYS where it has none: before 5.6, or
 * behind a seccomp filter (which may say EPERM instead). */
static int chase_kernel(int root_fd, const char *path, ChaseFlags flags) {
#if defined(SYS_openat2) && defined(RESOLVE_IN_ROOT)
        struct open_how how = {
                .flags = (uint64_t) open_flags(flags),
                .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS |
                        (flags & CHASE_NO_XDEV ? RESOLVE_NO_XDEV : 0) |
                        (flags & CHASE_NO_SYMLINKS ? RESOLVE_NO_SYMLINKS : 0),
        };
        long fd = -1;

        /* EAGAIN: a rename somewhere in the tree raced the lookup of "..";
         * the kernel asks to try again rather than risk leaving the root. */
        for (unsigned i = 0; i < 16; i++) {
                fd = syscall(SYS_openat2, root_fd, *path ? path : ".", &how, sizeof(how));
                if (fd >= 0 || errno != EAGAIN)
                        break;
        }
        if (fd < 0)
                return errno == EPERM ? -ENOSYS : negative_errno();
        return (int) fd;
#else
        return -ENOSYS;
#endif
}

/* /proc/self/fdinfo/FD says "mnt_id:\tN" since Linux 3.15: where statx()
 * cannot say (before 5.8, or a libc without it). */
static int fdinfo_mount_id(int fd, uint64_t *ret) {
        char path[64], buf[4096];
        const char *p;
        size_t n;
        int r;

        snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
        /* A tmpfs over /proc/PID/fdinfo could give a bind mount the
         * mount ID of the tree's own mount: then nothing can tell. */
        if (!path_is_procfs(path))
                return -EOPNOTSUPP;
        r = read_virtual_file_into(path, sizeof(buf) - 2, buf, &n);
        if (r == -ENOENT)
                /* No /proc: nothing to ask. */
                return -EOPNOTSUPP;
        if (r < 0)
                return r;
        for (p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
                if (strncmp(p, "mnt_id:", 7) == 0) {
                        char *end;
                        unsigned long long v;

                        errno = 0;
                        v = strtoull(p + 7, &end, 10);
                        if (errno != 0 || end == p + 7 || (*end != '\n' && *end != 0))
                                return -EBADMSG;
                        *ret = v;
                        return 0;
                }
        return -EOPNOTSUPP;
}

int fd_mount_id(int fd, uint64_t *ret) {
#ifdef STATX_MNT_ID
        struct statx sx;

        if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &sx) >= 0 &&
            (sx.stx_mask & STATX_MNT_ID)) {
                *ret = sx.stx_mnt_id;
                return 0;
        }
#endif
        return fdinfo_mount_id(fd, ret);
}

/* Octal escapes of mountinfo (\040 for a space, \011, \012, \134) undone in place. */
static void mountinfo_unescape(char *s) {
        char *w = s;

        for (char *r = s; *r;) {
                if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' && r[3] >= '0' &&
                    r[3] <= '7') {
                        *w++ = (char) ((r[1] - '0') << 6 | (r[2] - '0') << 3 | (r[3] - '0'));
                        r += 4;
                } else
                        *w++ = *r++;
        }
        *w = 0;
}

/* One line of /proc/self/mountinfo: "ID PARENT MAJ:MIN ROOT MOUNTPOINT
 * OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER_OPTIONS". The mount point is
 * unescaped in place; @ret_fstype and @ret_options (the mount's own
 * options, NULL: not asked) point into @line. */
static int mountinfo_parse(char *line, uint64_t *ret_id, dev_t *ret_dev, char **ret_where, char **ret_fstype,
                           char **ret_options) {
        unsigned maj, min;
        uint64_t id;
        int k = 0;
        char *where, *end, *fstype, *e;

        if (sscanf(line, "%" SCNu64 " %*u %u:%u %*s %n", &id, &maj, &min, &k) < 3 || k == 0)
                return -EBADMSG;
        where = line + k;
        end = strchr(where, ' ');
        if (!end || where[0] != '/')
                return -EBADMSG;
        /* Fields before " - " are all escaped (no spaces in them): the
         * first separator after the mount point is the real one. */
        fstype = strstr(end + 1, " - ");
        if (!fstype)
                return -EBADMSG;
        fstype += 3;
        e = strchr(fstype, ' ');
        if (!e || e == fstype)
                return -EBADMSG;
        *e = 0;
        *end = 0;
        if (ret_options) {
                /* Ends before the optional fields, which come before the type. */
                char *o = strchr(end + 1, ' ');

                if (!o || o >= fstype)
                        return -EBADMSG;
                *o = 0;
                *ret_options = end + 1;
        }
        mountinfo_unescape(where);
        *ret_id = id;
        *ret_dev = makedev(maj, min);
        *ret_where = where;
        *ret_fstype = fstype;
        return 0;
}

/* File systems whose files live on a block device or in memory, and so
 * nowhere else: a write through a mount of one lands on that file system
 * and nowhere else, so that a mount of one found nowhere outside the tree
 * keeps every write in the tree. An allow list: overlayfs (its upper
 * directory may be anyone's), FUSE (a daemon writes where it likes), NFS,
 * CIFS, 9p and virtiofs (a loopback export of a directory of this
 * system's) and anything not known here write elsewhere, or may. */
static bool fstype_is_self_contained(const char *fstype) {
        static const char *const table[] = {
                "ext2", "ext3", "ext4", "xfs", "btrfs", "f2fs", "vfat", "msdos", "exfat",
                "jfs", "reiserfs", "nilfs2", "squashfs", "erofs", "tmpfs", "ramfs",
        };

        for (size_t i = 0; i < ELEMENTSOF(table); i++)
                if (streq(fstype, table[i]))
                        return true;
        return false;
}

/* More mounts than any system has: a file that long is not read to its end. */
#define MOUNTINFO_LINES_MAX 65536U

/* This process's /proc/self/mountinfo, opened for reading, or -errno;
 * -EOPNOTSUPP when it is not the kernel's: a file bind-mounted over
 * /proc/PID/mountinfo could say that a host directory is mounted only in
 * the tree, or that an overlay's upper layer is on a disk. */
static int mountinfo_open(FILE **ret) {
        FILE *f = fopen("/proc/self/mountinfo", "re");

        if (!f)
                return negative_errno();
        if (!fd_is_procfs(fileno(f))) {
                fclose(f);
                return -EOPNOTSUPP;
        }
        *ret = f;
        return 0;
}

/* Whether the mount @mnt_id is of a file system that keeps its files to
 * itself (fstype_is_self_contained()) and is mounted nowhere but at or
 * below @tree (a canonical path, as this process sees it; mountinfo spells
 * mount points the same way): 1, 0, or -errno (no /proc, an unreadable or
 * overlong mountinfo: the caller refuses). Two passes: the mount's device
 * and type, then every mount of that device. The device alone cannot say
 * where writes land: an overlay's or a FUSE mount's anonymous device is
 * mounted only where it is, whatever directories it writes to. */
static int mount_in_tree(uint64_t mnt_id, const char *tree) {
        size_t tl = strlen(tree);
        dev_t dev = 0;
        bool found = false;
        int r = 1;

        for (int pass = 0; pass < 2 && r > 0; pass++) {
                _cleanup_free_ char *line = NULL;
                size_t allocated = 0;
                unsigned lines = 0;
                FILE *f;
                int k;

                k = mountinfo_open(&f);
                if (k < 0)
                        return k;
                while (r > 0 && getline(&line, &allocated, f) > 0) {
                        uint64_t id;
                        dev_t d;
                        char *where, *fstype;

                        if (++lines > MOUNTINFO_LINES_MAX) {
                                r = -E2BIG;
                                break;
                        }
                        if (mountinfo_parse(line, &id, &d, &where, &fstype, NULL) < 0) {
                                r = -EBADMSG;
                                break;
                        }
                        if (pass == 0) {
                                if (id == mnt_id) {
                                        dev = d;
                                        found = true;
                                        if (!fstype_is_self_contained(fstype))
                                                r = 0;
                                        break;
                                }
                                continue;
                        }
                        if (d != dev)
                                continue;
                        if (!(streq(tree, "/") ||
                              (strncmp(where, tree, tl) == 0 && (where[tl] == 0 || where[tl] == '/'))))
                                r = 0;
                }
                if (r > 0 && ferror(f))
                        r = -EIO;
                fclose(f);
                if (r > 0 && pass == 0 && !found)
                        /* Not in our view of the mounts (another namespace's, or gone). */
                        r = 0;
        }
        return r;
}

/* <linux/magic.h>'s, which C libraries without kernel headers lack. */
#define OVERLAYFS_SUPER_MAGIC 0x794c7630U
#define TMPFS_MAGIC 0x01021994U
#define RAMFS_MAGIC 0x858458f6U
#define BTRFS_SUPER_MAGIC 0x9123683eU
#define JFFS2_SUPER_MAGIC 0x72b6U
#define UBIFS_SUPER_MAGIC 0x24051905U

/* File systems on a disk that an overlay's upper layer may be on: what is
 * written there is kept. An allow list: on anything else (FUSE, whose
 * daemon says what it likes, NFS, another overlay, an unknown one) nobody
 * can tell. */
static bool fs_magic_is_disk(uint32_t magic) {
        static const uint32_t table[] = {
                0xef53U,     /* ext2, ext3, ext4 */
                0x58465342U, /* xfs */
                0x9123683eU, /* btrfs */
                0xf2f52010U, /* f2fs */
                0x3153464aU, /* jfs */
                0x52654973U, /* reiserfs */
                0x3434U,     /* nilfs2 */
                0x2fc12fc1U, /* zfs */
                0xca451a4eU, /* bcachefs */
                0x72b6U,     /* jffs2: OpenWrt's overlay on NOR flash */
                0x24051905U, /* ubifs: OpenWrt's overlay on NAND flash */
        };

        for (size_t i = 0; i < ELEMENTSOF(table); i++)
                if (magic == table[i])
                        return true;
        return false;
}

/* Whether the super block option "@key" or "@key=@value" (@value NULL:
 * any) is in @options (mountinfo's last field, escaped: a ',' in a value is
 * "\054"). With @ret, its value, unescaped, in a new string. */
static bool mount_option_get(const char *options, const char *key, const char *value, char **ret) {
        size_t kl = strlen(key);

        for (const char *p = options; p && *p; p = strchr(p, ','), p = p ? p + 1 : NULL) {
                size_t n = strcspn(p, ",\n");

                if (n < kl || strncmp(p, key, kl) != 0)
                        continue;
                if (n == kl && !value && !ret)
                        return true;
                if (n == kl || p[kl] != '=')
                        continue;
                if (value && (n - kl - 1 != strlen(value) || strncmp(p + kl + 1, value, n - kl - 1) != 0))
                        continue;
                if (ret) {
                        *ret = strndup(p + kl + 1, n - kl - 1);
                        if (*ret)
                                mountinfo_unescape(*ret);
                }
                return true;
        }
        return false;
}

/* The device number in the sysfs file @path ("MAJ:MIN"). */
static int sysfs_read_devnum(const char *path, dev_t *ret) {
        char buf[32];
        unsigned maj, min;
        size_t n;
        int r;

        r = read_virtual_file_into(path, sizeof(buf) - 1, buf, &n);
        if (r < 0)
                return r;
        if (sscanf(buf, "%u:%u", &maj, &min) != 2)
                return -EBADMSG;
        *ret = makedev(maj, min);
        return 0;
}

/* What the upper layer of an overlay is made of is asked of as many
 * devices as the largest md array or volume group a seed directory is on
 * could have, stacked as deep as anyone stacks them. */
#define BLOCK_STACK_DEPTH_MAX 8U
#define BLOCK_DEVICES_MAX 256U

static int sysfs_devices_are_memory(const char *path, unsigned depth, unsigned *left);
static int fs_is_memory(int fd, const struct stat *st, uint32_t magic, unsigned depth, unsigned *left);
static int btrfs_devices_are_memory(int fd, const struct stat *st, unsigned depth, unsigned *left);

/* The file the loop device @dev (sysfs' @name) is made of, opened O_PATH.
 * sysfs names it as its setter did, in that mount namespace (in a tmpfs
 * since detached: from that tmpfs' root), with any newline in it kept: the
 * name may lead to another file now. The device and inode the kernel gives
 * say whether it is the one. -ESTALE when it is not. */
static int loop_backing_open(dev_t dev, const char *name) {
#ifdef LOOP_GET_STATUS64
        _cleanup_close_ int loop_fd = -EBADF, fd = -EBADF;
        struct loop_info64 info;
        char path[96], backing[PATH_MAX];
        struct stat st;
        size_t n;
        int r;

        /* O_NONBLOCK: whatever is there, a FIFO too, opens at once. */
        if ((size_t) snprintf(path, sizeof(path), "/dev/%s", name) >= sizeof(path))
                return -ENAMETOOLONG;
        loop_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (loop_fd < 0)
                return negative_errno();
        if (fstat(loop_fd, &st) < 0)
                return negative_errno();
        if (!S_ISBLK(st.st_mode) || st.st_rdev != dev)
                return -ENODEV;
        if (ioctl(loop_fd, LOOP_GET_STATUS64, &info) < 0)
                return negative_errno();

        snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/loop/backing_file", major(dev), minor(dev));
        r = read_virtual_file_into(path, sizeof(backing) - 2, backing, &n);
        if (r < 0)
                return r;
        /* One newline ends it; those before it are the name's. */
        if (n == 0 || backing[n - 1] != '\n')
                return -EBADMSG;
        backing[n - 1] = 0;
        fd = open(backing, O_PATH | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        if (fstat(fd, &st) < 0)
                return negative_errno();
        /* lo_device is the kernel's encoding of a device number, as
         * stat() hands it out. */
        if (st.st_ino != info.lo_inode ||
            st.st_dev != makedev((info.lo_device >> 8) & 0xfff, (info.lo_device & 0xff) | ((info.lo_device >> 12) & 0xfff00)))
                return -ESTALE;
        return TAKE_FD(fd);
#else
        return -EOPNOTSUPP;
#endif
}

/* Whether the block device @dev keeps nothing across a reboot: zram, brd's
 * /dev/ramN, or something made of them or of a tmpfs: a loop device whose
 * backing file is in a tmpfs or ramfs or on such a device, a partition of
 * one, a device-mapper or md device with one under it. 1, 0 (a disk, or a
 * number sysfs does not know: jffs2's mtdblock one), -errno when it
 * cannot be told: no sysfs to ask, a loop device's backing file that cannot
 * be looked at, is not the file its name leads to now or is on a file
 * system not known to be a disk, devices stacked deeper than @depth, more
 * devices to ask than *@left (a sysfs not the kernel's may say that a
 * device is made of many devices, each of them that device again: bounded
 * by the depth alone, the walk would take hours). A disk file system made
 * on one of these forgets as a tmpfs does. */
static int block_device_is_memory(dev_t dev, unsigned depth, unsigned *left) {
        char path[96], link[PATH_MAX];
        const char *name;
        struct statfs sfs;
        struct stat st;
        dev_t under;
        ssize_t k;
        int r;

        if (depth == 0 || *left == 0)
                return -ELOOP;
        (*left)--;
        snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", major(dev), minor(dev));
        k = readlink(path, link, sizeof(link) - 1);
        if (k < 0) {
                /* No such device (jffs2's on flash, without mtdblock) is
                 * no memory; no sysfs to ask cannot tell. */
                if (errno != ENOENT)
                        return negative_errno();
                return access("/sys/dev/block", F_OK) < 0 ? negative_errno() : 0;
        }
        link[k] = 0;
        name = strrchr(link, '/');
        name = name ? name + 1 : link;
        if (strncmp(name, "zram", 4) == 0 || (strncmp(name, "ram", 3) == 0 && name[3] >= '0' && name[3] <= '9'))
                return 1;

        /* A partition is what the device it is part of is. */
        snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/partition", major(dev), minor(dev));
        if (access(path, F_OK) >= 0) {
                snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../dev", major(dev), minor(dev));
                r = sysfs_read_devnum(path, &under);
                return r < 0 ? r : block_device_is_memory(under, depth - 1, left);
        }

        if (strncmp(name, "loop", 4) == 0) {
                _cleanup_close_ int backing_fd = loop_backing_open(dev, name);

                if (backing_fd < 0)
                        return backing_fd;
                if (fstat(backing_fd, &st) < 0)
                        return negative_errno();
                /* A partition (OpenWrt's rootfs_data on x86) or other
                 * block device: whatever that is. */
                if (S_ISBLK(st.st_mode))
                        return block_device_is_memory(st.st_rdev, depth - 1, left);
                if (!S_ISREG(st.st_mode))
                        return -EOPNOTSUPP;
                if (fstatfs(backing_fd, &sfs) < 0)
                        return negative_errno();
                return fs_is_memory(backing_fd, &st, (uint32_t) sfs.f_type, depth - 1, left);
        }

        /* Device-mapper and md: memory when any device under it is. */
        snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/slaves", major(dev), minor(dev));
        return sysfs_devices_are_memory(path, depth - 1, left);
}

/* Whether any of the block devices listed in the sysfs directory @path (a
 * device's slaves/, a btrfs' devices/) is memory, as block_device_is_memory()
 * says; 0 when there is no such directory. */
static int sysfs_devices_are_memory(const char *path, unsigned depth, unsigned *left) {
        DIR *d;
        struct dirent *de;
        dev_t under;
        int r, result = 0;

        d = opendir(path);
        if (!d)
                return errno == ENOENT ? 0 : negative_errno();
        while (result <= 0 && (de = readdir(d))) {
                char dev_path[PATH_MAX];

                if (de->d_name[0] == '.')
                        continue;
                snprintf(dev_path, sizeof(dev_path), "%s/%s/dev", path, de->d_name);
                r = sysfs_read_devnum(dev_path, &under);
                if (r >= 0)
                        r = block_device_is_memory(under, depth, left);
                if (r != 0)
                        result = r;
        }
        closedir(d);
        return result;
}

/* Whether the file system that @fd (O_PATH will do, @st its fstat()) is on,
 * of type @magic, keeps nothing across a reboot: a tmpfs, or a disk file
 * system made of memory. Most are on the block device of their device
 * number. A btrfs' number is anonymous, the same for each of its
 * devices: the kernel lists them under /sys/fs/btrfs/FSID. jffs2 and ubifs
 * are on flash. Anything else with an anonymous number (ZFS) is on
 * devices nobody can ask about. */
static int fs_is_memory(int fd, const struct stat *st, uint32_t magic, unsigned depth, unsigned *left) {
        if (magic == TMPFS_MAGIC || magic == RAMFS_MAGIC)
                return 1;
        if (!fs_magic_is_disk(magic))
                return -EOPNOTSUPP;
        if (major(st->st_dev) != 0)
                return block_device_is_memory(st->st_dev, depth, left);
        if (magic == JFFS2_SUPER_MAGIC || magic == UBIFS_SUPER_MAGIC)
                return 0;
        if (magic != BTRFS_SUPER_MAGIC)
                return -EOPNOTSUPP;
        return btrfs_devices_are_memory(fd, st, depth, left);
}

/* The devices of the btrfs @fd is on (@st its fstat()), asked as
 * block_device_is_memory() asks. */
static int btrfs_devices_are_memory(int fd, const struct stat *st, unsigned depth, unsigned *left) {
#ifdef BTRFS_IOC_FS_INFO
        _cleanup_close_ int rfd = -EBADF;
        struct btrfs_ioctl_fs_info_args info = {};
        const uint8_t *u = info.fsid;
        char path[96];

        /* The ioctl() wants an fd opened for reading. */
        rfd = S_ISDIR(st->st_mode) ? openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) :
                fd_reopen_regular(fd, NULL);
        if (rfd < 0)
                return S_ISDIR(st->st_mode) ? negative_errno() : rfd;
        if (ioctl(rfd, BTRFS_IOC_FS_INFO, &info) < 0)
                return negative_errno();
        if (info.num_devices == 0)
                return -ENODEV;
        snprintf(path, sizeof(path), "/sys/fs/btrfs/%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
                 "%02x%02x%02x%02x%02x%02x/devices", u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8],
                 u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
        if (access(path, F_OK) < 0)
                return negative_errno();
        return sysfs_devices_are_memory(path, depth, left);
#else
        return -EOPNOTSUPP;
#endif
}

/* The line of /proc/self/mountinfo that describes the mount @fd is on, in
 * *@ret_line (the caller frees it), with its type and, unless @ret_options
 * is NULL, the mount's own options pointing into it. -ENOENT when no line
 * has its mount ID. */
static int fd_mountinfo_line(int fd, char **ret_line, char **ret_fstype, char **ret_options) {
        _cleanup_free_ char *line = NULL;
        size_t allocated = 0;
        uint64_t mnt_id;
        FILE *f;
        int r;

        r = fd_mount_id(fd, &mnt_id);
        if (r < 0)
                return r;
        r = mountinfo_open(&f);
        if (r < 0)
                return r;
        r = -ENOENT;
        while (getline(&line, &allocated, f) > 0) {
                uint64_t id;
                dev_t dev;
                char *where;

                if (mountinfo_parse(line, &id, &dev, &where, ret_fstype, ret_options) < 0 || id != mnt_id)
                        continue;
                *ret_line = TAKE_PTR(line);
                r = 0;
                break;
        }
        fclose(f);
        return r;
}

/* The upper directory of the overlay @fd is on, from @super, the super
 * block's options in its line of mountinfo: 1 and an O_PATH fd in
 * *@ret_fd, 0 when it has none (lower layers only: read-only, nothing
 * replaced). The upper directory is named as its mounter spelled it, in
 * its mount namespace, from its working directory, with overlayfs' own
 * escapes ("\,") and symbolic links resolved then, not now. A name that
 * cannot be the same directory now, or is not there, tells nothing: a
 * tmpfs detached since, or an initrd's, is not kept; -errno then. */
static int overlay_upper_open(int fd, const char *super, int *ret_fd) {
        _cleanup_free_ char *upper = NULL;
        _cleanup_close_ int upper_fd = -EBADF;
        struct statfs sfs, upper_sfs;

        if (!mount_option_get(super, "upperdir", NULL, &upper))
                return 0;
        if (!upper)
                return -ENOMEM;
        if (upper[0] != '/' || strchr(upper, '\\') || strlen(upper) >= PATH_MAX)
                return -EINVAL;
        upper_fd = open(upper, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (upper_fd < 0)
                return negative_errno();
        if (fstatfs(fd, &sfs) < 0 || fstatfs(upper_fd, &upper_sfs) < 0)
                return negative_errno();
        /* An overlay's statfs() is its upper layer's, but for the type: a
         * directory the name leads to now (a symbolic link re-pointed, a
         * mount put over it) that is on another file system is not it. */
        if (upper_sfs.f_bsize != sfs.f_bsize || upper_sfs.f_blocks != sfs.f_blocks)
                return -ESTALE;
        *ret_fd = TAKE_FD(upper_fd);
        return 1;
}

int fd_overlay_upper_is_volatile(int fd) {
        _cleanup_free_ char *line = NULL;
        _cleanup_close_ int upper_fd = -EBADF;
        struct statfs sfs, upper_sfs;
        struct stat upper_st;
        char *fstype, *super;
        unsigned left = BLOCK_DEVICES_MAX;
        int r;

        if (fstatfs(fd, &sfs) < 0)
                return negative_errno();
        if ((uint32_t) sfs.f_type != OVERLAYFS_SUPER_MAGIC)
                return 0;
        r = fd_mountinfo_line(fd, &line, &fstype, NULL);
        if (r < 0)
                return r;
        /* After the type: the source, then the super block's options. */
        super = strchr(fstype + strlen(fstype) + 1, ' ');
        if (!super)
                return 0;
        /* fsync() is a no-op on a volatile overlay ("fsync=volatile" since
         * Linux 6.5): nothing written there is durable, on a disk or not,
         * and after a crash the upper layer must be thrown away. */
        if (mount_option_get(super + 1, "volatile", NULL, NULL) ||
            mount_option_get(super + 1, "fsync", "volatile", NULL))
                return 1;
        r = overlay_upper_open(fd, super + 1, &upper_fd);
        if (r <= 0)
                return r;
        if (fstatfs(upper_fd, &upper_sfs) < 0)
                return negative_errno();
        /* A disk file system on a disk made of memory (zram-config's
         * overlays, an ext4 on a loop file in /tmp) forgets as a tmpfs does. */
        if (fstat(upper_fd, &upper_st) < 0)
                return negative_errno();
        return fs_is_memory(upper_fd, &upper_st, (uint32_t) upper_sfs.f_type, BLOCK_STACK_DEPTH_MAX, &left);
}

int fd_is_in_memory(int fd) {
        struct statfs sfs;
        struct stat st;
        unsigned left = BLOCK_DEVICES_MAX;

        if (fstatfs(fd, &sfs) < 0 || fstat(fd, &st) < 0)
                return negative_errno();
        if ((uint32_t) sfs.f_type == TMPFS_MAGIC || (uint32_t) sfs.f_type == RAMFS_MAGIC)
                return 1;
        /* Only a file system on block devices can be made of memory; an
         * anonymous device number other than a btrfs' names none (an
         * overlay, asked by fd_overlay_upper_is_volatile(), NFS, ZFS). */
        if (major(st.st_dev) != 0)
                return block_device_is_memory(st.st_dev, BLOCK_STACK_DEPTH_MAX, &left);
        if ((uint32_t) sfs.f_type == BTRFS_SUPER_MAGIC)
                return btrfs_devices_are_memory(fd, &st, BLOCK_STACK_DEPTH_MAX, &left);
        return 0;
}

int fd_is_on_initramfs_root(int fd) {
        _cleanup_free_ char *line = NULL;
        char *fstype;
        int r;

        r = fd_mountinfo_line(fd, &line, &fstype, NULL);
        if (r < 0)
                return r;
        /* The kernel names the mount it unpacks the initramfs into "rootfs",
         * whether a tmpfs or a ramfs holds it; no one else can mount one. */
        return streq(fstype, "rootfs");
}

int fd_mount_is_idmapped(int fd) {
        _cleanup_free_ char *line = NULL, *upper_line = NULL;
        _cleanup_close_ int upper_fd = -EBADF;
        char *fstype, *options, *super;
        int r;

        r = fd_mountinfo_line(fd, &line, &fstype, &options);
        if (r < 0)
                return r;
        if (mount_option_get(options, "idmapped", NULL, NULL))
                return 1;
        if (!streq(fstype, "overlay"))
                return 0;
        /* An overlay shows the owners its upper layer shows, and that may
         * be an idmapped mount (Linux 5.19) with no "idmapped" among the
         * overlay's own options. */
        super = strchr(fstype + strlen(fstype) + 1, ' ');
        if (!super)
                return -EBADMSG;
        r = overlay_upper_open(fd, super + 1, &upper_fd);
        if (r <= 0)
                return r;
        r = fd_mountinfo_line(upper_fd, &upper_line, &fstype, &options);
        if (r < 0)
                return r;
        return mount_option_get(options, "idmapped", NULL, NULL);
}

/* The path of the directory @fd, as this process sees it. -ESTALE when the
 * path does not lead back to @fd's directory: /proc/self/fd is then not
 * the kernel's (a tmpfs over /proc/PID/fd, whose "links" say what they
 * like, "/" to make every mount look like the tree's), or the directory
 * moved; either way the caller refuses. */
static int fd_dir_path(int fd, char ret[static PATH_MAX]) {
        _cleanup_close_ int pfd = -EBADF;
        char proc[64];
        struct stat st, pst;
        ssize_t n;

        /* A removed directory reads as "PATH (deleted)": no path at all. */
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISDIR(st.st_mode) || st.st_nlink == 0)
                return -ENOENT;
        if (!path_is_procfs("/proc/self/fd"))
                return -EOPNOTSUPP;
        snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
        n = readlink(proc, ret, PATH_MAX);
        if (n < 0)
                return errno == ENOENT ? -EOPNOTSUPP : negative_errno();
        if (n >= PATH_MAX)
                return -ENAMETOOLONG;
        ret[n] = 0;
        if (ret[0] != '/')
                return -ENOENT;
        /* The name must be the directory: what the mount check then says
         * about the tree is said about this one. */
        pfd = open(ret, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (pfd < 0 || fstat(pfd, &pst) < 0 || pst.st_dev != st.st_dev || pst.st_ino != st.st_ino)
                return -ESTALE;
        return 0;
}

int chase_check_step(int root_fd, int from_fd, int fd, ChaseFlags flags) {
        char tree[PATH_MAX];
        struct stat a, b;
        uint64_t ma, mb;
        int r;

        if (!(flags & (CHASE_NO_XDEV | CHASE_MOUNTS_IN_TREE)))
                return 0;
        if (fstat(from_fd, &a) < 0 || fstat(fd, &b) < 0)
                return negative_errno();
        if (flags & CHASE_NO_XDEV) {
                /* Another device is another mount; the same device may be
                 * another mount too (a bind mount): the mount IDs say.
                 * Where nothing says, any step may leave the tree's mount. */
                if (a.st_dev != b.st_dev || fd_mount_id(from_fd, &ma) < 0 || fd_mount_id(fd, &mb) < 0 || ma != mb)
                        return -EXDEV;
                return 0;
        }

        /* CHASE_MOUNTS_IN_TREE. This system's root is refused wherever it is
         * met, whichever mount leads there. */
        r = fd_is_system_root(fd);
        if (r != 0)
                return r < 0 ? r : CHASE_ERR_FOREIGN_MOUNT;
        if (a.st_dev == b.st_dev && fd_mount_id(from_fd, &ma) >= 0 && fd_mount_id(fd, &mb) >= 0 && ma == mb)
                return 0;
        /* A mount point (or nothing can tell): only onto a file system that
         * keeps its files on a block device or in memory and that nothing
         * outside the tree reaches, so that no write through it can
         * land in a directory of this system's. Both fds are held: the
         * mount IDs compared cannot be reused meanwhile. */
        if (fd_mount_id(fd, &mb) < 0 || fd_dir_path(root_fd, tree) < 0)
                return CHASE_ERR_FOREIGN_MOUNT;
        r = mount_in_tree(mb, tree);
        return r > 0 ? 0 : CHASE_ERR_FOREIGN_MOUNT;
}

/* Reopen the directory @resolved ("a/b/c", components already found to
 * be directories, not links) from @root_fd, after a ".." took the walk one
 * step up: going back down from the root cannot leave it, where opening
 * ".." of a directory that a rename moved out of the root would. */
static int reopen_resolved(int root_fd, const char *resolved, ChaseFlags flags) {
        _cleanup_close_ int dir = -EBADF;
        char buf[PATH_MAX], *p, *name;

        dir = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
        if (dir < 0)
                return negative_errno();
        snprintf(buf, sizeof(buf), "%s", resolved);
        for (p = buf; *p;) {
                int fd, r;

                name = p;
                p = strchrnul(p, '/');
                if (*p)
                        *p++ = 0;
                fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0)
                        return errno == ELOOP ? -ESTALE : negative_errno();
                r = chase_check_step(root_fd, dir, fd, flags);
                safe_close(dir);
                dir = fd;
                if (r < 0)
                        return r;
        }
        return TAKE_FD(dir);
}

/* The same rules by hand: one component at a time, each opened O_NOFOLLOW
 * relative to the directory before it. A symlink's target replaces it
 * (from the root when absolute). Each step is held to the mount rule
 * (chase_check_step()) before anything is opened below it: a bind mount
 * within one file system is a mount point here as it is to
 * RESOLVE_NO_XDEV. */
static int chase_by_hand(int root_fd, const char *path, ChaseFlags flags) {
        _cleanup_close_ int dir = -EBADF;
        char todo[2 * PATH_MAX], resolved[PATH_MAX] = "", target[PATH_MAX], *p;
        size_t resolved_len = 0;
        unsigned links = 0;

        if (strlen(path) >= PATH_MAX)
                return -ENAMETOOLONG;
        snprintf(todo, sizeof(todo), "%s", path);
        dir = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
        if (dir < 0)
                return negative_errno();

        for (p = todo;;) {
                _cleanup_close_ int fd = -EBADF;
                char *name;
                struct stat st;
                ssize_t n;
                bool last, slash;
                int k;

                while (*p == '/')
                        p++;
                if (!*p)
                        /* The path named a directory (or the root itself). */
                        return TAKE_FD(dir);
                name = p;
                p = strchrnul(p, '/');
                last = !p[strspn(p, "/")];
                slash = *p == '/';
                if (*p)
                        *p++ = 0;

                if (streq(name, "."))
                        continue;
                if (streq(name, "..")) {
                        /* Never above the root: there ".." is the root itself. */
                        char *up;

                        if (resolved_len == 0)
                                continue;
                        up = strrchr(resolved, '/');
                        resolved_len = up ? (size_t) (up - resolved) : 0;
                        resolved[resolved_len] = 0;
                        safe_close(dir);
                        dir = reopen_resolved(root_fd, resolved, flags);
                        if (dir < 0)
                                return dir;
                        continue;
                }

                /* "name/" names a directory, as it does to the kernel. */
                fd = openat(dir, name, last ? open_flags(flags) | O_NOFOLLOW | (slash ? O_DIRECTORY : 0) :
                                              O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
                if (fd >= 0) {
                        k = chase_check_step(root_fd, dir, fd, flags);
                        if (k < 0)
                                return k;
                        if (last)
                                return TAKE_FD(fd);
                        k = snprintf(resolved + resolved_len, sizeof(resolved) - resolved_len, "%s%s",
                                     resolved_len ? "/" : "", name);
                        if (k < 0 || (size_t) k >= sizeof(resolved) - resolved_len)
                                return -ENAMETOOLONG;
                        resolved_len += (size_t) k;
                        safe_close(dir);
                        dir = TAKE_FD(fd);
                        continue;
                }
                if ((errno != ELOOP && errno != ENOTDIR) ||
                    fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(st.st_mode))
                        return negative_errno();

                /* A symlink. */
                if ((flags & CHASE_NO_SYMLINKS) || (last && (flags & CHASE_NOFOLLOW)))
                        return -ELOOP;
                if (++links > CHASE_LINKS_MAX)
                        return -ELOOP;
                n = readlinkat(dir, name, target, sizeof(target) - 1);
                if (n < 0)
                        return negative_errno();
                target[n] = 0;
                /* Its target replaces it: "TARGET/REST", in place. */
                k = snprintf(todo + sizeof(todo) / 2, sizeof(todo) / 2, "%s%s%s", target,
                             *p || slash ? "/" : "", p);
                if (k < 0 || (size_t) k >= sizeof(todo) / 2)
                        return -ENAMETOOLONG;
                memmove(todo, todo + sizeof(todo) / 2, (size_t) k + 1);
                p = todo;
                if (target[0] == '/') {
                        safe_close(dir);
                        dir = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
                        if (dir < 0)
                                return negative_errno();
                        resolved_len = 0;
                        resolved[0] = 0;
                }
        }
}

int chase_open_by_hand_at(int root_fd, const char *path, ChaseFlags flags) {
        return chase_by_hand(root_fd, path, flags & ~CHASE_MKDIR);
}

/* @flags with the mount rule a walk from @root_fd keeps: a walk from the
 * tree's root takes the tree's rule, whichever entry point it came by;
 * CHASE_NO_XDEV wins over CHASE_MOUNTS_IN_TREE, whoever asked for which. */
static ChaseFlags chase_rule(int root_fd, ChaseFlags flags) {
        if (root_tree && root_fd == root_dfd)
                flags |= root_tree_flags;
        if (flags & CHASE_NO_XDEV)
                flags &= ~CHASE_MOUNTS_IN_TREE;
        return flags;
}

/* CHASE_DIRECTORY is O_DIRECTORY on every last open, by the kernel and by
 * hand (a link's target is opened with it too): no fstat() after. */
static int chase_plain(int root_fd, const char *path, ChaseFlags flags) {
        int fd;

        flags = chase_rule(root_fd, flags);
        if (flags & CHASE_MOUNTS_IN_TREE)
                /* A rule the kernel does not know. */
                return chase_by_hand(root_fd, path, flags);
        fd = chase_kernel(root_fd, path, flags);

        return fd == -ENOSYS ? chase_by_hand(root_fd, path, flags) : fd;
}

/* Split @path into its parent (in @ret_parent, a buffer of PATH_MAX) and
 * its last component (in @ret_name). */
static int path_split(const char *path, char *ret_parent, char ret_name[static NAME_MAX + 1]) {
        size_t l = strlen(path), start;

        while (l > 0 && path[l - 1] == '/')
                l--;
        start = l;
        while (start > 0 && path[start - 1] != '/')
                start--;
        if (l == start || l - start > NAME_MAX)
                return l == start ? -EINVAL : -ENAMETOOLONG;
        if ((l - start == 1 && path[start] == '.') || (l - start == 2 && path[start] == '.' && path[start + 1] == '.'))
                return -EINVAL;
        if (start >= PATH_MAX)
                return -ENAMETOOLONG;
        memcpy(ret_parent, path, start);
        ret_parent[start] = 0;
        memcpy(ret_name, path + start, l - start);
        ret_name[l - start] = 0;
        return 0;
}

int chase_parent_at(int root_fd, const char *path, ChaseFlags flags, char ret_name[static NAME_MAX + 1]) {
        char parent[PATH_MAX], name[NAME_MAX + 1];
        int fd, r;

        r = path_split(path, parent, name);
        if (r < 0)
                return r;
        fd = chase_plain(root_fd, parent, (flags & ~(CHASE_NOFOLLOW | CHASE_MKDIR)) | CHASE_DIRECTORY);
        if (fd < 0)
                return fd;
        memcpy(ret_name, name, strlen(name) + 1);
        return fd;
}

int chase_open_at(int root_fd, const char *path, ChaseFlags flags) {
        char name[NAME_MAX + 1];
        int fd, pfd;

        fd = chase_plain(root_fd, path, flags & ~CHASE_MKDIR);
        if (fd != -ENOENT || !(flags & CHASE_MKDIR) || !(flags & CHASE_DIRECTORY))
                return fd;

        /* Only the last component is created: a missing parent (an
         * unmounted /var/lib) stays an error. */
        pfd = chase_parent_at(root_fd, path, flags, name);
        if (pfd < 0)
                return pfd;
        if (mkdirat(pfd, name, 0700) < 0 && errno != EEXIST) {
                fd = negative_errno();
                safe_close(pfd);
                return fd;
        }
        safe_close(pfd);
        return chase_plain(root_fd, path, flags & ~CHASE_MKDIR);
}

int root_open(const char *path, ChaseFlags flags) {
        int fd = root_fd();

        return fd < 0 ? fd : chase_open_at(fd, path, flags);
}

int root_open_parent(const char *path, ChaseFlags flags, char ret_name[static NAME_MAX + 1]) {
        int fd = root_fd();

        return fd < 0 ? fd : chase_parent_at(fd, path, flags, ret_name);
}

int root_open_follow(const char *path) {
        return root_open(path, 0);
}

int fd_is_system_root(int fd) {
        static const char *const roots[] = { "/", "/proc/1/root" };
        struct stat a, b;

        if (fstat(fd, &a) < 0)
                return negative_errno();
        for (size_t i = 0; i < ELEMENTSOF(roots); i++)
                /* /proc/1/root needs privileges to look at: a stat() that
                 * fails there says nothing, and "/" was compared already. */
                if (stat(roots[i], &b) >= 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
                        return 1;
        return 0;
}

bool path_is_normalized_absolute(const char *path) {
        const char *p;

        if (!path || path[0] != '/')
                return false;
        if (streq(path, "/"))
                return true;
        for (p = path; *p;) {
                size_t n;

                /* At a '/': the component after it. */
                p++;
                n = strcspn(p, "/");
                if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
                        return false;
                p += n;
        }
        return true;
}

/* The last component @name in the directory @dfd, O_PATH and not
 * followed, under the same mount rule as every step before it
 * (chase_check_step(): mount IDs, and with CHASE_MOUNTS_IN_TREE only file
 * systems mounted nowhere outside the tree below @root_fd). */
static int open_last_as_path(int root_fd, int dfd, const char *name, ChaseFlags flags) {
        _cleanup_close_ int fd = -EBADF;
        int r;

        fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        r = chase_check_step(root_fd, dfd, fd, flags);
        if (r < 0)
                return r;
        return TAKE_FD(fd);
}

int chase_open_path_at(int root_fd, const char *path, ChaseFlags flags) {
        char cur[PATH_MAX], next[PATH_MAX], name[NAME_MAX + 1], target[PATH_MAX];
        unsigned links = 0;

        if (strlen(path) >= sizeof(cur))
                return -ENAMETOOLONG;
        memcpy(cur, path, strlen(path) + 1);
        /* "name/" names a directory, as it does to the kernel. */
        if (*path && path[strlen(path) - 1] == '/')
                flags |= CHASE_DIRECTORY;
        /* The tree's rule, as chase_plain() takes it for the steps before. */
        flags = chase_rule(root_fd, flags);

        for (;;) {
                _cleanup_close_ int pfd = -EBADF, fd = -EBADF;
                struct stat st;
                size_t dirlen;
                ssize_t n;
                int k;

                /* Every directory on the way by the resolver, with its
                 * rules; only the last step is ours. */
                pfd = chase_parent_at(root_fd, cur, flags & ~CHASE_DIRECTORY, name);
                if (pfd < 0)
                        return pfd;
                fd = open_last_as_path(root_fd, pfd, name, flags);
                if (fd < 0)
                        return fd;
                if (fstat(fd, &st) < 0)
                        return negative_errno();
                if (!S_ISLNK(st.st_mode)) {
                        if ((flags & CHASE_DIRECTORY) && !S_ISDIR(st.st_mode))
                                return -ENOTDIR;
                        return TAKE_FD(fd);
                }

                /* A symlink: its target replaces it, from the root when
                 * absolute, from its directory otherwise. */
                if ((flags & (CHASE_NOFOLLOW | CHASE_NO_SYMLINKS)) || ++links > CHASE_LINKS_MAX)
                        return -ELOOP;
                n = readlinkat(fd, "", target, sizeof(target) - 1);
                if (n < 0)
                        return negative_errno();
                if (n == 0)
                        return -ENOENT;
                target[n] = 0;
                dirlen = strlen(cur);
                while (dirlen > 0 && cur[dirlen - 1] == '/')
                        dirlen--;
                while (dirlen > 0 && cur[dirlen - 1] != '/')
                        dirlen--;
                k = target[0] == '/' ? snprintf(next, sizeof(next), "%s", target) :
                        snprintf(next, sizeof(next), "%.*s%s", (int) dirlen, cur, target);
                if (k < 0 || (size_t) k >= sizeof(next))
                        return -ENAMETOOLONG;
                memcpy(cur, next, (size_t) k + 1);
        }
}

int root_open_path(const char *path, ChaseFlags flags) {
        int fd = root_fd();

        return fd < 0 ? fd : chase_open_path_at(fd, path, flags);
}

int root_open_regular(const char *path, ChaseFlags flags, FileStat *ret_stat) {
        _cleanup_close_ int fd = -EBADF;

        fd = root_open_path(path, flags);
        if (fd < 0)
                return fd;
        return fd_reopen_regular(fd, ret_stat);
}
