// SPDX-License-Identifier: LGPL-2.1-or-later
#include <ctype.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "proc-cmdline.h"

#define CMDLINE_MAX (64 * 1024) /* the kernel's COMMAND_LINE_SIZE is at most a few KiB */

int proc_cmdline_read(char **ret) {
        const char *e = getenv("ENTROPY_GATE_PROC_CMDLINE");
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *buf = NULL;
        size_t n = 0;

        if (e) {
                buf = strdup(e);
                if (!buf)
                        return -ENOMEM;
                *ret = buf;
                buf = NULL;
                return 0;
        }

        fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        buf = malloc(CMDLINE_MAX + 1);
        if (!buf)
                return -ENOMEM;
        for (;;) {
                ssize_t k = read(fd, buf + n, CMDLINE_MAX - n);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (k == 0)
                        break;
                n += (size_t) k;
                if (n == CMDLINE_MAX)
                        return -E2BIG;
        }
        buf[n] = 0;
        *ret = buf;
        buf = NULL;
        return 0;
}

static bool key_equal(const char *a, size_t alen, const char *key) {
        if (strlen(key) != alen)
                return false;
        for (size_t i = 0; i < alen; i++) {
                char x = a[i] == '-' ? '_' : a[i], y = key[i] == '-' ? '_' : key[i];
                if (x != y)
                        return false;
        }
        return true;
}

int proc_cmdline_get_key(const char *cmdline, const char *key, char **ret_value) {
        char *found = NULL;
        int r = 0;

        for (const char *p = cmdline; *p;) {
                const char *word, *eq = NULL;
                size_t wlen;
                bool quoted = false;

                while (isspace((unsigned char) *p))
                        p++;
                if (!*p)
                        break;

                /* A word runs to the next space outside double quotes. */
                word = p;
                for (; *p && (quoted || !isspace((unsigned char) *p)); p++) {
                        if (*p == '"')
                                quoted = !quoted;
                        else if (*p == '=' && !eq && !quoted)
                                eq = p;
                }
                wlen = (size_t) (p - word);

                if (!key_equal(word, eq ? (size_t) (eq - word) : wlen, key))
                        continue;

                free(found);
                found = NULL;
                r = 1;
                if (eq) {
                        const char *v = eq + 1, *end = word + wlen;
                        char *o;

                        found = malloc((size_t) (end - v) + 1);
                        if (!found)
                                return -ENOMEM;
                        o = found;
                        for (; v < end; v++)
                                if (*v != '"')
                                        *o++ = *v;
                        *o = 0;
                }
        }

        *ret_value = found;
        return r;
}
