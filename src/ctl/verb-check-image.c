// SPDX-License-Identifier: LGPL-2.1-or-later
/* entropyctl check-image [--root=]ROOT [--fix [--force]] [--machine-id=uninitialized|empty] [--cross-mounts] */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

#include "check-image.h"
#include "config.h"
#include "ctl.h"
#include "json.h"
#include "log.h"
#include "macro.h"
#include "paths.h"
#include "root.h"
#include "terminal.h"

typedef struct FixResult {
        bool fixed;
        int error;                   /* < 0: why the fix failed */
} FixResult;

/* The image's configuration, read inside it (links followed, never out of
 * it), from the very directory @image_fd is, under the tree's mount rule
 * (root_set_tree()): a file or drop-in across a mount point it does not
 * cross is unreadable, and the configuration broken. */
static int load_image_config(const char *root, int image_fd, bool cross_mounts, Config *ret) {
        struct stat a, b;
        int r;

        r = root_set(root);
        if (r < 0) {
                /* Too long for the paths below it to be named. */
                (void) config_init(ret);
                return r;
        }
        root_set_tree(cross_mounts ? CHASE_MOUNTS_IN_TREE : CHASE_NO_XDEV);
        /* ROOT opened twice: the same directory both times, or nothing. */
        r = root_fd();
        if (r >= 0 && fstat(r, &b) < 0)
                r = negative_errno();
        if (r >= 0 && fstat(image_fd, &a) < 0)
                r = negative_errno();
        if (r >= 0 && (a.st_dev != b.st_dev || a.st_ino != b.st_ino))
                r = -ESTALE;
        if (r >= 0)
                r = config_load(ret, log_config_warning, NULL);
        else
                (void) config_init(ret);
        (void) root_set(NULL);
        return r;
}

static bool endswith_slash(const char *s) {
        size_t l = strlen(s);
        return l > 0 && s[l - 1] == '/';
}

static const char *fix_error_string(int r) {
        switch (r) {
        case -ESTALE:
                return "it changed since it was looked at";
        case -EXDEV:
                return "a mount point is now on the way to it: not crossed";
        case IMAGE_ERR_SYSTEM_FILE:
                return "it is this system's own file, reached through a mount in the tree: refused without --force";
        default:
                return strerror(-r);
        }
}

static const char *fixed_text(const ImageFinding *f, MachineIdReset reset) {
        switch (f->action) {
        case IMAGE_ACTION_REMOVE:
                return "removed";
        case IMAGE_ACTION_RESET:
                return reset == MACHINE_ID_RESET_EMPTY ? "emptied" : "set to \"uninitialized\"";
        case IMAGE_ACTION_SYMLINK:
                return "replaced by a symlink to /etc/machine-id";
        default:
                return "left in place";
        }
}

static void print_human(const char *root, const Config *config, const char *seed_dir, const ImageFinding *f,
                        size_t n, const FixResult *fr, bool fix, MachineIdReset reset) {
        unsigned left = 0;

        if (config->broken)
                printf("%sconfiguration:%s %s\n    the seed directory it names is unknown: only %s was checked%s\n",
                       ansi_yellow(), ansi_normal(), TERMINAL_ESCAPE(config->broken),
                       TERMINAL_ESCAPE(seed_dir), fix ? " and fixed" : "");

        for (size_t i = 0; i < n; i++) {
                const char *color = f[i].state == IMAGE_FOUND ? ansi_red() : ansi_yellow();

                /* Names come from the image: shown, never obeyed by the terminal. */
                printf("%s/%s%s: %s", color, TERMINAL_ESCAPE(f[i].path), ansi_normal(), f[i].check->what);
                if (f[i].state == IMAGE_FOUND)
                        printf(" (%s)\n    %s\n", TERMINAL_ESCAPE(f[i].detail), f[i].check->why);
                else
                        printf(": %s\n    %s\n", TERMINAL_ESCAPE(f[i].detail),
                               f[i].state == IMAGE_SYMLINK ? "suspicious in an image: check it by hand" :
                               f[i].state == IMAGE_MOUNT_POINT ? "not checked: what is mounted there is not the "
                               "image's own tree; --cross-mounts walks into it if nothing outside the tree mounts it" :
                               "check it by hand");
                if (fr[i].fixed)
                        printf("    %sfixed:%s %s\n", ansi_green(), ansi_normal(), fixed_text(f + i, reset));
                else {
                        if (fix && fr[i].error < 0)
                                printf("    %snot fixed:%s %s\n", ansi_red(), ansi_normal(), fix_error_string(fr[i].error));
                        else if (fix)
                                printf("    %sleft in place%s\n", ansi_yellow(), ansi_normal());
                        left++;
                }
        }

        if (n == 0)
                printf("%s: %sclean%s: no seed, secret or machine ID that clones would share.\n",
                       root, config->broken ? ansi_yellow() : ansi_green(), ansi_normal());
        else if (left == 0)
                printf("%s: fixed %zu finding%s.\n", root, n, n == 1 ? "" : "s");
        else
                printf("%s: %u finding%s%s.\n", root, left, left == 1 ? "" : "s",
                       fix ? " left" : "; --fix removes the seeds and secrets and resets the machine IDs");
        if (config->broken)
                printf("%s: its configuration is broken: the check is not complete.\n", root);
}

/* A path in the JSON: a Directory= may be nearly PATH_MAX long, and the
 * files in it longer still; one cut short would name another file
 * ("credentials" as "cred"). Every path the checks build fits. */
#define JSON_PATH_MAX (PATH_MAX + NAME_MAX + 3)

/* "/PATH", with a "/" after a directory's: whole, or NULL (null). */
static const char *json_path(const char *path, bool directory, char buf[static JSON_PATH_MAX]) {
        int k = snprintf(buf, JSON_PATH_MAX, "/%s%s", path, directory ? "/" : "");

        return k < 0 || k >= JSON_PATH_MAX ? NULL : buf;
}

static void print_json(const CtlArgs *a, const char *root, const Config *config, const char *seed_dir,
                       const ImageCheck *checks, size_t n_checks, const ImageFinding *f, size_t n, const FixResult *fr,
                       MachineIdReset reset) {
        unsigned left = 0;
        JsonWriter j;

        json_init(&j, stdout, a->json);
        json_object_begin(&j, NULL);
        json_int(&j, "schema_version", 1);
        json_string(&j, "root", root);
        json_string(&j, "seed_directory", seed_dir);
        json_string(&j, "configuration_problem", config->broken);
        json_bool(&j, "fix", a->fix);
        json_string(&j, "machine_id_reset", a->fix ? machine_id_reset_to_string(reset) : NULL);

        json_array_begin(&j, "checked");
        for (size_t i = 0; i < n_checks; i++) {
                char path[JSON_PATH_MAX];

                json_string(&j, NULL, json_path(checks[i].path, checks[i].directory, path));
        }
        json_array_end(&j);

        json_array_begin(&j, "findings");
        for (size_t i = 0; i < n; i++) {
                char path[JSON_PATH_MAX];

                json_object_begin(&j, NULL);
                json_string(&j, "path", json_path(f[i].path, false, path));
                json_string(&j, "kind", image_kind_to_string(f[i].check->kind));
                json_string(&j, "what", f[i].check->what);
                json_string(&j, "why", f[i].check->why);
                json_string(&j, "state", image_state_to_string(f[i].state));
                json_string(&j, "detail", f[i].detail);
                json_string(&j, "action", image_action_to_string(f[i].action));
                json_bool(&j, "fixed", fr[i].fixed);
                json_string(&j, "error", fr[i].error < 0 ? fix_error_string(fr[i].error) : NULL);
                json_object_end(&j);
                if (!fr[i].fixed)
                        left++;
        }
        json_array_end(&j);
        json_int(&j, "left", left);
        json_object_end(&j);
}

int verb_check_image(int argc, char *argv[], const CtlArgs *a) {
        _cleanup_close_ int root_fd = -EBADF;
        _cleanup_free_ FixResult *fr = NULL;
        const char *root = argc > 1 ? argv[1] : a->root;
        MachineIdReset reset = a->machine_id >= 0 ? a->machine_id : MACHINE_ID_RESET_UNINITIALIZED;
        ImageCheck *checks = NULL;
        ImageFinding *findings = NULL;
        size_t n_checks = 0, n = 0, left = 0;
        ImageFlags flags = (a->cross_mounts ? IMAGE_CROSS_MOUNTS : 0) | (a->force ? IMAGE_FORCE : 0);
        const char *seed_dir;
        Config config;
        int r;

        if (argc > 1 && a->root) {
                log_error("Give the image root once: as --root= or as an argument.");
                return CTL_EXIT_USAGE;
        }
        if (!root) {
                log_error("Usage: entropyctl check-image [--root=]ROOT [--fix [--force]] [--machine-id=uninitialized|empty] "
                          "[--cross-mounts]");
                return CTL_EXIT_USAGE;
        }
        if ((a->force || a->machine_id >= 0) && !a->fix) {
                log_error("%s only makes sense with --fix.", a->force ? "--force" : "--machine-id=");
                return CTL_EXIT_USAGE;
        }

        /* The root itself may be a symlink (a build tool's choice); nothing below it is followed. */
        root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (root_fd < 0) {
                log_error_errno(errno, "Failed to open image root '%s': %m", root);
                return CTL_EXIT_FAILURE;
        }
        if (a->fix && !a->force) {
                /* However ROOT names it: /, /., a symlink, a bind mount of /, /proc/self/root. */
                r = fd_is_system_root(root_fd);
                if (r < 0) {
                        log_error_errno(r, "Failed to compare '%s' with the running system's root: %m", root);
                        return CTL_EXIT_FAILURE;
                }
                if (r > 0) {
                        log_error("Refusing --fix on '%s': it is this running system's own root, and --fix "
                                  "would reset this machine's ID and delete its seeds. Add --force if that is "
                                  "really meant (an image booted in a container, say).", root);
                        return CTL_EXIT_FAILURE;
                }
        }

        /* Our seed is where the image's own configuration puts it. A
         * configuration that is broken names no directory we could trust,
         * whatever its Directory= says (a valid one next to a bad line is
         * no better: --fix removes files there): the default one is
         * checked, and the check says it is not complete. */
        r = load_image_config(root, root_fd, a->cross_mounts, &config);
        if (r == -ESTALE) {
                log_error("Failed to open image root '%s': it changed while it was being opened.", root);
                config_done(&config);
                return CTL_EXIT_FAILURE;
        }
        seed_dir = config.broken ? SEED_DIR_DEFAULT : config.seed_dir;
        if (r >= 0)
                r = image_checks_build(seed_dir, &checks, &n_checks);
        if (r >= 0)
                r = image_scan(root_fd, flags, checks, n_checks, &findings, &n);
        if (r >= 0 && n > 0) {
                fr = calloc(n, sizeof(FixResult));
                if (!fr)
                        r = -ENOMEM;
        }
        if (r < 0) {
                log_error_errno(r, "Failed to check '%s': %m", root);
                goto finish;
        }

        for (size_t i = 0; i < n; i++) {
                if (!a->fix || findings[i].action == IMAGE_ACTION_NONE) {
                        left++;
                        continue;
                }
                r = image_fix_one(root_fd, flags, findings + i, reset);
                if (r < 0) {
                        log_error_errno(r, "Failed to fix %s%s%s: %s", root, endswith_slash(root) ? "" : "/",
                                        findings[i].path, fix_error_string(r));
                        fr[i].error = r;
                        left++;
                } else
                        fr[i].fixed = true;
        }

        if (a->json != JSON_FORMAT_OFF)
                print_json(a, root, &config, seed_dir, checks, n_checks, findings, n, fr, reset);
        else if (!a->quiet)
                print_human(root, &config, seed_dir, findings, n, fr, a->fix, reset);
        r = left == 0 && !config.broken ? CTL_EXIT_OK : CTL_EXIT_FAILURE;

finish:
        image_findings_free(findings, n);
        image_checks_free(checks, n_checks);
        config_done(&config);
        return r < 0 ? CTL_EXIT_FAILURE : r;
}
