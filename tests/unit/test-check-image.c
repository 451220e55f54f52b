// SPDX-License-Identifier: LGPL-2.1-or-later
/* check-image's logic below the CLI: the list of checks, what each state of
 * each path is, one report per symlink on the way, and fixes that touch
 * only what was found, where it was found. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "check-image.h"
#include "macro.h"
#include "test-util.h"

static void test_symlink_names(void **state) {
        static const struct { const char *dir, *target; bool want; } t[] = {
                { "/var/lib/dbus", "/etc/machine-id", true },
                { "/var/lib/dbus", "../../../etc/machine-id", true },
                { "/var/lib/dbus", "../../../../../etc/machine-id", true },   /* ".." stops at / */
                { "/var/lib/dbus", "//etc//./machine-id", true },
                /* ".." after a name of the target's: that name may be a
                 * link anywhere, and the text says nothing of where. */
                { "/var/lib/dbus", "/etc/../etc/machine-id", false },
                { "/var/lib/dbus", "/usr/lib/../../etc/machine-id", false },
                { "/var/lib/dbus", "../../../usr/lib/../../etc/machine-id", false },
                { "/var/lib/dbus", "../../../etc/x/../machine-id", false },
                { "/var/lib/dbus", "./../.././../etc/./machine-id", true },
                { "/var/lib/dbus", "../../etc/machine-id", false },           /* /var/etc/machine-id */
                { "/var/lib/dbus", "machine-id", false },
                { "/var/lib/dbus", "/etc/machine-id2", false },
                { "/var/lib/dbus", "/etc/machine", false },
                { "/var/lib/dbus", "/etc", false },
                { "/var/lib/dbus", "/", false },
                { "/var/lib/dbus", "", false },
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                print_message("case %zu: %s\n", i, t[i].target);
                assert_int_equal(symlink_names(t[i].dir, t[i].target, "/etc/machine-id"), t[i].want);
        }
}

static void test_strings(void **state) {
        for (int i = 0; i < _IMAGE_KIND_MAX; i++)
                assert_non_null(image_kind_to_string(i));
        for (int i = 0; i < _IMAGE_STATE_MAX; i++)
                assert_non_null(image_state_to_string(i));
        assert_null(image_action_to_string(IMAGE_ACTION_NONE));
        assert_string_equal(image_action_to_string(IMAGE_ACTION_SYMLINK), "symlink");
        assert_int_equal(machine_id_reset_from_string("uninitialized"), MACHINE_ID_RESET_UNINITIALIZED);
        assert_int_equal(machine_id_reset_from_string("empty"), MACHINE_ID_RESET_EMPTY);
        assert_int_equal(machine_id_reset_from_string("random"), -EINVAL);
        assert_int_equal(machine_id_reset_from_string(NULL), -EINVAL);
}

static void test_checks(void **state) {
        ImageCheck *c;
        size_t n;
        bool seed = false, memory = false, esp = false, dbus = false, dir = false;

        assert_int_equal(image_checks_build("/etc/entropy-gate/", &c, &n), 0);
        for (size_t i = 0; i < n; i++) {
                assert_true(c[i].path[0] != '/');
                assert_non_null(c[i].what);
                assert_non_null(c[i].why);
                seed |= streq(c[i].path, "etc/entropy-gate//seed") || streq(c[i].path, "etc/entropy-gate/seed");
                memory |= streq(c[i].path, "etc/entropy-gate/credentials") || streq(c[i].path, "etc/entropy-gate//credentials");
                esp |= streq(c[i].path, "boot/efi/loader/random-seed");
                dbus |= c[i].kind == IMAGE_DBUS_MACHINE_ID;
                dir |= c[i].directory && streq(c[i].path, "etc/seedrng");
        }
        assert_true(seed && memory && esp && dbus && dir);
        image_checks_free(c, n);
        /* Directory=/ puts the seed at the top of the image. */
        assert_int_equal(image_checks_build("/", &c, &n), 0);
        assert_string_equal(c[0].path, "seed");
        image_checks_free(c, n);
}

static ImageFinding *find(ImageFinding *f, size_t n, const char *path) {
        for (size_t i = 0; i < n; i++)
                if (streq(f[i].path, path))
                        return f + i;
        return NULL;
}

/* The finding for @path, which must be there. */
static ImageFinding *must_find(ImageFinding *f, size_t n, const char *path) {
        ImageFinding *x = find(f, n, path);

        if (!x) {
                fail_msg("no finding for %s", path);
                abort();
        }
        return x;
}

static void path_of(char *buf, const char *dir, const char *rel) {
        snprintf(buf, PATH_MAX * 2, "%s/%s", dir, rel);
}

static void test_scan_and_fix(void **state) {
        char dir[PATH_MAX], root[PATH_MAX + 8], outside[PATH_MAX + 8], p[PATH_MAX * 2], q[PATH_MAX * 2];
        _cleanup_close_ int root_fd = -EBADF;
        ImageCheck *c;
        ImageFinding *f, *x;
        size_t n_checks, n;
        struct stat st;
        mode_t old_umask;

        test_tmpdir(dir, "test-check-image");
        snprintf(root, sizeof(root), "%s/root", dir);
        snprintf(outside, sizeof(outside), "%s/outside", dir);
        test_mkdir_p(dir, "root");
        test_mkdir_p(dir, "outside");
        test_write_text(outside, "machine-id", "0123456789abcdef0123456789abcdef\n");
        test_write_text(outside, "seedrng/seed.credit", "secret");

        test_write_text(root, "var/lib/entropy-gate/seed", "seed");
        test_write_text(root, "var/lib/entropy-gate/credentials", "memory");
        test_write_text(root, "etc/seedrng/seed.credit", "seed");
        test_write_text(root, "etc/seedrng/seed.credit.tmp", "left over");
        test_mkdir_p(root, "etc/seedrng/subdir");
        test_write_text(root, "boot/efi/loader/random-seed", "loader");
        test_write_text(root, "var/lib/systemd/credential.secret", "secret");
        test_write(root, "etc/machine-id", "0123456789abcdef0123456789abcdef\n", 33, 0444);
        /* The machine ID hard-linked from outside the image: the fix must
         * replace the name, never write through it. */
        path_of(p, root, "etc/machine-id");
        assert_int_equal(unlink(p), 0);
        path_of(q, outside, "machine-id");
        assert_int_equal(link(q, p), 0);
        assert_int_equal(chmod(p, 0444), 0);
        /* A symlink on the way to two checked paths: one report. */
        path_of(p, root, "var/lib/seedrng");
        test_mkdir_p(root, "var/lib");
        path_of(q, outside, "seedrng");
        assert_int_equal(symlink(q, p), 0);
        /* D-Bus: a symlink elsewhere. */
        path_of(p, root, "var/lib/dbus/machine-id");
        test_mkdir_p(root, "var/lib/dbus");
        assert_int_equal(symlink("/run/machine-id", p), 0);

        assert_int_equal(image_checks_build("/var/lib/entropy-gate", &c, &n_checks), 0);
        root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(root_fd >= 0);
        assert_int_equal(image_scan(root_fd, 0, c, n_checks, &f, &n), 0);
        for (size_t i = 0; i < n; i++)
                print_message("%s: %s %s (%s)\n", f[i].path, image_state_to_string(f[i].state),
                              strna(image_action_to_string(f[i].action)), f[i].detail);

        x = must_find(f, n, "var/lib/entropy-gate/seed");
        assert_int_equal(x->action, IMAGE_ACTION_REMOVE);
        x = must_find(f, n, "var/lib/entropy-gate/credentials");
        assert_int_equal(x->check->kind, IMAGE_CREDENTIAL_MEMORY);
        x = must_find(f, n, "etc/seedrng/seed.credit.tmp");
        assert_int_equal(x->check->kind, IMAGE_LEGACY_SEED);
        assert_true(x->check->directory);
        x = must_find(f, n, "etc/seedrng/seed.credit");
        assert_false(x->check->directory);       /* with its own reason, once */
        x = must_find(f, n, "etc/seedrng/subdir");
        assert_int_equal(x->state, IMAGE_UNUSUAL);
        assert_int_equal(x->action, IMAGE_ACTION_NONE);
        x = must_find(f, n, "boot/efi/loader/random-seed");
        assert_int_equal(x->check->kind, IMAGE_LOADER_SEED);
        x = must_find(f, n, "var/lib/systemd/credential.secret");
        x = must_find(f, n, "etc/machine-id");
        assert_int_equal(x->action, IMAGE_ACTION_RESET);
        x = must_find(f, n, "var/lib/dbus/machine-id");
        assert_int_equal(x->action, IMAGE_ACTION_SYMLINK);
        assert_non_null(strstr(x->detail, "/run/machine-id"));
        x = must_find(f, n, "var/lib/seedrng/seed.credit");
        assert_int_equal(x->state, IMAGE_SYMLINK);
        assert_null(find(f, n, "var/lib/seedrng/seed.no-credit"));
        assert_null(find(f, n, "var/lib/seedrng"));

        /* Fix everything that has an action, under a umask that would
         * otherwise hide the machine ID from users. */
        old_umask = umask(077);
        for (size_t i = 0; i < n; i++)
                if (f[i].action != IMAGE_ACTION_NONE)
                        assert_int_equal(image_fix_one(root_fd, 0, f + i, MACHINE_ID_RESET_EMPTY), 0);
                else
                        assert_int_equal(image_fix_one(root_fd, 0, f + i, MACHINE_ID_RESET_EMPTY), -EINVAL);
        umask(old_umask);

        path_of(p, root, "etc/machine-id");
        assert_int_equal(stat(p, &st), 0);
        assert_int_equal(st.st_size, 0);
        assert_int_equal(st.st_mode & 07777, 0444);
        assert_int_equal(st.st_nlink, 1);
        path_of(q, outside, "machine-id");
        assert_int_equal(stat(q, &st), 0);
        assert_int_equal(st.st_size, 33);         /* the other name keeps its content */
        path_of(p, root, "var/lib/dbus/machine-id");
        {
                char target[64] = "";
                assert_int_equal(readlink(p, target, sizeof(target) - 1), (ssize_t) strlen("/etc/machine-id"));
                assert_string_equal(target, "/etc/machine-id");
        }
        path_of(q, outside, "seedrng/seed.credit");
        assert_int_equal(stat(q, &st), 0);
        image_findings_free(f, n);

        /* Clean now, but for what a person must look at. */
        assert_int_equal(image_scan(root_fd, 0, c, n_checks, &f, &n), 0);
        for (size_t i = 0; i < n; i++)
                assert_int_equal(f[i].action, IMAGE_ACTION_NONE);
        assert_int_equal(n, 2);   /* the symlinked /var/lib/seedrng, the subdirectory */
        image_findings_free(f, n);

        /* Changed between the look and the fix: a symlink now, not touched. */
        test_write_text(root, "etc/urandom.seed", "seed");
        assert_int_equal(image_scan(root_fd, 0, c, n_checks, &f, &n), 0);
        x = must_find(f, n, "etc/urandom.seed");
        path_of(p, root, "etc/urandom.seed");
        assert_int_equal(unlink(p), 0);
        path_of(q, outside, "machine-id");
        assert_int_equal(symlink(q, p), 0);
        assert_int_equal(image_fix_one(root_fd, 0, x, MACHINE_ID_RESET_UNINITIALIZED), -ESTALE);
        assert_int_equal(lstat(p, &st), 0);
        assert_true(S_ISLNK(st.st_mode));
        assert_int_equal(stat(q, &st), 0);
        assert_int_equal(st.st_size, 33);
        image_findings_free(f, n);

        image_checks_free(c, n_checks);
        test_rm_rf(dir);
}


static void test_checks_refuse(void **state) {
        static const char *const bad[] = { "relative", "/srv/../x", "/srv/./x", "/srv//x", "/..", "" };
        ImageCheck *c;
        size_t n;

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                print_message("case %zu: %s\n", i, bad[i]);
                assert_int_equal(image_checks_build(bad[i], &c, &n), -EINVAL);
        }
        assert_int_equal(image_checks_build("/srv/eg//", &c, &n), 0);
        assert_string_equal(c[0].path, "srv/eg/seed");
        image_checks_free(c, n);
}

/* Each offending path once, whatever the details say: two symlinks whose
 * paths agree in their first 1200 bytes and point at the same target are
 * two findings; one symlink on the way to three paths is one. */
static void test_each_path_once(void **state) {
        char dir[PATH_MAX], root[PATH_MAX + 8], seed_dir[1300], p[PATH_MAX * 2];
        _cleanup_close_ int root_fd = -EBADF;
        ImageCheck *c;
        ImageFinding *f;
        size_t n_checks, n, boot = 0;

        test_tmpdir(dir, "test-check-image-once");
        snprintf(root, sizeof(root), "%s/root", dir);
        test_mkdir_p(dir, "root");
        strcpy(seed_dir, "/srv");
        for (int i = 0; i < 6; i++)
                snprintf(seed_dir + strlen(seed_dir), sizeof(seed_dir) - strlen(seed_dir), "/%0200d", i);
        test_mkdir_p(root, seed_dir + 1);
        snprintf(p, sizeof(p), "%s%s/seed", root, seed_dir);
        assert_int_equal(symlink("/nowhere", p), 0);
        snprintf(p, sizeof(p), "%s%s/credentials", root, seed_dir);
        assert_int_equal(symlink("/nowhere", p), 0);
        snprintf(p, sizeof(p), "%s/boot", root);
        assert_int_equal(symlink("/nowhere", p), 0);

        assert_int_equal(image_checks_build(seed_dir, &c, &n_checks), 0);
        root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(root_fd >= 0);
        assert_int_equal(image_scan(root_fd, 0, c, n_checks, &f, &n), 0);
        assert_int_equal(must_find(f, n, c[0].path)->state, IMAGE_SYMLINK);
        assert_int_equal(must_find(f, n, c[1].path)->state, IMAGE_SYMLINK);
        for (size_t i = 0; i < n; i++)
                boot += streq(f[i].where, "boot");
        assert_int_equal(boot, 1);
        image_findings_free(f, n);
        image_checks_free(c, n_checks);
        test_rm_rf(dir);
}

/* A fix acts on the very file found, by its name only. */
static void test_fix_identity(void **state) {
        char dir[PATH_MAX], root[PATH_MAX + 8], outside[PATH_MAX + 8], p[PATH_MAX * 2], q[PATH_MAX * 2];
        _cleanup_close_ int root_fd = -EBADF;
        ImageCheck *c;
        ImageFinding *f, *x;
        size_t n_checks, n;
        struct stat st, before;

        test_tmpdir(dir, "test-check-image-identity");
        snprintf(root, sizeof(root), "%s/root", dir);
        snprintf(outside, sizeof(outside), "%s/outside", dir);
        test_mkdir_p(dir, "root");
        test_mkdir_p(dir, "outside");
        test_write_text(outside, "seed", "the host's");
        test_write_text(root, "etc/urandom.seed", "seed");
        test_mkdir_p(root, "var/lib/entropy-gate");
        path_of(p, root, "var/lib/entropy-gate/seed");
        path_of(q, outside, "seed");
        assert_int_equal(link(q, p), 0);
        assert_int_equal(stat(q, &before), 0);

        assert_int_equal(image_checks_build("/var/lib/entropy-gate", &c, &n_checks), 0);
        root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(root_fd >= 0);
        assert_int_equal(image_scan(root_fd, 0, c, n_checks, &f, &n), 0);

        /* Hard-linked from outside: the name goes, the file stays as it was. */
        x = must_find(f, n, "var/lib/entropy-gate/seed");
        assert_non_null(strstr(x->detail, "2 links"));
        assert_int_equal(image_fix_one(root_fd, 0, x, MACHINE_ID_RESET_UNINITIALIZED), 0);
        assert_int_equal(lstat(p, &st), -1);
        assert_int_equal(stat(q, &st), 0);
        assert_int_equal(st.st_size, before.st_size);
        assert_int_equal(st.st_mtim.tv_sec, before.st_mtim.tv_sec);
        assert_int_equal(st.st_mtim.tv_nsec, before.st_mtim.tv_nsec);

        /* Another file put in its place since: not touched. */
        x = must_find(f, n, "etc/urandom.seed");
        path_of(p, root, "etc/urandom.seed");
        assert_int_equal(unlink(p), 0);
        test_write_text(root, "etc/urandom.seed", "another");
        assert_int_equal(image_fix_one(root_fd, 0, x, MACHINE_ID_RESET_UNINITIALIZED), -ESTALE);
        assert_int_equal(stat(p, &st), 0);

        image_findings_free(f, n);
        image_checks_free(c, n_checks);
        test_rm_rf(dir);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_symlink_names),
                cmocka_unit_test(test_strings),
                cmocka_unit_test(test_checks),
                cmocka_unit_test(test_scan_and_fix),
                cmocka_unit_test(test_checks_refuse),
                cmocka_unit_test(test_each_path_once),
                cmocka_unit_test(test_fix_identity),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
