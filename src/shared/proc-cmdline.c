// SPDX-License-Identifier: LGPL-2.1-or-later
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io-util.h"
#include "macro.h"
#include "proc-cmdline.h"
#include "root.h"

#define CMDLINE_MAX (64 * 1024) /* the kernel's COMMAND_LINE_SIZE is at most a few KiB */

/* Inside a root, /proc/cmdline is resolved as every other path there:
 * symlinks are followed inside the root, never out of it, so an image whose
 * /proc links to the host's cannot make us read the host's files. */
static int read_in_root(const char *path, size_t max, char *buf, size_t *ret_size) {
        _cleanup_close_ int fd = -EBADF;
        FileStat fst;

        /* Opened for reading only if it is a regular file (as /proc's are). */
        fd = root_open_regular(path, 0, &fst);
        if (fd < 0)
                return fd;
        return read_fd_bounded_stat_into(fd, &fst, max, READ_NUL_TERMINATE, buf, ret_size);
}

int proc_cmdline_read_into(char *buf, size_t size) {
        size_t n, max;
        int r;

        if (size < 2)
                return -EINVAL;
        max = MIN(size, (size_t) CMDLINE_MAX + 2) - 2;
        if (root_is_tree()) {
                /* An image's kernel command line is its boot loader's, and
                 * cannot be known from its tree; a procfs mounted there
                 * (a chroot build) is the build host's. */
                buf[0] = 0;
                return 0;
        }
        if (root_get())
                r = read_in_root("/proc/cmdline", max, buf, &n);
        else
                r = read_virtual_file_into("/proc/cmdline", max, buf, &n);
        if (r == -ENOENT && root_get()) {
                /* An image's tree has no running kernel. */
                buf[0] = 0;
                return 0;
        }
        return r == -EFBIG ? -E2BIG : r;
}

int proc_cmdline_read(char **ret) {
        _cleanup_free_ char *buf = NULL;
        int r;

        buf = malloc(CMDLINE_MAX + 2);
        if (!buf)
                return -ENOMEM;
        r = proc_cmdline_read_into(buf, CMDLINE_MAX + 2);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(buf);
        return 0;
}

/* The kernel's isspace() (lib/ctype.c, _ctype[]: the bytes marked _S):
 * HT, LF, VT, FF, CR, space and, from Latin-1, NBSP (0xA0). No locale:
 * the kernel knows none, and 0xA0 splits even where it is the second byte
 * of a UTF-8 sequence ("\xc3\xa0" is two words' worth to the kernel). */
bool proc_cmdline_isspace(char c) {
        unsigned char u = (unsigned char) c;

        return u == ' ' || (u >= '\t' && u <= '\r') || u == 0xa0;
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

/* One parameter, as the kernel's next_arg() splits it. */
typedef struct Param {
        const char *name;
        size_t name_len;
        const char *value;           /* NULL: a bare name */
        size_t value_len;
} Param;

/* The next parameter from *@p, advancing it; false at the end. */
static bool next_param(const char **p, Param *ret) {
        const char *word, *end, *val = NULL;
        bool in_quote = false, quoted = false, stripped = false;
        size_t i, equals = 0;

        while (proc_cmdline_isspace(**p))
                (*p)++;
        if (!**p)
                return false;

        /* next_arg(): one leading quote opens a quoted word. */
        if (**p == '"') {
                (*p)++;
                in_quote = quoted = true;
        }
        word = *p;
        for (i = 0; word[i]; i++) {
                if (proc_cmdline_isspace(word[i]) && !in_quote)
                        break;
                /* The first '=' splits, inside quotes or not. */
                if (equals == 0 && word[i] == '=')
                        equals = i;
                if (word[i] == '"')
                        in_quote = !in_quote;
        }
        *p = word + i;
        end = word + i;

        if (equals > 0) {
                val = word + equals + 1;
                /* A quote opening the value goes, and one ending the word. */
                if (*val == '"') {
                        val++;
                        if (end > val && end[-1] == '"')
                                stripped = true;
                }
        }
        /* A quoted word loses its closing quote, unless the value's went already. */
        if (stripped || (quoted && end > word && end[-1] == '"'))
                end--;

        *ret = (Param) {
                .name = word,
                .name_len = equals > 0 ? equals : (size_t) (end - word),
                .value = val,
                .value_len = val ? (size_t) (end > val ? end - val : 0) : 0,
        };
        return true;
}

int proc_cmdline_get_key(const char *cmdline, const char *key, char **ret_value) {
        _cleanup_free_ char *found = NULL;
        int r = 0;
        Param a;

        for (const char *p = cmdline; next_param(&p, &a);) {
                /* parse_args() stops at "--": the rest is for init. */
                if (!a.value && a.name_len == 2 && strncmp(a.name, "--", 2) == 0)
                        break;
                if (!key_equal(a.name, a.name_len, key))
                        continue;

                free(found);
                found = NULL;
                r = 1;
                if (a.value) {
                        found = strndup(a.value, a.value_len);
                        if (!found)
                                return -ENOMEM;
                }
        }

        *ret_value = TAKE_PTR(found);
        return r;
}

/* @p after @s, quotes in @p skipped wherever they are; with @key, '-' and
 * '_' match each other. NULL when @p does not start with @s. */
static const char *skip_unquoted(const char *p, const char *s, bool key) {
        for (; *s; s++, p++) {
                char a, b = *s;

                while (*p == '"' || *p == '\'')
                        p++;
                a = *p;
                if (key && a == '-')
                        a = '_';
                if (key && b == '-')
                        b = '_';
                if (!a || a != b)
                        return NULL;
        }
        return p;
}

bool proc_cmdline_may_set_credential(const char *cmdline, const char *name) {
        /* systemd splits the command line with its own parser, which drops
         * a quote anywhere in a word ('systemd.set_credential=x:y',
         * systemd.set_credential=x.'y':z, "systemd.set_credential"=...):
         * so every spelling it may take is found by matching with the
         * quotes skipped, at any position. A match that systemd would not
         * take (inside another word) only costs a credit. */
        for (const char *p = cmdline; *p; p++) {
                const char *q = skip_unquoted(p, "systemd.set_credential", true), *b;

                if (!q)
                        continue;
                b = skip_unquoted(q, "_binary", true);
                if (b)
                        q = b;
                q = skip_unquoted(q, "=", false);
                if (q)
                        q = skip_unquoted(q, name, false);
                if (q && skip_unquoted(q, ":", false))
                        return true;
        }
        return false;
}

/* systemd's vendor GUID, under which it keeps its own EFI variables. */
#define EFI_OPTIONS_NAME "SystemdOptions-8cf2644b-4b0b-428f-9387-6d876050dc67"
#define EFI_ATTRIBUTES_SIZE 4

static const char *const efi_options_paths[_EFI_OPTIONS_SOURCE_MAX] = {
        /* cache_efi_options_variable() writes it, systemd_efi_options_variable() reads it. */
        [EFI_OPTIONS_CACHE] = "/run/systemd/efivars/" EFI_OPTIONS_NAME,
        [EFI_OPTIONS_VARIABLE] = "/sys/firmware/efi/efivars/" EFI_OPTIONS_NAME,
};

const char *efi_options_path(EfiOptionsSource source) {
        return source >= 0 && source < _EFI_OPTIONS_SOURCE_MAX ? efi_options_paths[source] : NULL;
}

size_t efi_options_variable_to_text(const uint8_t *p, size_t size, char *ret) {
        size_t n = 0;

        /* Front to back: unit i is read at 4 + 2i before ret[i] is written. */
        for (size_t i = EFI_ATTRIBUTES_SIZE; i + 2 <= size; i += 2) {
                unsigned unit = (unsigned) p[i + 1] << 8 | p[i];

                ret[n++] = unit > 0 && unit < 0x80 ? (char) unit : '?';
        }
        ret[n] = 0;
        return n;
}

int efi_options_read(EfiOptionsSource source, char **ret) {
        _cleanup_free_ char *buf = NULL;
        size_t n, max;
        int r;

        if (!efi_options_path(source))
                return -EINVAL;
        if (root_is_tree())
                return -ENOENT;

        /* As much as the longest command line, in either encoding. */
        max = source == EFI_OPTIONS_VARIABLE ? EFI_ATTRIBUTES_SIZE + 2 * (size_t) CMDLINE_MAX : CMDLINE_MAX;
        buf = malloc(max + 1);
        if (!buf)
                return -ENOMEM;
        r = read_in_root(efi_options_paths[source], max, buf, &n);
        if (r < 0)
                return r;
        if (source == EFI_OPTIONS_VARIABLE)
                n = efi_options_variable_to_text((const uint8_t *) buf, n, buf);
        for (size_t i = 0; i < n; i++)
                if (buf[i] == 0)
                        buf[i] = '?';
        *ret = TAKE_PTR(buf);
        return 0;
}
