// SPDX-License-Identifier: LGPL-2.1-or-later
#include <string.h>

#include "fstab.h"
#include "macro.h"

bool fstype_is_network(const char *fstype) {
        /* systemd's list (src/basic/mountpoint-util.c): its fstab generator
         * orders these after network-online.target. 9p is not on it: a
         * virtio 9p share needs no network. */
        static const char *const network[] = {
                "afs", "ceph", "cifs", "smb3", "smbfs", "sshfs", "ncpfs", "ncp", "nfs", "nfs4",
                "gfs", "gfs2", "glusterfs", "pvfs2", "ocfs2", "lustre", "davfs",
        };

        if (!fstype)
                return false;
        if (strncmp(fstype, "fuse.", 5) == 0)
                fstype += 5;
        for (size_t i = 0; i < ELEMENTSOF(network); i++)
                if (streq(fstype, network[i]))
                        return true;
        return false;
}

static bool is_blank(char c) {
        return c == ' ' || c == '\t';
}

static bool is_octal(char c) {
        return c >= '0' && c <= '7';
}

/* The next field of the line at *p (which ends at @end), unescaped into
 * @buf. Returns its length, -1 when the line has no more fields, -2 when the
 * field does not fit or unescapes to a NUL byte. */
static int next_field(const char **p, const char *end, char *buf, size_t size) {
        const char *s = *p;
        size_t n = 0;
        int r;

        while (s < end && is_blank(*s))
                s++;
        if (s >= end) {
                *p = s;
                return -1;
        }
        for (r = 0; s < end && !is_blank(*s); s++) {
                char c = *s;

                if (c == '\\' && end - s >= 4 && is_octal(s[1]) && is_octal(s[2]) && is_octal(s[3])) {
                        unsigned v = (unsigned) (s[1] - '0') * 64 + (unsigned) (s[2] - '0') * 8 + (unsigned) (s[3] - '0');
                        if (v == 0 || v > 255)
                                r = -2;
                        c = (char) v;
                        s += 3;
                }
                if (n + 1 >= size)
                        r = -2;
                else
                        buf[n++] = c;
        }
        *p = s;
        buf[n] = '\0';
        return r < 0 ? r : (int) n;
}

/* @where in place: absolute, "//" and "/./" collapsed, no trailing slash.
 * A ".." component is refused: which directory it names depends on
 * symbolic links, and systemd refuses such a mount point too. */
static bool where_normalize(char *where) {
        char *w = where;
        const char *r = where;

        if (*where != '/')
                return false;
        while (*r) {
                const char *e;
                size_t l;

                while (*r == '/')
                        r++;
                if (!*r)
                        break;
                e = strchrnul(r, '/');
                l = (size_t) (e - r);
                if (l == 1 && r[0] == '.') {
                        r = e;
                        continue;
                }
                if (l == 2 && r[0] == '.' && r[1] == '.')
                        return false;
                *w++ = '/';
                memmove(w, r, l);
                w += l;
                r = e;
        }
        if (w == where)
                *w++ = '/';
        *w = '\0';
        return true;
}

/* Whether one of the comma-separated @options is one of @names, alone or
 * with a value. */
static bool options_have(const char *options, const char *const *names, size_t n_names) {
        for (const char *o = options; *o; ) {
                size_t l = strcspn(o, ",");

                for (size_t i = 0; i < n_names; i++) {
                        size_t k = strlen(names[i]);

                        if ((l == k || (l > k && o[k] == '=')) && strncmp(o, names[i], k) == 0)
                                return true;
                }
                o += l;
                if (*o == ',')
                        o++;
        }
        return false;
}

/* _netdev, with a value or not (systemd ignores it). */
static bool options_have_netdev(const char *options) {
        static const char *const netdev[] = { "_netdev" };

        return options_have(options, netdev, ELEMENTSOF(netdev));
}

/* Options that order the mount after other units or mounts: then what
 * brings the network up may come before it. */
static bool options_order_after_units(const char *options) {
        static const char *const ordering[] = {
                "x-systemd.after", "x-systemd.requires", "x-systemd.requires-mounts-for",
                "x-systemd.wants-mounts-for",
        };

        return options_have(options, ordering, ELEMENTSOF(ordering));
}

/* @where is @path or a directory above it. */
static bool path_is_under(const char *path, const char *where) {
        size_t l = strlen(where);

        if (streq(where, "/"))
                return true;
        return strncmp(path, where, l) == 0 && (path[l] == '\0' || path[l] == '/');
}

int fstab_find_network_mount(const char *text, const char *path, FstabMount *ret) {
        FstabMount best = {};
        size_t best_len = 0;
        bool found = false;

        for (const char *line = text; line && *line; ) {
                const char *end = strchrnul(line, '\n'), *p = line;
                char spec[PATH_MAX], where[PATH_MAX], fstype[sizeof(best.fstype)], options[4096];
                const char *by;
                int r;

                line = *end ? end + 1 : NULL;
                /* A line ending in CR LF (an fstab edited elsewhere): libmount
                 * drops the CR, so "nfs\r" is nfs and "_netdev\r" is
                 * _netdev to systemd, and must be here. */
                if (end > p && end[-1] == '\r')
                        end--;

                while (p < end && is_blank(*p))
                        p++;
                if (p >= end || *p == '#')
                        continue;
                if (next_field(&p, end, spec, sizeof(spec)) < 0 ||
                    next_field(&p, end, where, sizeof(where)) < 0 ||
                    next_field(&p, end, fstype, sizeof(fstype)) < 0)
                        continue;
                r = next_field(&p, end, options, sizeof(options));
                if (r == -1)
                        options[0] = '\0';

                if (!where_normalize(where) || streq(where, "/") || !path_is_under(path, where))
                        continue;
                /* Options unread are options that may say _netdev. */
                by = r == -2 ? "options too long to read" :
                     options_have_netdev(options) ? "_netdev" :
                     options_order_after_units(options) ? "x-systemd ordering options" : NULL;
                if (!fstype_is_network(fstype) && !by)
                        continue;
                if (found && strlen(where) <= best_len)
                        continue;

                found = true;
                best_len = strlen(where);
                memcpy(best.where, where, best_len + 1);
                memcpy(best.fstype, fstype, strlen(fstype) + 1);
                best.netdev = by != NULL;
                best.by = by;
        }
        if (!found)
                return 0;
        *ret = best;
        return 1;
}
