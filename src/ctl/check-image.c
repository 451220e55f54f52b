// SPDX-License-Identifier: LGPL-2.1-or-later
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

#include "check-image.h"
#include "io-util.h"
#include "string-table.h"
#include "machine-id.h"
#include "macro.h"
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
        [IMAGE_MACHINE_ID] = "machine-id",
        [IMAGE_DBUS_MACHINE_ID] = "dbus-machine-id",
};

static const char *const image_state_table[_IMAGE_STATE_MAX] = {
        [IMAGE_ABSENT] = "absent",
        [IMAGE_CLEAN] = "clean",
        [IMAGE_FOUND] = "found",
        [IMAGE_SYMLINK] = "symlink",
        [IMAGE_UNUSUAL] = "unusual",
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
        { "etc/machine-id", IMAGE_MACHINE_ID, false, "machine ID", MACHINE_ID_WHY },
        { "var/lib/dbus/machine-id", IMAGE_DBUS_MACHINE_ID, false, "D-Bus machine ID", DBUS_MACHINE_ID_WHY },
};

int image_checks_build(const char *seed_dir, ImageCheck **ret, size_t *ret_n) {
        size_t n = 0, max = 2 + legacy_seeds_count + ELEMENTSOF(fixed_checks_after_legacy);
        char *seed = NULL, *memory = NULL;
        ImageCheck *c;

        c = calloc(max, sizeof(ImageCheck));
        if (!c)
                return -ENOMEM;
        while (*seed_dir == '/')
                seed_dir++;
        if (asprintf(&seed, "%s%s%s", seed_dir, *seed_dir ? "/" : "", SEED_FILE_NAME) < 0 ||
            asprintf(&memory, "%s%s%s", seed_dir, *seed_dir ? "/" : "", SEED_CREDENTIALS_NAME) < 0) {
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

void image_findings_free(ImageFinding *findings, size_t n) {
        for (size_t i = 0; i < n; i++)
                free(findings[i].path);
        free(findings);
}

/* ---- Walking without following ---- */

static void set_symlink(ImageFinding *f, int dfd, const char *name, const char *shown) {
        char target[PATH_MAX];
        ssize_t n = readlinkat(dfd, name, target, sizeof(target) - 1);

        if (n < 0)
                snprintf(target, sizeof(target), "?");
        else
                target[n] = 0;
        f->state = IMAGE_SYMLINK;
        /* Shown in full up to a length no real image has. */
        snprintf(f->detail, sizeof(f->detail), "/%.1024s is a symlink to %.1024s: not followed", shown, target);
}

static int set_unusual(ImageFinding *f, int r, const char *shown) {
        f->state = IMAGE_UNUSUAL;
        snprintf(f->detail, sizeof(f->detail), "/%.1024s: %s", shown, r == -ENOTDIR ? "not a directory" : strerror(-r));
        return r;
}

/* Open the directory made of the first @len bytes of @path below @root_fd,
 * one component at a time, each opened O_NOFOLLOW relative to the one
 * before. Returns its fd; -ENOENT when something on the way is simply
 * absent; any other -errno with *f filled: a symlink on the way (-ELOOP),
 * a component that is not a directory, anything that cannot be opened. */
static int walk_dir(int root_fd, const char *path, size_t len, ImageFinding *f) {
        _cleanup_close_ int fd = -EBADF;
        size_t i = 0;

        fd = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
        if (fd < 0)
                return set_unusual(f, negative_errno(), "");

        while (i < len) {
                size_t end = i;
                char comp[NAME_MAX + 1], walked[PATH_MAX];
                struct stat st;
                int nfd, r;

                while (end < len && path[end] != '/')
                        end++;
                if (end - i > NAME_MAX || end >= sizeof(walked))
                        return set_unusual(f, -ENAMETOOLONG, path);
                memcpy(comp, path + i, end - i);
                comp[end - i] = 0;
                memcpy(walked, path, end);
                walked[end] = 0;

                nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (nfd < 0) {
                        r = negative_errno();
                        if (r == -ENOENT)
                                return r;
                        if (fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) >= 0 && S_ISLNK(st.st_mode)) {
                                set_symlink(f, fd, comp, walked);
                                return -ELOOP;
                        }
                        return set_unusual(f, r, walked);
                }
                safe_close(fd);
                fd = nfd;
                i = end + 1;
        }
        return TAKE_FD(fd);
}

/* The directory of @path's last component, walked as walk_dir() does, with
 * *ret_name pointing into @path at that component. */
static int open_parent(int root_fd, const char *path, const char **ret_name, ImageFinding *f) {
        const char *slash = strrchr(path, '/');

        *ret_name = slash ? slash + 1 : path;
        return walk_dir(root_fd, path, slash ? (size_t) (slash - path) : 0, f);
}

/* ---- Looking ---- */

bool symlink_names(const char *dir, const char *target, const char *want) {
        char buf[PATH_MAX * 2], *parts[PATH_MAX / 2], *save = NULL;
        size_t n = 0, w = 0;

        if (snprintf(buf, sizeof(buf), "%s/%s", target[0] == '/' ? "" : dir, target) >= (int) sizeof(buf))
                return false;
        for (char *p = strtok_r(buf, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
                if (streq(p, "."))
                        continue;
                if (streq(p, "..")) {
                        if (n > 0)
                                n--;
                        continue;
                }
                if (n >= ELEMENTSOF(parts))
                        return false;
                parts[n++] = p;
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

static void look_machine_id(int dfd, const char *name, ImageFinding *f) {
        _cleanup_free_ char *buf = NULL;
        MachineId m;
        size_t n;
        int r;

        r = read_file_at(dfd, name, MACHINE_ID_FILE_MAX, 0, &buf, &n, NULL);
        if (r == -EFBIG) {
                f->state = IMAGE_FOUND;
                snprintf(f->detail, sizeof(f->detail), "holds more than a machine ID");
                return;
        }
        if (r < 0) {
                f->state = IMAGE_UNUSUAL;
                snprintf(f->detail, sizeof(f->detail), "cannot read it: %s", strerror(-r));
                return;
        }
        machine_id_parse(buf, n, &m);
        /* Empty, or "uninitialized": systemd makes a new ID on each machine. */
        if (m.state == MACHINE_ID_EMPTY || m.state == MACHINE_ID_UNINITIALIZED) {
                f->state = IMAGE_CLEAN;
                return;
        }
        f->state = IMAGE_FOUND;
        snprintf(f->detail, sizeof(f->detail), "%s", m.state == MACHINE_ID_VALID ? "holds a machine ID" :
                 "holds neither a machine ID nor \"uninitialized\"");
}

static void look_dbus_machine_id(int dfd, const char *name, const char *path, const struct stat *st,
                                 ImageFinding *f) {
        char target[PATH_MAX], dir[PATH_MAX];
        const char *slash = strrchr(path, '/');
        ssize_t n;

        if (S_ISREG(st->st_mode)) {
                f->state = IMAGE_FOUND;
                snprintf(f->detail, sizeof(f->detail), "a file of its own (%lld bytes), not a symlink to %s",
                         (long long) st->st_size, DBUS_MACHINE_ID_TARGET);
                return;
        }
        n = readlinkat(dfd, name, target, sizeof(target) - 1);
        if (n < 0) {
                f->state = IMAGE_UNUSUAL;
                snprintf(f->detail, sizeof(f->detail), "cannot read the symlink: %s", strerror(errno));
                return;
        }
        target[n] = 0;
        snprintf(dir, sizeof(dir), "/%.*s", slash ? (int) (slash - path) : 0, path);
        if (symlink_names(dir, target, DBUS_MACHINE_ID_TARGET)) {
                f->state = IMAGE_CLEAN;
                return;
        }
        f->state = IMAGE_FOUND;
        snprintf(f->detail, sizeof(f->detail), "a symlink to %.1024s, not to %s", target, DBUS_MACHINE_ID_TARGET);
}

/* One path: *f gets its state, detail and the action --fix takes. */
static void look(int root_fd, const ImageCheck *c, const char *path, ImageFinding *f) {
        _cleanup_close_ int dfd = -EBADF;
        const char *name;
        struct stat st;

        dfd = open_parent(root_fd, path, &name, f);
        if (dfd < 0) {
                if (dfd == -ENOENT)
                        f->state = IMAGE_ABSENT;
                return;
        }
        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                if (errno == ENOENT)
                        f->state = IMAGE_ABSENT;
                else {
                        f->state = IMAGE_UNUSUAL;
                        snprintf(f->detail, sizeof(f->detail), "cannot stat it: %s", strerror(errno));
                }
                return;
        }

        if (c->kind == IMAGE_DBUS_MACHINE_ID && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))) {
                look_dbus_machine_id(dfd, name, path, &st, f);
                if (f->state == IMAGE_FOUND)
                        f->action = IMAGE_ACTION_SYMLINK;
                return;
        }
        if (S_ISLNK(st.st_mode)) {
                set_symlink(f, dfd, name, path);
                return;
        }
        if (!S_ISREG(st.st_mode)) {
                f->state = IMAGE_UNUSUAL;
                snprintf(f->detail, sizeof(f->detail), "not a regular file (%s)", inode_type_to_string(st.st_mode));
                return;
        }
        if (c->kind == IMAGE_MACHINE_ID) {
                look_machine_id(dfd, name, f);
                if (f->state == IMAGE_FOUND)
                        f->action = IMAGE_ACTION_RESET;
                return;
        }
        f->state = IMAGE_FOUND;
        f->action = IMAGE_ACTION_REMOVE;
        snprintf(f->detail, sizeof(f->detail), "%lld bytes", (long long) st.st_size);
}

/* ---- Collecting ---- */

typedef struct FindingList {
        ImageFinding *f;
        size_t n, allocated;
} FindingList;

/* A symlink or an odd directory on the way to several paths is one thing
 * for a person to look at: reported with the first. */
static bool already_reported(const FindingList *l, const ImageFinding *f) {
        if (f->state != IMAGE_SYMLINK && f->state != IMAGE_UNUSUAL)
                return false;
        for (size_t i = 0; i < l->n; i++)
                if (l->f[i].state == f->state && streq(l->f[i].detail, f->detail))
                        return true;
        return false;
}

static int add_finding(FindingList *l, const ImageCheck *c, const char *path, ImageFinding *f) {
        if (f->state == IMAGE_ABSENT || f->state == IMAGE_CLEAN || already_reported(l, f))
                return 0;
        if (l->n == l->allocated) {
                size_t k = MAX(l->allocated * 2, (size_t) 16);
                ImageFinding *t = realloc(l->f, k * sizeof(ImageFinding));

                if (!t)
                        return -ENOMEM;
                l->f = t;
                l->allocated = k;
        }
        f->check = c;
        f->path = strdup(path);
        if (!f->path)
                return -ENOMEM;
        l->f[l->n++] = *f;
        return 0;
}

static bool is_checked_path(const ImageCheck *checks, size_t n, const char *path) {
        for (size_t i = 0; i < n; i++)
                if (!checks[i].directory && streq(checks[i].path, path))
                        return true;
        return false;
}

static int compare_strings(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Every file in the directory @c->path, but those checked on their own. */
static int scan_directory(int root_fd, const ImageCheck *c, const ImageCheck *checks, size_t n_checks,
                          FindingList *l) {
        _cleanup_strv_free_ char **names = NULL;
        ImageFinding f = {};
        size_t n = 0;
        DIR *d;
        int dfd, r = 0;

        dfd = walk_dir(root_fd, c->path, strlen(c->path), &f);
        if (dfd < 0)
                return dfd == -ENOENT ? 0 : add_finding(l, c, c->path, &f);
        d = fdopendir(dfd);
        if (!d) {
                safe_close(dfd);
                return -ENOMEM;
        }
        for (struct dirent *de; (de = readdir(d));) {
                char **t;

                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                t = realloc(names, (n + 2) * sizeof(char *));
                if (!t) {
                        r = -ENOMEM;
                        break;
                }
                names = t;
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

        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *path = NULL;

                if (asprintf(&path, "%s/%s", c->path, names[i]) < 0) {
                        path = NULL;
                        return -ENOMEM;
                }
                if (is_checked_path(checks, n_checks, path))
                        continue;
                f = (ImageFinding) {};
                look(root_fd, c, path, &f);
                r = add_finding(l, c, path, &f);
                if (r < 0)
                        return r;
        }
        return 0;
}

int image_scan(int root_fd, const ImageCheck *checks, size_t n_checks, ImageFinding **ret, size_t *ret_n) {
        FindingList l = {};
        int r = 0;

        for (size_t i = 0; i < n_checks && r >= 0; i++) {
                const ImageCheck *c = checks + i;
                ImageFinding f = {};

                if (c->directory) {
                        r = scan_directory(root_fd, c, checks, n_checks, &l);
                        continue;
                }
                look(root_fd, c, c->path, &f);
                r = add_finding(&l, c, c->path, &f);
        }
        if (r < 0) {
                image_findings_free(l.f, l.n);
                return r;
        }
        *ret = l.f;
        *ret_n = l.n;
        return 0;
}

/* ---- Fixing ---- */

/* The machine ID, replaced by rename: a file hard-linked into the image from
 * elsewhere keeps its content under its other name. Its mode and owner are
 * kept, whatever our umask. */
static int reset_machine_id(int dfd, const char *name, const struct stat *st, MachineIdReset reset) {
        static const char uninitialized[] = "uninitialized\n";
        _cleanup_close_ int fd = -EBADF;
        const char *text = reset == MACHINE_ID_RESET_EMPTY ? "" : uninitialized;
        struct stat now;
        int r;

        r = write_file_atomic_at(dfd, name, text, strlen(text), st->st_mode & 07777,
                                 WRITE_DURABLE | WRITE_UNIQUE_TMP);
        if (r < 0)
                return r;
        fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        if (fstat(fd, &now) < 0)
                return negative_errno();
        if ((now.st_uid != st->st_uid || now.st_gid != st->st_gid) && fchown(fd, st->st_uid, st->st_gid) < 0)
                return negative_errno();
        if (fchmod(fd, st->st_mode & 07777) < 0)
                return negative_errno();
        /* The mode and owner, too, before the image is shipped. */
        if (fsync(fd) < 0)
                return negative_errno();
        return 0;
}

/* Replace whatever is at @name (a file, or a symlink elsewhere) with a
 * symlink to /etc/machine-id, atomically: rename() replaces the name itself,
 * never what a symlink there points to. */
static int symlink_machine_id(int dfd, const char *name) {
        char tmp[NAME_MAX + 1];
        int k;

        k = snprintf(tmp, sizeof(tmp), ".#%s.%ld", name, (long) getpid());
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

int image_fix_one(int root_fd, const ImageFinding *f, MachineIdReset reset) {
        _cleanup_close_ int dfd = -EBADF;
        ImageFinding again = {};
        const char *name;
        struct stat st;
        int r;

        if (f->state != IMAGE_FOUND || f->action == IMAGE_ACTION_NONE)
                return -EINVAL;
        /* Walked again: only what is still there, reached without a symlink, is touched. */
        dfd = open_parent(root_fd, f->path, &name, &again);
        if (dfd < 0)
                return dfd == -ELOOP || dfd == -ENOTDIR ? -ESTALE : dfd;
        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return negative_errno();

        switch (f->action) {
        case IMAGE_ACTION_REMOVE:
                if (!S_ISREG(st.st_mode))
                        return -ESTALE;
                if (unlinkat(dfd, name, 0) < 0)
                        return negative_errno();
                r = 0;
                break;
        case IMAGE_ACTION_RESET:
                if (!S_ISREG(st.st_mode))
                        return -ESTALE;
                return reset_machine_id(dfd, name, &st, reset);
        case IMAGE_ACTION_SYMLINK:
                if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
                        return -ESTALE;
                r = symlink_machine_id(dfd, name);
                break;
        default:
                return -EINVAL;
        }
        if (r < 0)
                return r;
        /* A removal or a rename is on disk only once its directory is. */
        if (fsync(dfd) < 0)
                return negative_errno();
        return 0;
}
