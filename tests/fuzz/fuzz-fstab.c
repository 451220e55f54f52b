// SPDX-License-Identifier: LGPL-2.1-or-later
/* /etc/fstab is read by the generator at every boot, before any unit
 * starts: whoever writes it (an installer, an image builder, a package's
 * maintainer script) must not be able to crash the generator or make it
 * name a mount that is not on the way to the seed directory. On any bytes:
 * the answer is absolute, normalized, a parent of the path asked about (or
 * the path itself), never the root, and a network mount by type or
 * _netdev. */
#include <stdlib.h>
#include <string.h>

#include "fstab.h"
#include "fuzz.h"

static const char *const paths[] = {
        "/var/lib/entropy-gate", "/var", "/srv/seed", "/a b/c",
};

static void check(const char *path, const FstabMount *m) {
        size_t l = strnlen(m->where, sizeof(m->where));

        if (l == 0 || l >= sizeof(m->where) || m->where[0] != '/' || strcmp(m->where, "/") == 0)
                abort();
        if (m->where[l - 1] == '/' || strstr(m->where, "//") || strstr(m->where, "/./") ||
            strstr(m->where, "/../"))
                abort();
        if (strncmp(path, m->where, l) != 0 || (path[l] != '\0' && path[l] != '/'))
                abort();
        if (strnlen(m->fstype, sizeof(m->fstype)) >= sizeof(m->fstype))
                abort();
        if (!m->netdev && !fstype_is_network(m->fstype))
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = malloc(size + 1);

        if (!text)
                return 0;
        memcpy(text, data, size);
        text[size] = '\0';      /* as the generator reads it: READ_NUL_TERMINATE */
        for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
                FstabMount m;
                int r = fstab_find_network_mount(text, paths[i], &m);

                if (r < 0 || r > 1)
                        abort();
                if (r == 1)
                        check(paths[i], &m);
        }
        free(text);
        return 0;
}
