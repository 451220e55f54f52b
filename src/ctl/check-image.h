/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

/* What in an image's root tree every clone booted from it would share. */

typedef enum ImageKind {
        IMAGE_SEED,                  /* a seed file, ours or a legacy one */
        IMAGE_MACHINE_ID,
} ImageKind;

typedef enum ImageState {
        IMAGE_ABSENT,                /* nothing there: fine */
        IMAGE_CLEAN,                 /* there, but shares nothing (machine-id "uninitialized" or empty) */
        IMAGE_FOUND,                 /* a file every clone would share */
        IMAGE_SYMLINK,               /* a symlink (at the path or on the way): never followed */
        IMAGE_ODD,                   /* not a regular file, or unreadable */
} ImageState;

typedef struct ImageCheck {
        const char *path;            /* relative to the root, e.g. "var/lib/entropy-gate/seed" */
        ImageKind kind;
        const char *what;            /* "entropy-gate seed", "systemd random seed", ... */
        const char *why;             /* why sharing it matters */
} ImageCheck;

/* Everything to look at in an image whose configuration puts our seed in
 * @seed_dir (absolute, as the image sees it): our seed, every legacy seed
 * (seed-store.h) and the machine-id. A new array of *ret_n checks, whose
 * strings point into @seed_dir's copy it holds: free with
 * image_checks_free(). 0 or -ENOMEM. */
int image_checks_build(const char *seed_dir, ImageCheck **ret, size_t *ret_n);
void image_checks_free(ImageCheck *checks, size_t n);

typedef struct ImageFinding {
        ImageState state;
        char detail[512];            /* for IMAGE_SYMLINK: which component, and where it points */
} ImageFinding;

/* Look at @c under the root directory @root_fd without following any
 * symlink: every component is opened with O_NOFOLLOW relative to the one
 * before. Returns 0 and fills *ret, or -ENOMEM. */
int image_check_one(int root_fd, const ImageCheck *c, ImageFinding *ret);

/* Make @c safe in the image: remove a seed file, write "uninitialized\n"
 * to the machine-id. Only for IMAGE_FOUND (regular files reached without
 * any symlink); the path is walked again the same way. 0 or -errno. */
int image_fix_one(int root_fd, const ImageCheck *c);
