/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <limits.h>
#include <stdbool.h>

/* /etc/fstab, read only for one question: is a path on a network file
 * system? The seed helper is ordered after every mount on the way to its
 * directory (RequiresMountsFor=), and systemd orders a network mount after
 * network-online.target: then whatever brings the network up runs before
 * the gate, and gating it would close an ordering cycle. */

/* Refuse to look at an fstab longer than this (a real one is a few
 * hundred bytes): the generator runs at every boot. */
#define FSTAB_MAX (256U * 1024U)

/* Pure: whether systemd treats file system type @fstype as a network one
 * (its fstype_is_network(): "fuse.X" is X). */
bool fstype_is_network(const char *fstype);

typedef struct FstabMount {
        char where[PATH_MAX];   /* the mount point, unescaped and normalized */
        char fstype[64];
        bool netdev;            /* by its options, whatever its type: see @by */
        const char *by;         /* which options, in words: "_netdev", ...; NULL by type alone */
} FstabMount;

/* Pure: of the entries in fstab @text, the network mount (a network type
 * or the _netdev option, as systemd's fstab generator decides) whose mount
 * point is @path or one of its parents, the nearest to @path when there are
 * several. The root file system's entry is never one: it is mounted before
 * systemd starts. Fields are split at blanks and unescaped as libmount does
 * (\040 a space, any \ and three octal digits); a line with fewer than three
 * fields, a mount point that is not absolute or has a ".." component, or a
 * field too long to hold, is ignored, as a line that means nothing; but a
 * mount on the way whose options are too long to read is taken for a
 * network one (systemd reads them). Options that order the mount after
 * other units or mounts (x-systemd.after=, x-systemd.requires=,
 * x-systemd.requires-mounts-for=, x-systemd.wants-mounts-for=: the
 * documented way to put a block device that needs the network after it)
 * make it one too: those units may be the network's.
 * Returns 1 and fills @ret when there is one, 0 when not. */
int fstab_find_network_mount(const char *text, const char *path, FstabMount *ret);
