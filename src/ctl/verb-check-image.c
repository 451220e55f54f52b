// SPDX-License-Identifier: LGPL-2.1-or-later
/* entropyctl check-image ROOT [--fix] */
#include <fcntl.h>
#include <stdio.h>

#include "check-image.h"
#include "config.h"
#include "ctl.h"
#include "log.h"
#include "macro.h"
#include "root.h"

int verb_check_image(int argc, char *argv[], const CtlArgs *a) {
        _cleanup_close_ int root_fd = -EBADF;
        const char *root = argv[1];
        unsigned found = 0, left = 0;
        ImageCheck *checks = NULL;
        size_t n_checks = 0;
        Config config;
        int r;

        /* The root itself may be a symlink (a build tool's choice); nothing below it is followed. */
        root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (root_fd < 0) {
                log_error_errno(errno, "Failed to open image root %s: %m", root);
                return CTL_EXIT_FAILURE;
        }

        /* Our seed is where the image's own configuration puts it. */
        root_set(root);
        r = config_load(&config, log_config_warning, NULL);
        if (r >= 0)
                r = image_checks_build(config.seed_dir, &checks, &n_checks);
        config_done(&config);
        root_set(NULL);
        if (r < 0) {
                log_error_errno(r, "Out of memory");
                return CTL_EXIT_FAILURE;
        }

        for (size_t i = 0; i < n_checks; i++) {
                const ImageCheck *c = checks + i;
                ImageFinding f;

                (void) image_check_one(root_fd, c, &f);
                if (f.state == IMAGE_ABSENT || f.state == IMAGE_CLEAN)
                        continue;

                found++;
                if (f.state == IMAGE_FOUND)
                        printf("/%s: %s (%s)\n    %s\n", c->path, c->what, f.detail, c->why);
                else if (f.state == IMAGE_SYMLINK)
                        printf("/%s: %s: %s\n    suspicious in an image: check it by hand\n",
                               c->path, c->what, f.detail);
                else
                        printf("/%s: %s: %s\n    check it by hand\n", c->path, c->what, f.detail);

                if (!a->fix || f.state != IMAGE_FOUND) {
                        if (a->fix)
                                printf("    left in place\n");
                        left++;
                        continue;
                }
                r = image_fix_one(root_fd, c);
                if (r < 0) {
                        log_error_errno(r, "Failed to fix %s/%s: %m", root, c->path);
                        left++;
                } else
                        printf("    fixed: %s\n", c->kind == IMAGE_MACHINE_ID ? "set to \"uninitialized\"" : "removed");
        }

        image_checks_free(checks, n_checks);
        if (found == 0)
                printf("%s: clean: no seed and no machine ID that clones would share.\n", root);
        else if (left == 0)
                printf("%s: fixed %u finding%s.\n", root, found, found == 1 ? "" : "s");
        else
                printf("%s: %u finding%s%s.\n", root, left, left == 1 ? "" : "s",
                       a->fix ? " left" : "; --fix removes the seeds and resets the machine ID");
        return left == 0 ? CTL_EXIT_OK : CTL_EXIT_FAILURE;
}
