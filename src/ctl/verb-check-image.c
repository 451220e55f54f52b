// SPDX-License-Identifier: LGPL-2.1-or-later
/* entropyctl check-image ROOT [--fix] */
#include <fcntl.h>
#include <stdio.h>

#include "check-image.h"
#include "ctl.h"
#include "log.h"
#include "macro.h"

int verb_check_image(int argc, char *argv[], const CtlArgs *a) {
        _cleanup_close_ int root_fd = -EBADF;
        const char *root = argv[1];
        unsigned found = 0, left = 0;

        /* The root itself may be a symlink (a build tool's choice); nothing below it is followed. */
        root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (root_fd < 0) {
                log_error_errno(errno, "Failed to open image root %s: %m", root);
                return CTL_EXIT_FAILURE;
        }

        for (unsigned i = 0; i < image_checks_count; i++) {
                const ImageCheck *c = image_checks + i;
                ImageFinding f;
                int r;

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

        if (found == 0)
                printf("%s: clean: no seed and no machine ID that clones would share.\n", root);
        else if (left == 0)
                printf("%s: fixed %u finding%s.\n", root, found, found == 1 ? "" : "s");
        else
                printf("%s: %u finding%s%s.\n", root, left, left == 1 ? "" : "s",
                       a->fix ? " left" : "; --fix removes the seeds and resets the machine ID");
        return left == 0 ? CTL_EXIT_OK : CTL_EXIT_FAILURE;
}
