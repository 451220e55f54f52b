/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What in an image's root tree every clone booted from it would share:
 * seeds, secrets and identities that belong to one machine.
 *
 * The tree may be hostile (downloaded, or built by someone else). Every
 * path is walked below the root's fd one component at a time through the
 * resolver (root.h), each component opened relative to the directory fd
 * the step before returned: no "..", no symlink followed (a symlink met on
 * the way is a finding, never a way out), and no mount point crossed (a
 * finding too) unless IMAGE_CROSS_MOUNTS. Every change --fix makes is an
 * unlink, a create or a rename relative to such a directory fd: a file
 * hard-linked into the tree from elsewhere loses a name, its content is
 * never written. */

typedef enum ImageKind {
        IMAGE_SEED,                  /* our seed, where the image's configuration puts it */
        IMAGE_CREDENTIAL_MEMORY,     /* our memory of credited credentials, next to it */
        IMAGE_LEGACY_SEED,           /* a seed of another tool (seed-store.h) */
        IMAGE_LOADER_SEED,           /* systemd-boot's seed on an ESP */
        IMAGE_CREDENTIAL_SECRET,     /* systemd's credential encryption key */
        IMAGE_SEED_CREDENTIAL,       /* our seed credential, stored where systemd finds it */
        IMAGE_MACHINE_ID,            /* /etc/machine-id */
        IMAGE_DBUS_MACHINE_ID,       /* /var/lib/dbus/machine-id */
        _IMAGE_KIND_MAX,
} ImageKind;

typedef enum ImageState {
        IMAGE_ABSENT,                /* nothing there: fine */
        IMAGE_CLEAN,                 /* there, but shares nothing */
        IMAGE_FOUND,                 /* something every clone would share */
        IMAGE_SYMLINK,               /* a symlink (at the path or on the way): never followed */
        IMAGE_UNUSUAL,               /* not a regular file, or unreadable */
        IMAGE_MOUNT_POINT,           /* a mount point (at the path or on the way): not crossed */
        _IMAGE_STATE_MAX,
} ImageState;

/* What --fix does about a finding. */
typedef enum ImageAction {
        IMAGE_ACTION_NONE,           /* nothing: left for a person to check */
        IMAGE_ACTION_REMOVE,         /* unlink the file */
        IMAGE_ACTION_RESET,          /* replace the machine ID with "uninitialized" or nothing */
        IMAGE_ACTION_SYMLINK,        /* replace with a symlink to /etc/machine-id */
        _IMAGE_ACTION_MAX,
} ImageAction;

/* What --fix writes to /etc/machine-id (--machine-id=). */
typedef enum MachineIdReset {
        MACHINE_ID_RESET_UNINITIALIZED,  /* systemd's first boot: a new ID, committed once /etc is writable */
        MACHINE_ID_RESET_EMPTY,          /* an empty file: a new ID at every boot until one is written */
        _MACHINE_ID_RESET_MAX,
        _MACHINE_ID_RESET_INVALID = -EINVAL,
} MachineIdReset;

const char *image_kind_to_string(ImageKind k);
const char *image_state_to_string(ImageState s);
const char *image_action_to_string(ImageAction a);
const char *machine_id_reset_to_string(MachineIdReset m);
MachineIdReset machine_id_reset_from_string(const char *s);

typedef enum ImageFlags {
        /* Walk into file systems mounted inside the tree (an ESP, a
         * separate /var), which are otherwise reported, not entered. */
        IMAGE_CROSS_MOUNTS = 1 << 0,
        /* --fix may change a directory that is this system's own (the same
         * directory as the path of the same name on this system: a bind
         * mount of its /etc), which is otherwise refused. */
        IMAGE_FORCE        = 1 << 1,
} ImageFlags;

/* image_fix_one(): the file is this system's own, reached through the tree
 * (a bind mount of this system's directory, with IMAGE_CROSS_MOUNTS), and
 * IMAGE_FORCE was not given. */
#define IMAGE_ERR_SYSTEM_FILE (-ENOTUNIQ)

typedef struct ImageCheck {
        const char *path;            /* relative to the root, e.g. "var/lib/entropy-gate/seed" */
        ImageKind kind;
        bool directory;              /* every file in the directory @path is a finding */
        const char *what;            /* "entropy-gate seed", "systemd random seed", ... */
        const char *why;             /* why sharing it matters */
        bool each;                   /* @path is "DIR/" "*SUFFIX/NAME": NAME in each directory of
                                      * DIR whose name ends in SUFFIX */
} ImageCheck;

/* Everything to look at in an image whose configuration puts our seed in
 * @seed_dir (absolute and normalized, as the image sees it; trailing
 * slashes are dropped): our seed and credential memory, every legacy seed
 * and SeedRNG's directories (seed-store.h), systemd-boot's seed on each
 * ESP mount point, systemd's credential secret, our seed credential where
 * systemd or systemd-stub would pass it to every boot, and both machine IDs. A
 * new array of *ret_n checks: free with image_checks_free(). 0, -EINVAL
 * for a @seed_dir with a "." or ".." or empty component, or -ENOMEM. */
int image_checks_build(const char *seed_dir, ImageCheck **ret, size_t *ret_n);
void image_checks_free(ImageCheck *checks, size_t n);

typedef struct ImageFinding {
        const ImageCheck *check;
        char *path;                  /* relative to the root: the check's, or a file in its directory */
        char *where;                 /* what is wrong, relative to the root: @path, or the symlink,
                                      * mount point or odd directory on the way to it */
        ImageState state;
        ImageAction action;          /* what --fix does; NONE for symlinks and anything unusual */
        char *detail;                /* "512 bytes", "holds a machine ID", which symlink and its target */
        dev_t dev;                   /* the file found (FOUND): --fix acts only on this one */
        ino_t ino;
        uint64_t handle;             /* a hash of its file handle (inode and generation): an inode
                                      * number reused by a file made since is another file; 0: none */
} ImageFinding;

/* Look at every check below the directory @root_fd, as the header says.
 * The findings (state FOUND, SYMLINK, UNUSUAL or MOUNT_POINT), in the
 * order of the checks, go to a new array: free with image_findings_free().
 * Each offending path (@where) is reported once, with the first check that
 * met it, however many paths it is on the way to. The cost is linear in
 * the number of entries looked at (n log n: one sort of each directory
 * scanned and one of the findings). 0 or -ENOMEM. */
int image_scan(int root_fd, ImageFlags flags, const ImageCheck *checks, size_t n_checks, ImageFinding **ret,
               size_t *ret_n);
void image_findings_free(ImageFinding *findings, size_t n);

/* Carry out @f->action below @root_fd: the path is walked again the same
 * way and the file must still be the one found, and where it was found
 * (-ESTALE otherwise; -EXDEV when a mount point is now on the way;
 * IMAGE_ERR_SYSTEM_FILE, see above). Everything changed is fsync()ed, file
 * and directory: the image is about to be shipped. 0 or -errno. */
int image_fix_one(int root_fd, ImageFlags flags, const ImageFinding *f, MachineIdReset reset);

/* Pure: does the symlink text @target, in the directory @dir (absolute),
 * name the absolute path @want? Lexically, "." and ".." and repeated
 * slashes resolved, as the booted image would resolve it if no component
 * on the way were a symlink. */
bool symlink_names(const char *dir, const char *target, const char *want);
