// SPDX-License-Identifier: LGPL-2.1-or-later
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "check-image.h"
#include "credential.h"
#include "io-util.h"
#include "string-table.h"
#include "machine-id.h"
#include "macro.h"
#include "root.h"
#include "seed-store.h"

#define OUR_SEED_WHY "every clone would load the same seed; with a shared machine-id each would also credit it"
#define CREDENTIALS_WHY "remembers which system credentials one machine has credited; a clone would start " \
        "with the image builder's memory instead of its own"
#define SEEDRNG_DIR_WHY "SeedRNG (and OpenWrt's urandom-seed) keeps its seeds in this directory: every clone " \
        "would find the same file"
#define LOADER_SEED_WHY "systemd-boot hands it to the kernel at every boot (credited unless " \
        "random.trust_bootloader=off): every clone would start from the same bytes"
#define CREDENTIAL_SECRET_WHY "systemd-creds encrypts credentials with it: every clone could decrypt what " \
        "any other encrypted; systemd makes a new one when there is none"
#define STORED_CREDENTIAL_WHY "systemd's LoadCredential= hands it to entropy-seed.service wherever no hypervisor " \
        "or boot loader passes one: every clone, its memory of credited credentials its own, would credit the " \
        "same bytes once, on its first boot"
#define LOADER_CREDENTIAL_WHY "systemd-stub passes it to every boot as the system credential entropy-seed " \
        "credits: every clone, its memory of credited credentials its own, would credit the same bytes once, " \
        "on its first boot"
#define MACHINE_ID_WHY "every clone would have the same machine ID, and seeds bound to it would pass the binding " \
        "check on each; 'uninitialized' makes systemd generate one at first boot"
#define DBUS_MACHINE_ID_WHY "D-Bus reads its machine ID here before /etc/machine-id: a file of its own keeps " \
        "the image's ID on every clone, a symlink to /etc/machine-id follows each machine's"

#define DBUS_MACHINE_ID_TARGET "/etc/machine-id"

static const char *const image_kind_table[_IMAGE_KIND_MAX] = {
        [IMAGE_SEED] = "seed",
        [IMAGE_CREDENTIAL_MEMORY] = "credential-memory",
        [IMAGE_LEGACY_SEED] = "legacy-seed",
        [IMAGE_LOADER_SEED] = "loader-seed",
        [IMAGE_CREDENTIAL_SECRET] = "credential-secret",
        [IMAGE_SEED_CREDENTIAL] = "seed-credential",
        [IMAGE_MACHINE_ID] = "machine-id",
        [IMAGE_DBUS_MACHINE_ID] = "dbus-machine-id",
};

static const char *const image_state_table[_IMAGE_STATE_MAX] = {
        [IMAGE_ABSENT] = "absent",
        [IMAGE_CLEAN] = "clean",
        [IMAGE_FOUND] = "found",
        [IMAGE_SYMLINK] = "symlink",
        [IMAGE_UNUSUAL] = "unusual",
        [IMAGE_MOUNT_POINT] = "mount-point",
};

static const char *const image_action_table[_IMAGE_ACTION_MAX] = {
        [IMAGE_ACTION_NONE] = NULL,
        [IMAGE_ACTION_REMOVE] = "remove",
        [IMAGE_ACTION_RESET] = "reset",
        [IMAGE_ACTION_SYMLINK] = "symlink",
};

static const char *const machine_id_reset_table[_MACHINE_ID_RESET_MAX] = {
        [MACHINE_ID_RESET_UNINITIALIZED] = "uninitialized",
        [MACHINE_ID_RESET_EMPTY] = "empty",
};

DEFINE_STRING_TABLE_TO_STRING(image_kind, ImageKind)
DEFINE_STRING_TABLE_TO_STRING(image_state, ImageState)
DEFINE_STRING_TABLE_TO_STRING(image_action, ImageAction)
DEFINE_STRING_TABLE(machine_id_reset, MachineIdReset)

/* ---- The list ---- */

/* Paths the list holds as it is written; the two of the seed directory are built. */
static const ImageCheck fixed_checks_after_legacy[] = {
        { "var/lib/seedrng", IMAGE_LEGACY_SEED, true, "file in SeedRNG's seed directory", SEEDRNG_DIR_WHY },
        { "etc/seedrng", IMAGE_LEGACY_SEED, true, "file in SeedRNG's seed directory", SEEDRNG_DIR_WHY },
        /* The ESP, wherever an image mounts it. */
        { "efi/loader/random-seed", IMAGE_LOADER_SEED, false, "systemd-boot random seed", LOADER_SEED_WHY },
        { "boot/loader/random-seed", IMAGE_LOADER_SEED, false, "systemd-boot random seed", LOADER_SEED_WHY },
        { "boot/efi/loader/random-seed", IMAGE_LOADER_SEED, false, "systemd-boot random seed", LOADER_SEED_WHY },
        { "var/lib/systemd/credential.secret", IMAGE_CREDENTIAL_SECRET, false, "systemd credential secret",
          CREDENTIAL_SECRET_WHY },
        /* Our seed credential where systemd looks for it when nobody
         * passes one (its credential stores; /run is a tmpfs at boot),
         * and where systemd-stub finds one to pass on every ESP. */
        { "etc/credstore/" CREDENTIAL_NAME, IMAGE_SEED_CREDENTIAL, false, "stored seed credential",
          STORED_CREDENTIAL_WHY },
        { "etc/credstore.encrypted/" CREDENTIAL_NAME, IMAGE_SEED_CREDENTIAL, false, "stored seed credential",
          STORED_CREDENTIAL_WHY },
        { "usr/local/lib/credstore/" CREDENTIAL_NAME, IMAGE_SEED_CREDENTIAL, false, "stored seed credential",
          STORED_CREDENTIAL_WHY },
        { "usr/local/lib/credstore.encrypted/" CREDENTIAL_NAME, IMAGE_SEED_CREDENTIAL, false,
          "stored seed credential", STORED_CREDENTIAL_WHY },
        { "usr/lib/credstore/" CREDENTIAL_NAME, IMAGE_SEED_CREDENTIAL, false, "stored seed credential",
          STORED_CREDENTIAL_WHY },
        { "usr/lib/credstore.encrypted/" CREDENTIAL_NAME, IMAGE_SEED_CREDENTIAL, false, "stored seed credential",
          STORED_CREDENTIAL_WHY },
        { "efi/loader/credentials/" CREDENTIAL_NAME ".cred", IMAGE_SEED_CREDENTIAL, false,
          "boot loader seed credential (systemd-stub)", LOADER_CREDENTIAL_WHY },
        { "boot/loader/credentials/" CREDENTIAL_NAME ".cred", IMAGE_SEED_CREDENTIAL, false,
          "boot loader seed credential (systemd-stub)", LOADER_CREDENTIAL_WHY },
        { "boot/efi/loader/credentials/" CREDENTIAL_NAME ".cred", IMAGE_SEED_CREDENTIAL, false,
          "boot loader seed credential (systemd-stub)", LOADER_CREDENTIAL_WHY },
        /* And beside each unified kernel image, for that kernel alone. */
        { "efi/EFI/Linux/*.efi.extra.d/" CREDENTIAL_NAME ".cred", IMAGE_SEED_CREDENTIAL, false,
          "boot loader seed credential (systemd-stub)", LOADER_CREDENTIAL_WHY, true },
        { "boot/EFI/Linux/*.efi.extra.d/" CREDENTIAL_NAME ".cred", IMAGE_SEED_CREDENTIAL, false,
          "boot loader seed credential (systemd-stub)", LOADER_CREDENTIAL_WHY, true },
        { "boot/efi/EFI/Linux/*.efi.extra.d/" CREDENTIAL_NAME ".cred", IMAGE_SEED_CREDENTIAL, false,
          "boot loader seed credential (systemd-stub)", LOADER_CREDENTIAL_WHY, true },
        { "etc/machine-id", IMAGE_MACHINE_ID, false, "machine ID", MACHINE_ID_WHY },
        { "var/lib/dbus/machine-id", IMAGE_DBUS_MACHINE_ID, false, "D-Bus machine ID", DBUS_MACHINE_ID_WHY },
};

int image_checks_build(const char *seed_dir, ImageCheck **ret, size_t *ret_n) {
        size_t n = 0, max = 2 + legacy_seeds_count + ELEMENTSOF(fixed_checks_after_legacy), l;
        _cleanup_free_ char *dir = NULL;
        char *seed = NULL, *memory = NULL;
        ImageCheck *c;

        /* The configuration refuses any other spelling (config.c); a caller
         * that passes one gets nothing walked on its behalf. */
        l = strlen(seed_dir);
        while (l > 1 && seed_dir[l - 1] == '/')
                l--;
        dir = strndup(seed_dir, l);
        if (!dir)
                return -ENOMEM;
        if (!path_is_normalized_absolute(dir))
                return -EINVAL;

        c = calloc(max, sizeof(ImageCheck));
        if (!c)
                return -ENOMEM;
        if (asprintf(&seed, "%s%s%s", dir + 1, dir[1] ? "/" : "", SEED_FILE_NAME) < 0 ||
            asprintf(&memory, "%s%s%s", dir + 1, dir[1] ? "/" : "", SEED_CREDENTIALS_NAME) < 0) {
                free(seed);
                free(c);
                return -ENOMEM;
        }
        /* The two built paths come first: image_checks_free() knows them there. */
        c[n++] = (ImageCheck) { seed, IMAGE_SEED, false, "entropy-gate seed", OUR_SEED_WHY };
        c[n++] = (ImageCheck) { memory, IMAGE_CREDENTIAL_MEMORY, false, "entropy-gate credential memory",
                                CREDENTIALS_WHY };
        for (size_t i = 0; i < legacy_seeds_count; i++)
                c[n++] = (ImageCheck) { legacy_seeds[i].path + 1, IMAGE_LEGACY_SEED, false,
                                        legacy_seeds[i].what, legacy_seeds[i].why };
        for (size_t i = 0; i < ELEMENTSOF(fixed_checks_after_legacy); i++)
                c[n++] = fixed_checks_after_legacy[i];
        *ret = c;
        *ret_n = n;
        return 0;
}

void image_checks_free(ImageCheck *checks, size_t n) {
        if (checks && n >= 2) {
                free((char *) checks[0].path);
                free((char *) checks[1].path);
        }
        free(checks);
}

static void finding_done(ImageFinding *f) {
        free(f->path);
        free(f->where);
        free(f->detail);
}

void image_findings_free(ImageFinding *findings, size_t n) {
        for (size_t i = 0; i < n; i++)
                finding_done(findings + i);
        free(findings);
}

/* ---- The tree: every step through the resolver ---- */

/* The root, and the rule for the mounts in it. */
typedef struct Tree {
        int fd;
        ImageFlags flags;
} Tree;

/* What an entry is, without following it or opening it. */
typedef struct Node {
        mode_t mode;
        dev_t dev;
        ino_t ino;
        nlink_t nlink;
        uid_t uid;
        gid_t gid;
        off_t size;
} Node;

/* @name below @dfd (NULL: @dfd itself), never followed, never automounted. */
static int node_at(int dfd, const char *name, Node *ret) {
        struct statx sx;
        struct stat st;

        if (statx(dfd, name ?: "", (name ? 0 : AT_EMPTY_PATH) | AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
                  STATX_BASIC_STATS, &sx) >= 0) {
                *ret = (Node) {
                        .mode = sx.stx_mode,
                        .dev = makedev(sx.stx_dev_major, sx.stx_dev_minor),
                        .ino = sx.stx_ino,
                        .nlink = sx.stx_nlink,
                        .uid = sx.stx_uid,
                        .gid = sx.stx_gid,
                        .size = (off_t) sx.stx_size,
                };
                return 0;
        }
        if (errno != ENOSYS)
                return negative_errno();
        /* Before Linux 4.11. */
        if (fstatat(dfd, name ?: "", &st, (name ? 0 : AT_EMPTY_PATH) | AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT) < 0)
                return negative_errno();
        *ret = (Node) { .mode = st.st_mode, .dev = st.st_dev, .ino = st.st_ino, .nlink = st.st_nlink,
                        .uid = st.st_uid, .gid = st.st_gid, .size = st.st_size };
        return 0;
}

/* A hash of @name's file handle below @dfd (not followed): what tells a
 * file from one made since under the same inode number, where the file
 * system says (ext4, XFS, btrfs and tmpfs put a generation in it). 0 where
 * it has none. */
static uint64_t handle_at(int dfd, const char *name) {
        union {
                struct file_handle h;
                uint8_t buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
        } u = { .h.handle_bytes = MAX_HANDLE_SZ };
        uint64_t hash = 0xcbf29ce484222325ULL;
        int mnt_id;

        if (name_to_handle_at(dfd, name, &u.h, &mnt_id, 0) < 0)
                return 0;
        /* FNV-1a: not a secret, only a fingerprint of bytes the kernel chose. */
        for (size_t i = 0; i < sizeof(u.h.handle_type); i++)
                hash = (hash ^ ((uint64_t) (unsigned) u.h.handle_type >> (8 * i) & 0xff)) * 0x100000001b3ULL;
        for (size_t i = 0; i < u.h.handle_bytes && i < MAX_HANDLE_SZ; i++)
                hash = (hash ^ u.h.f_handle[i]) * 0x100000001b3ULL;
        return hash ?: 1;
}

static int tree_init(Tree *t, int root_fd, ImageFlags flags) {
        *t = (Tree) { .fd = root_fd, .flags = flags };
        return 0;
}

/* The resolver's rule for mount points (root.h): none crossed, or with
 * --cross-mounts only those of file systems mounted nowhere outside the
 * tree. */
static ChaseFlags tree_mount_rule(const Tree *t) {
        return t->flags & IMAGE_CROSS_MOUNTS ? CHASE_MOUNTS_IN_TREE : CHASE_NO_XDEV;
}

/* Whether @name below @dfd (not followed: a symlink is no mount) may be
 * reached from @dfd under that rule: 0, -EXDEV, CHASE_ERR_FOREIGN_MOUNT or
 * -errno. A file or directory mounted over the name is another mount. */
static int tree_check_name(const Tree *t, int dfd, const char *name) {
        _cleanup_close_ int fd = -EBADF;

        fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        return chase_check_step(t->fd, dfd, fd, tree_mount_rule(t));
}

/* A name the walk may take: one component, never "." or "..". */
static bool name_is_plain(const char *name) {
        return *name && !streq(name, ".") && !streq(name, "..") && !strchr(name, '/') &&
                strlen(name) <= NAME_MAX;
}

static int set_detail(ImageFinding *f, const char *format, ...) _printf_(2, 3);
static int set_detail(ImageFinding *f, const char *format, ...) {
        va_list ap;
        char *d;
        int k;

        va_start(ap, format);
        k = vasprintf(&d, format, ap);
        va_end(ap);
        if (k < 0)
                return -ENOMEM;
        free(f->detail);
        f->detail = d;
        return 0;
}

/* f->where: the offending path, for the report and for reporting it once. */
static int set_where(ImageFinding *f, const char *path, size_t len) {
        char *w = strndup(path, len);

        if (!w)
                return -ENOMEM;
        free(f->where);
        f->where = w;
        return 0;
}

static int set_symlink(ImageFinding *f, int dfd, const char *name, const char *walked, size_t len) {
        char target[PATH_MAX];
        ssize_t n = readlinkat(dfd, name, target, sizeof(target) - 1);

        if (n < 0)
                snprintf(target, sizeof(target), "?");
        else
                target[n] = 0;
        f->state = IMAGE_SYMLINK;
        if (set_where(f, walked, len) < 0)
                return -ENOMEM;
        return set_detail(f, "/%s is a symlink to %s: not followed", f->where, target);
}

/* @r: -EXDEV or CHASE_ERR_FOREIGN_MOUNT. */
static int set_mount_point(ImageFinding *f, int r, const char *walked, size_t len) {
        f->state = IMAGE_MOUNT_POINT;
        if (set_where(f, walked, len) < 0)
                return -ENOMEM;
        if (r == CHASE_ERR_FOREIGN_MOUNT)
                return set_detail(f, "/%s is a mount point of a file system that is also mounted outside the "
                                  "tree (a directory of this system's, bound in?), or of a type whose files may "
                                  "live outside it (overlay, FUSE, network), or this system's root: never "
                                  "crossed, even with --cross-mounts", f->where);
        return set_detail(f, "/%s is a mount point (another file system, or a bind mount): not crossed "
                          "without --cross-mounts", f->where);
}

static int set_unusual(ImageFinding *f, int r, const char *walked, size_t len) {
        f->state = IMAGE_UNUSUAL;
        if (set_where(f, walked, len) < 0)
                return -ENOMEM;
        return set_detail(f, "/%s: %s", f->where, r == -ENOTDIR ? "not a directory" :
                          r == -EINVAL ? "not a plain name" : strerror(-r));
}

/* The directory @name below @dfd, by the resolver: one component, not
 * followed, not across a mount point (unless IMAGE_CROSS_MOUNTS). @walked
 * (its first @len bytes) is its path from the root, for the report. */
static int step_dir(const Tree *t, int dfd, const char *name, const char *walked, size_t len, ImageFinding *f) {
        Node n;
        int fd, r;

        if (!name_is_plain(name))
                return set_unusual(f, -EINVAL, walked, len) < 0 ? -ENOMEM : -EINVAL;
        /* One component: the mount rule is held below, against the tree's
         * root (the resolver would hold it against @dfd's). */
        fd = chase_open_at(dfd, name, CHASE_NOFOLLOW | CHASE_NO_SYMLINKS | CHASE_DIRECTORY |
                           (t->flags & IMAGE_CROSS_MOUNTS ? 0 : CHASE_NO_XDEV));
        if (fd == -ENOENT)
                return fd;
        if (fd == -EXDEV)
                return set_mount_point(f, fd, walked, len) < 0 ? -ENOMEM : -EXDEV;
        if (fd < 0) {
                if (node_at(dfd, name, &n) >= 0 && S_ISLNK(n.mode))
                        return set_symlink(f, dfd, name, walked, len) < 0 ? -ENOMEM : -ELOOP;
                return set_unusual(f, fd, walked, len) < 0 ? -ENOMEM : fd;
        }
        r = chase_check_step(t->fd, dfd, fd, tree_mount_rule(t));
        if (r < 0) {
                safe_close(fd);
                if (r == -EXDEV || r == CHASE_ERR_FOREIGN_MOUNT)
                        return set_mount_point(f, r, walked, len) < 0 ? -ENOMEM : -EXDEV;
                return set_unusual(f, r, walked, len) < 0 ? -ENOMEM : r;
        }
        return fd;
}

/* Open the directory made of the first @len bytes of @path below the root,
 * one component at a time, each by step_dir() from the one before.
 * Returns its fd; -ENOENT when something on the way is simply absent;
 * -ENOMEM; any other -errno with *f filled: a symlink on the way (-ELOOP),
 * a mount point (-EXDEV), a component that is not a directory, anything
 * that cannot be opened. */
static int walk_dir(const Tree *t, const char *path, size_t len, ImageFinding *f) {
        _cleanup_close_ int fd = -EBADF;
        size_t i = 0;

        fd = fcntl(t->fd, F_DUPFD_CLOEXEC, 3);
        if (fd < 0)
                return set_unusual(f, negative_errno(), "", 0) < 0 ? -ENOMEM : -EBADF;

        while (i < len) {
                size_t end = i;
                char comp[NAME_MAX + 2];
                int nfd;

                while (end < len && path[end] != '/')
                        end++;
                if (end - i > NAME_MAX)
                        return set_unusual(f, -ENAMETOOLONG, path, end) < 0 ? -ENOMEM :
                                           -ENAMETOOLONG;
                memcpy(comp, path + i, end - i);
                comp[end - i] = 0;
                nfd = step_dir(t, fd, comp, path, end, f);
                if (nfd < 0)
                        return nfd;
                safe_close(fd);
                fd = nfd;
                i = end + 1;
        }
        return TAKE_FD(fd);
}

/* The directory of @path's last component, walked as walk_dir() does, with
 * *ret_name pointing into @path at that component. */
static int open_parent(const Tree *t, const char *path, const char **ret_name, ImageFinding *f) {
        const char *slash = strrchr(path, '/');

        *ret_name = slash ? slash + 1 : path;
        return walk_dir(t, path, slash ? (size_t) (slash - path) : 0, f);
}

/* ---- Looking ---- */

bool symlink_names(const char *dir, const char *target, const char *want) {
        char buf[PATH_MAX * 2], *parts[PATH_MAX / 2], *save = NULL;
        size_t n = 0, w = 0, known = 0, dir_len = target[0] == '/' ? 0 : strlen(dir);

        if (snprintf(buf, sizeof(buf), "%s/%s", target[0] == '/' ? "" : dir, target) >= (int) sizeof(buf))
                return false;
        for (char *p = strtok_r(buf, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
                /* The first @known components are @dir's, which the walk
                 * found to be directories, not links: ".." climbs them as
                 * the kernel would. A name from the target may be a link
                 * elsewhere: where its ".." leads, the text cannot say
                 * (/usr/lib/../../etc is /opt/etc when usr/lib links to
                 * /opt/x/y). */
                bool from_dir = (size_t) (p - buf) < dir_len;

                if (streq(p, "."))
                        continue;
                if (streq(p, "..")) {
                        if (n == 0)
                                continue;
                        if (n > known)
                                return false;
                        known = --n;
                        continue;
                }
                if (n >= ELEMENTSOF(parts))
                        return false;
                parts[n++] = p;
                if (from_dir)
                        known = n;
        }
        /* Compare component by component with @want, "/a/b". */
        for (size_t i = 0; i < n; i++) {
                size_t l = strlen(parts[i]);

                if (want[w] != '/' || strncmp(want + w + 1, parts[i], l) != 0)
                        return false;
                w += l + 1;
        }
        return want[w] == 0 && n > 0;
}

/* The regular file @name below @dfd, by the resolver, and only if it is
 * still the one @n describes. */
static int open_found(const Tree *t, int dfd, const char *name, const Node *n) {
        _cleanup_close_ int fd = -EBADF;
        struct stat st;

        /* O_PATH until fstat() says it is still the regular file found: a
         * device put there since is never opened. */
        fd = chase_open_path_at(dfd, name, CHASE_NOFOLLOW | CHASE_NO_SYMLINKS | tree_mount_rule(t));
        if (fd < 0)
                return fd;
        if (fstat(fd, &st) < 0 || st.st_dev != n->dev || st.st_ino != n->ino || !S_ISREG(st.st_mode))
                return -ESTALE;
        return fd_reopen_regular(fd, NULL);
}

static int look_machine_id(const Tree *t, int dfd, const char *name, const Node *node, ImageFinding *f) {
        _cleanup_free_ char *buf = NULL;
        _cleanup_close_ int fd = -EBADF;
        MachineId m;
        size_t n;
        int r;

        fd = open_found(t, dfd, name, node);
        r = fd < 0 ? fd : read_fd_bounded(fd, MACHINE_ID_FILE_MAX, 0, &buf, &n);
        if (r == -EFBIG) {
                f->state = IMAGE_FOUND;
                return set_detail(f, "holds more than a machine ID");
        }
        if (r < 0) {
                f->state = IMAGE_UNUSUAL;
                return set_detail(f, "cannot read it: %s",
                                  r == -ENOSYS ? "/proc is not mounted, or /proc/self/fd is not the kernel's" :
                                  r == -ESTALE ? "it changed, or /proc/self/fd did not lead back to it" :
                                  strerror(-r));
        }
        machine_id_parse(buf, n, &m);
        /* Empty, or "uninitialized": systemd makes a new ID on each machine. */
        if (m.state == MACHINE_ID_EMPTY || m.state == MACHINE_ID_UNINITIALIZED) {
                f->state = IMAGE_CLEAN;
                return 0;
        }
        f->state = IMAGE_FOUND;
        return set_detail(f, "%s", m.state == MACHINE_ID_VALID ? "holds a machine ID" :
                          "holds neither a machine ID nor \"uninitialized\"");
}

static int look_dbus_machine_id(int dfd, const char *name, const char *path, const Node *node, ImageFinding *f) {
        char target[PATH_MAX], dir[PATH_MAX];
        const char *slash = strrchr(path, '/');
        ssize_t n;

        if (S_ISREG(node->mode)) {
                f->state = IMAGE_FOUND;
                return set_detail(f, "a file of its own (%lld bytes), not a symlink to %s",
                                  (long long) node->size, DBUS_MACHINE_ID_TARGET);
        }
        n = readlinkat(dfd, name, target, sizeof(target) - 1);
        if (n < 0) {
                f->state = IMAGE_UNUSUAL;
                return set_detail(f, "cannot read the symlink: %s", strerror(errno));
        }
        target[n] = 0;
        snprintf(dir, sizeof(dir), "/%.*s", slash ? (int) (slash - path) : 0, path);
        if (symlink_names(dir, target, DBUS_MACHINE_ID_TARGET)) {
                f->state = IMAGE_CLEAN;
                return 0;
        }
        f->state = IMAGE_FOUND;
        return set_detail(f, "a symlink to %s, not to %s", target, DBUS_MACHINE_ID_TARGET);
}

/* @name in the directory @dfd, which is @path's: *f gets its state, detail
 * and the action --fix takes. 0 or -ENOMEM. */
static int look_at(const Tree *t, int dfd, const ImageCheck *c, const char *path, const char *name,
                   ImageFinding *f) {
        Node node;
        int r;

        if (!name_is_plain(name))
                return set_unusual(f, -EINVAL, path, strlen(path));
        r = node_at(dfd, name, &node);
        if (r == -ENOENT) {
                f->state = IMAGE_ABSENT;
                return 0;
        }
        if (r < 0) {
                f->state = IMAGE_UNUSUAL;
                return set_detail(f, "cannot stat it: %s", strerror(-r));
        }
        if (!S_ISLNK(node.mode)) {
                /* A file or directory mounted over this name. */
                r = tree_check_name(t, dfd, name);
                if (r == -EXDEV || r == CHASE_ERR_FOREIGN_MOUNT)
                        return set_mount_point(f, r, path, strlen(path));
                if (r < 0) {
                        f->state = IMAGE_UNUSUAL;
                        return set_detail(f, "cannot look at it: %s", strerror(-r));
                }
        }
        f->dev = node.dev;
        f->ino = node.ino;
        f->handle = handle_at(dfd, name);

        if (c->kind == IMAGE_DBUS_MACHINE_ID && (S_ISREG(node.mode) || S_ISLNK(node.mode))) {
                r = look_dbus_machine_id(dfd, name, path, &node, f);
                if (f->state == IMAGE_FOUND)
                        f->action = IMAGE_ACTION_SYMLINK;
                return r;
        }
        if (S_ISLNK(node.mode))
                return set_symlink(f, dfd, name, path, strlen(path));
        if (!S_ISREG(node.mode)) {
                f->state = IMAGE_UNUSUAL;
                return set_detail(f, "not a regular file (%s)", inode_type_to_string(node.mode));
        }
        if (c->kind == IMAGE_MACHINE_ID) {
                r = look_machine_id(t, dfd, name, &node, f);
                if (f->state == IMAGE_FOUND)
                        f->action = IMAGE_ACTION_RESET;
                return r;
        }
        f->state = IMAGE_FOUND;
        f->action = IMAGE_ACTION_REMOVE;
        /* Other names of the same file (hard links) keep it: --fix removes
         * this one only. */
        if (node.nlink > 1)
                return set_detail(f, "%lld bytes, %llu links", (long long) node.size,
                                  (unsigned long long) node.nlink);
        return set_detail(f, "%lld bytes", (long long) node.size);
}

/* ---- Collecting ---- */

typedef struct FindingList {
        ImageFinding *f;
        size_t n, allocated;
} FindingList;

/* Takes what *f holds, whatever happens. 0 or -ENOMEM. */
static int add_finding(FindingList *l, const ImageCheck *c, const char *path, ImageFinding *f) {
        if (f->state == IMAGE_ABSENT || f->state == IMAGE_CLEAN) {
                finding_done(f);
                return 0;
        }
        if (l->n == l->allocated) {
                size_t k = MAX(l->allocated * 2, (size_t) 16);
                ImageFinding *t = reallocarray(l->f, k, sizeof(ImageFinding));

                if (!t) {
                        finding_done(f);
                        return -ENOMEM;
                }
                l->f = t;
                l->allocated = k;
        }
        f->check = c;
        f->path = strdup(path);
        if (!f->where)
                f->where = strdup(path);
        if (!f->path || !f->where || !f->detail) {
                finding_done(f);
                return -ENOMEM;
        }
        l->f[l->n++] = *f;
        return 0;
}

static int compare_strings(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Whether @dir/@name is a path another check looks at on its own. The
 * checks are a fixed handful; the entries of a directory are not. */
static bool is_checked_path(const ImageCheck *checks, size_t n, const char *dir, const char *name) {
        size_t l = strlen(dir);

        for (size_t i = 0; i < n; i++)
                if (!checks[i].directory && strncmp(checks[i].path, dir, l) == 0 && checks[i].path[l] == '/' &&
                    streq(checks[i].path + l + 1, name))
                        return true;
        return false;
}

/* The names in the directory @dfd that end in @suffix ("": every name but
 * "." and ".."), sorted, in a new NULL-terminated array of *ret_n. A
 * directory that cannot be read to its end is an error: a part of it is no
 * answer. */
static int dir_names_sorted(int dfd, const char *suffix, char ***ret, size_t *ret_n) {
        _cleanup_strv_free_ char **names = NULL;
        size_t n = 0, allocated = 0, sl = strlen(suffix);
        DIR *d;
        int fd, r = 0;

        /* A second fd for readdir: @dfd stays the caller's for the *at() calls. */
        fd = fcntl(dfd, F_DUPFD_CLOEXEC, 3);
        d = fd >= 0 ? fdopendir(fd) : NULL;
        if (!d) {
                r = negative_errno();
                safe_close(fd);
                return r;
        }
        for (struct dirent *de; (r = dir_next(d, &de)) > 0;) {
                size_t l = strlen(de->d_name);

                if (streq(de->d_name, ".") || streq(de->d_name, "..") ||
                    (sl > 0 && (l <= sl || !streq(de->d_name + l - sl, suffix))))
                        continue;
                /* Doubling: a directory of a million entries costs a
                 * million copies in all, not half a million squared. */
                if (n + 2 > allocated) {
                        size_t k = MAX(allocated * 2, (size_t) 64);
                        char **x = reallocarray(names, k, sizeof(char *));

                        if (!x) {
                                r = -ENOMEM;
                                break;
                        }
                        names = x;
                        allocated = k;
                }
                names[n] = strdup(de->d_name);
                names[n + 1] = NULL;
                if (!names[n]) {
                        r = -ENOMEM;
                        break;
                }
                n++;
        }
        closedir(d);
        if (r < 0)
                return r;
        if (n > 0)
                qsort(names, n, sizeof(char *), compare_strings);
        *ret = TAKE_PTR(names);
        *ret_n = n;
        return 0;
}

/* What look_at() says of @name in @dfd (when the walk there reached it:
 * @dfd >= 0; else @f already says what stopped the walk), added to @l. */
static int look_and_add(const Tree *t, int dfd, const ImageCheck *c, const char *path, const char *name,
                        ImageFinding *f, FindingList *l) {
        if (dfd >= 0) {
                int r = look_at(t, dfd, c, path, name, f);

                if (r < 0) {
                        finding_done(f);
                        return r;
                }
        }
        return add_finding(l, c, path, f);
}

/* Every entry of the directory @c->path, but those checked on their own:
 * the directory is walked once and each entry looked at relative to it. */
static int scan_directory(const Tree *t, const ImageCheck *c, const ImageCheck *checks, size_t n_checks,
                          FindingList *l) {
        _cleanup_strv_free_ char **names = NULL;
        _cleanup_close_ int dfd = -EBADF;
        ImageFinding f = {};
        size_t n = 0;
        int r;

        dfd = walk_dir(t, c->path, strlen(c->path), &f);
        if (dfd < 0) {
                if (dfd == -ENOENT || dfd == -ENOMEM) {
                        finding_done(&f);
                        return dfd == -ENOENT ? 0 : dfd;
                }
                return add_finding(l, c, c->path, &f);
        }
        r = dir_names_sorted(dfd, "", &names, &n);
        if (r < 0)
                return r;

        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *path = NULL;

                if (is_checked_path(checks, n_checks, c->path, names[i]))
                        continue;
                if (asprintf(&path, "%s/%s", c->path, names[i]) < 0) {
                        path = NULL;
                        return -ENOMEM;
                }
                f = (ImageFinding) {};
                r = look_and_add(t, dfd, c, path, names[i], &f, l);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* @c->path is a directory, a component "*SUFFIX" and a name: that name in
 * every directory in the first whose name ends in SUFFIX (systemd-stub's
 * "UKI.efi.extra.d"), each walked as any other step is: a symlink, a mount
 * point there is a finding of its own. */
static int scan_each_dir(const Tree *t, const ImageCheck *c, FindingList *l) {
        _cleanup_strv_free_ char **names = NULL;
        _cleanup_free_ char *suffix = NULL;
        _cleanup_close_ int dfd = -EBADF;
        const char *star = strstr(c->path, "/*"), *name;
        ImageFinding f = {};
        size_t n = 0, len;
        int r;

        if (!star || !(name = strchr(star + 2, '/')))
                return -EINVAL;
        len = (size_t) (star - c->path);
        suffix = strndup(star + 2, (size_t) (name - star - 2));
        if (!suffix)
                return -ENOMEM;
        name++;

        dfd = walk_dir(t, c->path, len, &f);
        if (dfd < 0) {
                if (dfd == -ENOENT || dfd == -ENOMEM) {
                        finding_done(&f);
                        return dfd == -ENOENT ? 0 : dfd;
                }
                return add_finding(l, c, c->path, &f);
        }
        r = dir_names_sorted(dfd, suffix, &names, &n);
        if (r < 0)
                return r;

        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *path = NULL;
                _cleanup_close_ int sfd = -EBADF;

                if (asprintf(&path, "%.*s/%s/%s", (int) len, c->path, names[i], name) < 0) {
                        path = NULL;
                        return -ENOMEM;
                }
                f = (ImageFinding) {};
                sfd = step_dir(t, dfd, names[i], path, len + 1 + strlen(names[i]), &f);
                if (sfd == -ENOENT || sfd == -ENOTDIR || sfd == -ENOMEM) {
                        /* Gone, or a file by that name: systemd-stub reads
                         * directories only. */
                        finding_done(&f);
                        if (sfd == -ENOMEM)
                                return sfd;
                        continue;
                }
                r = look_and_add(t, sfd, c, path, name, &f, l);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int look(const Tree *t, const ImageCheck *c, FindingList *l) {
        _cleanup_close_ int dfd = -EBADF;
        ImageFinding f = {};
        const char *name = NULL;

        dfd = open_parent(t, c->path, &name, &f);
        if (dfd == -ENOENT || dfd == -ENOMEM) {
                finding_done(&f);
                return dfd == -ENOENT ? 0 : dfd;
        }
        return look_and_add(t, dfd, c, c->path, name, &f, l);
}

typedef struct WhereIndex {
        const char *where;
        bool found;
        size_t index;
} WhereIndex;

/* By path; at one path, a file found there before whatever a walk to
 * another check's file met there, then in the order of the checks. */
static int compare_where(const void *a, const void *b) {
        const WhereIndex *x = a, *y = b;
        int k = strcmp(x->where, y->where);

        if (k != 0)
                return k;
        if (x->found != y->found)
                return x->found ? -1 : 1;
        return x->index < y->index ? -1 : x->index > y->index;
}

/* Each offending path once, with the first check that met it: a symlink
 * or mount point on the way to several paths, whatever their details
 * say. A file that is a finding of its own (found, with what --fix does
 * to it) is kept over a walk it stopped: a Directory= that names the
 * image's machine ID must not hide it. Sorted, never compared pairwise: a
 * million findings cost a million times a logarithm. */
static int dedupe(FindingList *l) {
        _cleanup_free_ WhereIndex *w = NULL;
        _cleanup_free_ bool *drop = NULL;
        size_t k = 0;

        if (l->n < 2)
                return 0;
        w = calloc(l->n, sizeof(WhereIndex));
        drop = calloc(l->n, sizeof(bool));
        if (!w || !drop)
                return -ENOMEM;
        for (size_t i = 0; i < l->n; i++)
                w[i] = (WhereIndex) { l->f[i].where, l->f[i].state == IMAGE_FOUND, i };
        qsort(w, l->n, sizeof(WhereIndex), compare_where);
        for (size_t i = 1; i < l->n; i++)
                if (streq(w[i].where, w[i - 1].where))
                        drop[w[i].index] = true;
        for (size_t i = 0; i < l->n; i++) {
                if (drop[i]) {
                        finding_done(l->f + i);
                        continue;
                }
                l->f[k++] = l->f[i];
        }
        l->n = k;
        return 0;
}

int image_scan(int root_fd, ImageFlags flags, const ImageCheck *checks, size_t n_checks, ImageFinding **ret,
               size_t *ret_n) {
        FindingList l = {};
        Tree t;
        int r;

        r = tree_init(&t, root_fd, flags);
        for (size_t i = 0; i < n_checks && r >= 0; i++)
                r = checks[i].directory ? scan_directory(&t, checks + i, checks, n_checks, &l) :
                        checks[i].each ? scan_each_dir(&t, checks + i, &l) :
                        look(&t, checks + i, &l);
        if (r >= 0)
                r = dedupe(&l);
        if (r < 0) {
                image_findings_free(l.f, l.n);
                return r;
        }
        *ret = l.f;
        *ret_n = l.n;
        return 0;
}

/* ---- Fixing ---- */

/* Whether the directory @fd, at @path below the root, is this system's
 * own: its root, or its directory of the same name (the tree's etc being
 * a bind mount of this system's /etc). Only a tree walked across mount
 * points can get there; the tree's root itself was refused before. */
static int is_system_dir(int fd, const char *path, size_t len) {
        char host[PATH_MAX];
        struct stat a, b;
        int r;

        r = fd_is_system_root(fd);
        if (r != 0)
                return r;
        if (len + 2 > sizeof(host))
                return 0;
        host[0] = '/';
        memcpy(host + 1, path, len);
        host[len + 1] = 0;
        if (fstat(fd, &a) < 0)
                return negative_errno();
        return stat(host, &b) >= 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The directory @f->path is in, walked again as the scan walked it, and
 * with every directory on the way checked against this system's own. */
static int fix_open_parent(const Tree *t, const ImageFinding *f, const char **ret_name) {
        _cleanup_close_ int fd = -EBADF;
        ImageFinding again = {};
        const char *slash = strrchr(f->path, '/');
        size_t len = slash ? (size_t) (slash - f->path) : 0, i = 0;

        *ret_name = slash ? slash + 1 : f->path;
        fd = fcntl(t->fd, F_DUPFD_CLOEXEC, 3);
        if (fd < 0)
                return negative_errno();
        while (i < len) {
                size_t end = i;
                char comp[NAME_MAX + 2];
                int nfd, r;

                while (end < len && f->path[end] != '/')
                        end++;
                if (end - i > NAME_MAX)
                        return -ESTALE;
                memcpy(comp, f->path + i, end - i);
                comp[end - i] = 0;
                nfd = step_dir(t, fd, comp, f->path, end, &again);
                finding_done(&again);
                again = (ImageFinding) {};
                if (nfd < 0)
                        return nfd == -ELOOP || nfd == -ENOTDIR || nfd == -EINVAL ? -ESTALE : nfd;
                safe_close(fd);
                fd = nfd;
                if (!(t->flags & IMAGE_FORCE)) {
                        r = is_system_dir(fd, f->path, end);
                        if (r < 0)
                                return r;
                        if (r > 0)
                                return IMAGE_ERR_SYSTEM_FILE;
                }
                i = end + 1;
        }
        return TAKE_FD(fd);
}

/* The machine ID, replaced by rename: a file hard-linked into the image from
 * elsewhere keeps its content under its other name. Its mode and owner are
 * kept, whatever our umask, set on the new file before it takes the name
 * (never on a name looked up again). */
static int reset_machine_id(int dfd, const char *name, const Node *was, MachineIdReset reset) {
        static const char uninitialized[] = "uninitialized\n";
        static unsigned counter;
        _cleanup_close_ int fd = -EBADF;
        const char *text = reset == MACHINE_ID_RESET_EMPTY ? "" : uninitialized;
        char tmp[NAME_MAX + 1];
        int k, r;

        for (unsigned attempt = 0;; attempt++) {
                k = snprintf(tmp, sizeof(tmp), ".#%.200s.%ld.%u", name, (long) getpid(), counter++);
                if (k < 0 || (size_t) k >= sizeof(tmp))
                        return -ENAMETOOLONG;
                /* O_EXCL: never a file someone else created or linked there. */
                fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
                if (fd >= 0 || errno != EEXIST || attempt >= 16)
                        break;
        }
        if (fd < 0)
                return negative_errno();
        r = loop_write(fd, text, strlen(text));
        if (r >= 0 && fchown(fd, was->uid, was->gid) < 0)
                r = negative_errno();
        if (r >= 0 && fchmod(fd, was->mode & 07777) < 0)
                r = negative_errno();
        /* Content, mode and owner on disk before the name is. */
        if (r >= 0 && fsync(fd) < 0)
                r = negative_errno();
        if (r >= 0 && renameat(dfd, tmp, dfd, name) < 0)
                r = negative_errno();
        if (r < 0)
                (void) unlinkat(dfd, tmp, 0);
        return r;
}

/* Replace whatever is at @name (a file, or a symlink elsewhere) with a
 * symlink to /etc/machine-id, atomically: rename() replaces the name itself,
 * never what a symlink there points to. */
static int symlink_machine_id(int dfd, const char *name) {
        char tmp[NAME_MAX + 1];
        int k;

        k = snprintf(tmp, sizeof(tmp), ".#%.200s.%ld", name, (long) getpid());
        if (k < 0 || (size_t) k >= sizeof(tmp))
                return -ENAMETOOLONG;
        if (symlinkat(DBUS_MACHINE_ID_TARGET, dfd, tmp) < 0)
                return negative_errno();
        if (renameat(dfd, tmp, dfd, name) < 0) {
                int r = negative_errno();
                (void) unlinkat(dfd, tmp, 0);
                return r;
        }
        return 0;
}

int image_fix_one(int root_fd, ImageFlags flags, const ImageFinding *f, MachineIdReset reset) {
        _cleanup_close_ int dfd = -EBADF;
        const char *name;
        Node node;
        Tree t;
        int r;

        if (f->state != IMAGE_FOUND || f->action == IMAGE_ACTION_NONE)
                return -EINVAL;
        r = tree_init(&t, root_fd, flags);
        if (r < 0)
                return r;
        /* Walked again: only what is still there, reached the same way, is touched. */
        dfd = fix_open_parent(&t, f, &name);
        if (dfd < 0)
                return dfd;
        if (!name_is_plain(name))
                return -ESTALE;
        r = node_at(dfd, name, &node);
        if (r < 0)
                return r;
        if (!S_ISLNK(node.mode)) {
                r = tree_check_name(&t, dfd, name);
                if (r < 0)
                        return r == CHASE_ERR_FOREIGN_MOUNT ? -EXDEV : r;
        }
        /* The very file that was found: not another one put there since. */
        if (node.dev != f->dev || node.ino != f->ino || handle_at(dfd, name) != f->handle)
                return -ESTALE;

        switch (f->action) {
        case IMAGE_ACTION_REMOVE:
                if (!S_ISREG(node.mode))
                        return -ESTALE;
                /* The name only: another hard link keeps the file. */
                if (unlinkat(dfd, name, 0) < 0)
                        return negative_errno();
                break;
        case IMAGE_ACTION_RESET:
                if (!S_ISREG(node.mode))
                        return -ESTALE;
                r = reset_machine_id(dfd, name, &node, reset);
                if (r < 0)
                        return r;
                break;
        case IMAGE_ACTION_SYMLINK:
                if (!S_ISREG(node.mode) && !S_ISLNK(node.mode))
                        return -ESTALE;
                r = symlink_machine_id(dfd, name);
                if (r < 0)
                        return r;
                break;
        default:
                return -EINVAL;
        }
        /* A removal or a rename is on disk only once its directory is. */
        if (fsync(dfd) < 0)
                return negative_errno();
        return 0;
}
