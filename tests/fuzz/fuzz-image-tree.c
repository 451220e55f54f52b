// SPDX-License-Identifier: LGPL-2.1-or-later
/* entropyctl check-image on random hostile trees. The input builds an
 * image tree (directories, files, symlinks with ".." and absolute targets,
 * hard links to files outside it, a configuration whose Directory= climbs
 * out with ".."; mounts are left to tests/hostile, which runs as root),
 * then the scan and every fix run on it, as `check-image --fix` does. Beside
 * the tree a canary directory stands for the building machine: the type,
 * size, content and mtime of everything in it must be the same after.
 *
 * Every target that leaves the tree is aimed at the canary, never at this
 * machine's own files, so that a bug found here destroys nothing but the
 * canary.
 *
 * Input, a sequence of operations, each an opcode byte and its arguments:
 *   path  = 1 byte n (1..4 components), n bytes, each an index into names[]
 *   0 mkdir path
 *   1 file path, 1 byte: length (or 0xff: a machine ID), then the bytes
 *   2 symlink path, 1 byte kind, 1 byte k, path: the target, by kind: the
 *     canary's absolute path, "../" k times then the canary, a relative
 *     path, an absolute path inside the image
 *   3 hard link path to canary file (1 byte index)
 *   4 hard link path to path (both in the tree)
 *   5 configuration: Directory= "/" then ".." k times then the canary or a
 *     path, as kind above
 *   6 flags: 1 byte (cross mounts, force, the machine ID reset) */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blake2s.h"
#include "check-image.h"
#include "config.h"
#include "fuzz.h"
#include "macro.h"
#include "paths.h"
#include "root.h"

static const char *const names[] = {
        "etc", "var", "lib", "systemd", "seedrng", "entropy-gate", "boot", "efi", "loader", "dbus",
        "urandom", "srv", "eg", "machine-id", "random-seed", "seed", "credentials", "credential.secret",
        "urandom.seed", "seed.credit", "seed.no-credit", "aws", "x", "..", ".",
};

/* The canary's files: where an escape from the tree would land. */
static const char *const canary_files[] = {
        "etc/machine-id", "etc/urandom.seed", "etc/seedrng/seed.credit", "var/lib/systemd/random-seed",
        "var/lib/systemd/credential.secret", "var/lib/entropy-gate/seed", "var/lib/entropy-gate/credentials",
        "var/lib/seedrng/seed.credit", "var/lib/dbus/machine-id", "boot/efi/loader/random-seed",
        "efi/loader/random-seed", "aws/credentials", "aws/seed", "srv/eg/seed",
};

static char base[PATH_MAX], canary[PATH_MAX + 16], tree[PATH_MAX + 16];
static uint8_t canary_digest[BLAKE2S_OUTBYTES];

typedef struct Input {
        const uint8_t *p;
        size_t left;
} Input;

static bool take(Input *in, uint8_t *ret) {
        if (in->left == 0)
                return false;
        *ret = *in->p++;
        in->left--;
        return true;
}

/* A path of names[] joined by '/'; *ret_plain: without "." or "..". */
static bool take_path(Input *in, char *buf, size_t size, bool *ret_plain) {
        uint8_t n, c;
        size_t l = 0;

        *ret_plain = true;
        if (!take(in, &n))
                return false;
        n = n % 4 + 1;
        buf[0] = 0;
        for (uint8_t i = 0; i < n; i++) {
                const char *name;
                int k;

                if (!take(in, &c))
                        return false;
                name = names[c % ELEMENTSOF(names)];
                if (streq(name, "..") || streq(name, "."))
                        *ret_plain = false;
                k = snprintf(buf + l, size - l, "%s%s", l ? "/" : "", name);
                if (k < 0 || (size_t) k >= size - l)
                        return false;
                l += (size_t) k;
        }
        return true;
}

/* The directory of @path's last component inside the tree, made as needed,
 * each component opened without following anything: building the tree
 * never writes through a link the input made. */
static int tree_parent(const char *path, const char **ret_name) {
        char buf[PATH_MAX], *p, *slash;
        int fd = open(tree, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        snprintf(buf, sizeof(buf), "%s", path);
        slash = strrchr(path, '/');
        *ret_name = slash ? slash + 1 : path;
        if (!slash)
                return fd;
        buf[slash - path] = 0;
        for (p = strtok(buf, "/"); p && fd >= 0; p = strtok(NULL, "/")) {
                int nfd;

                (void) mkdirat(fd, p, 0755);
                nfd = openat(fd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                close(fd);
                fd = nfd;
        }
        return fd;
}

static void make_target(uint8_t kind, uint8_t k, const char *path, char *buf, size_t size) {
        size_t l = 0;

        switch (kind % 4) {
        case 0:
                snprintf(buf, size, "%s/%s", canary, path);
                break;
        case 1:
                for (uint8_t i = 0; i < k % 8 + 1 && l + 3 < size; i++, l += 3)
                        memcpy(buf + l, "../", 3);
                /* The canary's path from the top: past the top, ".." stays there. */
                snprintf(buf + l, size - l, "%s/%s", canary + 1, path);
                break;
        case 2:
                snprintf(buf, size, "%s", path);
                break;
        default:
                snprintf(buf, size, "/%s", path);
                break;
        }
}

static void build(Input *in, ImageFlags *flags, MachineIdReset *reset) {
        uint8_t op, a, b;
        char path[PATH_MAX], path2[PATH_MAX], target[PATH_MAX * 2 + 64];
        bool plain, plain2;

        while (take(in, &op)) {
                const char *name;
                int dfd;

                switch (op % 7) {
                case 0:
                        if (!take_path(in, path, sizeof(path), &plain))
                                return;
                        if (plain && (dfd = tree_parent(path, &name)) >= 0) {
                                (void) mkdirat(dfd, name, 0755);
                                close(dfd);
                        }
                        break;
                case 1: {
                        uint8_t len, data[256];
                        static const char id[] = "0123456789abcdef0123456789abcdef\n";
                        size_t n = 0;

                        if (!take_path(in, path, sizeof(path), &plain) || !take(in, &len))
                                return;
                        if (len == 0xff) {
                                memcpy(data, id, sizeof(id) - 1);
                                n = sizeof(id) - 1;
                        } else
                                while (n < len && take(in, &data[n]))
                                        n++;
                        if (plain && (dfd = tree_parent(path, &name)) >= 0) {
                                int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);

                                if (fd >= 0) {
                                        (void) !write(fd, data, n);
                                        close(fd);
                                }
                                close(dfd);
                        }
                        break;
                }
                case 2:
                        if (!take_path(in, path, sizeof(path), &plain) || !take(in, &a) || !take(in, &b) ||
                            !take_path(in, path2, sizeof(path2), &plain2))
                                return;
                        make_target(a, b, path2, target, sizeof(target));
                        if (plain && (dfd = tree_parent(path, &name)) >= 0) {
                                (void) symlinkat(target, dfd, name);
                                close(dfd);
                        }
                        break;
                case 3:
                        if (!take_path(in, path, sizeof(path), &plain) || !take(in, &a))
                                return;
                        snprintf(target, sizeof(target), "%s/%s", canary, canary_files[a % ELEMENTSOF(canary_files)]);
                        if (plain && (dfd = tree_parent(path, &name)) >= 0) {
                                (void) linkat(AT_FDCWD, target, dfd, name, 0);
                                close(dfd);
                        }
                        break;
                case 4: {
                        int sfd;
                        const char *sname;

                        if (!take_path(in, path, sizeof(path), &plain) || !take_path(in, path2, sizeof(path2), &plain2))
                                return;
                        if (!plain || !plain2)
                                break;
                        sfd = tree_parent(path2, &sname);
                        dfd = sfd >= 0 ? tree_parent(path, &name) : -EBADF;
                        if (dfd >= 0)
                                (void) linkat(sfd, sname, dfd, name, 0);
                        safe_close(sfd);
                        safe_close(dfd);
                        break;
                }
                case 5: {
                        char text[sizeof(target) + 64];
                        size_t l = 1;
                        int fd;

                        if (!take(in, &a) || !take(in, &b) || !take_path(in, path, sizeof(path), &plain))
                                return;
                        target[0] = '/';
                        for (uint8_t i = 0; i < b % 8; i++, l += 3)
                                memcpy(target + l, "../", 3);
                        snprintf(target + l, sizeof(target) - l, "%s/%s", a & 1 ? canary + 1 : "", path);
                        snprintf(text, sizeof(text), "[Seed]\nDirectory=%s\n", target);
                        if ((dfd = tree_parent(&CONF_FILE[1], &name)) >= 0) {
                                (void) unlinkat(dfd, name, 0);
                                fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
                                if (fd >= 0) {
                                        (void) !write(fd, text, strlen(text));
                                        close(fd);
                                }
                                close(dfd);
                        }
                        break;
                }
                default:
                        if (!take(in, &a))
                                return;
                        *flags = (a & 1 ? IMAGE_CROSS_MOUNTS : 0) | (a & 2 ? IMAGE_FORCE : 0);
                        *reset = a & 4 ? MACHINE_ID_RESET_EMPTY : MACHINE_ID_RESET_UNINITIALIZED;
                        break;
                }
        }
}

/* Everything below @dfd, in a fixed order, into @s: names, types, sizes,
 * mtimes, contents, link targets. */
static void hash_tree(int dfd, Blake2s *s, unsigned depth) {
        _cleanup_strv_free_ char **list = NULL;
        size_t n = 0;
        DIR *d;
        int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (fd < 0 || depth > 16 || !(d = fdopendir(fd)))
                abort();
        for (struct dirent *de; (de = readdir(d));) {
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                list = realloc(list, (n + 2) * sizeof(char *));
                if (!list || !(list[n] = strdup(de->d_name)))
                        abort();
                list[++n] = NULL;
        }
        closedir(d);
        for (size_t i = 0; i < n; i++)
                for (size_t j = i + 1; j < n; j++)
                        if (strcmp(list[i], list[j]) > 0) {
                                char *t = list[i];
                                list[i] = list[j];
                                list[j] = t;
                        }
        for (size_t i = 0; i < n; i++) {
                struct stat st;
                char buf[4096];

                if (fstatat(dfd, list[i], &st, AT_SYMLINK_NOFOLLOW) < 0)
                        abort();
                blake2s_update(s, list[i], strlen(list[i]) + 1);
                blake2s_update(s, &st.st_mode, sizeof(st.st_mode));
                if (S_ISDIR(st.st_mode)) {
                        int sub = openat(dfd, list[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

                        if (sub < 0)
                                abort();
                        hash_tree(sub, s, depth + 1);
                        close(sub);
                } else if (S_ISLNK(st.st_mode)) {
                        ssize_t k = readlinkat(dfd, list[i], buf, sizeof(buf));

                        blake2s_update(s, buf, k > 0 ? (size_t) k : 0);
                } else {
                        int f = openat(dfd, list[i], O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
                        ssize_t k;

                        if (f < 0)
                                abort();
                        blake2s_update(s, &st.st_size, sizeof(st.st_size));
                        blake2s_update(s, &st.st_mtim, sizeof(st.st_mtim));
                        while ((k = read(f, buf, sizeof(buf))) > 0)
                                blake2s_update(s, buf, (size_t) k);
                        close(f);
                }
        }
}

static void digest_canary(uint8_t out[static BLAKE2S_OUTBYTES]) {
        Blake2s s;
        int fd = open(canary, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (fd < 0)
                abort();
        blake2s_init(&s, BLAKE2S_OUTBYTES);
        hash_tree(fd, &s, 0);
        blake2s_final(&s, out);
        close(fd);
}

static void rm_rf_at(int dfd, const char *name) {
        int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        DIR *d;

        if (fd >= 0 && (d = fdopendir(fd))) {
                for (struct dirent *de; (de = readdir(d));)
                        if (!streq(de->d_name, ".") && !streq(de->d_name, ".."))
                                rm_rf_at(dirfd(d), de->d_name);
                closedir(d);
                (void) unlinkat(dfd, name, AT_REMOVEDIR);
                return;
        }
        safe_close(fd);
        (void) unlinkat(dfd, name, 0);
}

static void cleanup(void) {
        if (base[0])
                rm_rf_at(AT_FDCWD, base);
}

static void setup(void) {
        const char *t = getenv("TMPDIR");

        snprintf(base, sizeof(base), "%s/fuzz-image-tree.XXXXXX", t && *t == '/' ? t : "/tmp");
        if (!mkdtemp(base))
                abort();
        atexit(cleanup);
        snprintf(canary, sizeof(canary), "%s/canary", base);
        snprintf(tree, sizeof(tree), "%s/tree", base);
        if (mkdir(canary, 0755) < 0)
                abort();
        for (size_t i = 0; i < ELEMENTSOF(canary_files); i++) {
                char p[PATH_MAX * 2];
                FILE *f;

                for (const char *s = canary_files[i]; (s = strchr(s, '/')); s++) {
                        snprintf(p, sizeof(p), "%s/%.*s", canary, (int) (s - canary_files[i]), canary_files[i]);
                        (void) mkdir(p, 0755);
                }
                snprintf(p, sizeof(p), "%s/%s", canary, canary_files[i]);
                f = fopen(p, "we");
                if (!f)
                        abort();
                fprintf(f, "%s\n", strstr(canary_files[i], "machine-id") ? "0123456789abcdef0123456789abcdef" :
                        "the building machine's own");
                fclose(f);
        }
        digest_canary(canary_digest);
}

static void no_warning(void *userdata, const char *source, unsigned line, const char *message) {
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        Input in = { data, size };
        ImageFlags flags = 0;
        MachineIdReset reset = MACHINE_ID_RESET_UNINITIALIZED;
        uint8_t after[BLAKE2S_OUTBYTES];
        ImageCheck *checks = NULL;
        ImageFinding *f = NULL;
        size_t n_checks = 0, n = 0;
        Config config;
        int root_fd, r;

        if (!base[0])
                setup();
        rm_rf_at(AT_FDCWD, tree);
        if (mkdir(tree, 0755) < 0)
                abort();
        build(&in, &flags, &reset);

        /* As verb_check_image() does it. */
        root_fd = open(tree, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (root_fd < 0 || root_set(tree) < 0)
                abort();
        if (config_load(&config, no_warning, NULL) < 0)
                abort();
        (void) root_set(NULL);
        r = image_checks_build(config.seed_dir, &checks, &n_checks);
        if (r < 0)
                abort();
        if (image_scan(root_fd, flags, checks, n_checks, &f, &n) < 0)
                abort();
        for (size_t i = 0; i < n; i++) {
                if (!f[i].path || !f[i].where || !f[i].detail || strstr(f[i].path, ".."))
                        abort();
                if (f[i].action != IMAGE_ACTION_NONE)
                        (void) image_fix_one(root_fd, flags, f + i, reset);
                /* Each offending path once. */
                for (size_t j = 0; j < i && n < 256; j++)
                        if (streq(f[i].where, f[j].where))
                                abort();
        }
        image_findings_free(f, n);
        image_checks_free(checks, n_checks);
        config_done(&config);
        close(root_fd);

        digest_canary(after);
        if (memcmp(after, canary_digest, sizeof(after)) != 0) {
                fprintf(stderr, "fuzz-image-tree: the canary beside the tree changed\n");
                abort();
        }
        return 0;
}
