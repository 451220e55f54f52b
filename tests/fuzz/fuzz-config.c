// SPDX-License-Identifier: LGPL-2.1-or-later
/* The configuration parser reads files an administrator (or an image
 * builder's script) wrote, and the generator runs it as PID 1's child at
 * every boot: it must accept any bytes without crashing, reading out of
 * bounds or leaking, and what it stores must always be sane. The same text
 * also goes through the kernel command line parser. */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fuzz-root.h"
#include "fuzz.h"
#include "paths.h"
#include "unit-name.h"

static void check_warning(void *userdata, const char *source, unsigned line, const char *message) {
        if (!source || !message || strlen(message) >= 512)
                abort();
        ++*(unsigned *) userdata;
}

static void check_config(const Config *c) {
        if (c->on_timeout < 0 || c->on_timeout >= _ON_TIMEOUT_MAX)
                abort();
        if (!c->seed_dir || c->seed_dir[0] != '/')
                abort();
        for (char **u = c->units; u && *u; u++) {
                if (!**u || strpbrk(*u, ", \t\n\r"))
                        abort();
                for (char **v = c->units; v < u; v++)
                        if (streq(*u, *v))
                                abort();
                /* A name the generator would write to must be one path component. */
                if (unit_name_is_valid(*u) && (strchr(*u, '/') || streq(*u, ".") || streq(*u, "..")))
                        abort();
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        unsigned warnings = 0;
        char *text;
        Config c;

        /* Files with a NUL are refused by the loader; the parser sees C strings. */
        text = malloc(size + 1);
        if (!text)
                return 0;
        if (size > 0)
                memcpy(text, data, size);
        text[size] = 0;

        if (config_init(&c) < 0)
                abort();
        if (config_parse_text(&c, text, "fuzz.conf", check_warning, &warnings) < 0)
                abort();
        check_config(&c);
        /* Applying the same text again must be as sane (Units= appends). */
        if (config_parse_text(&c, text, "fuzz.conf", NULL, NULL) < 0)
                abort();
        check_config(&c);
        if (config_apply_cmdline(&c, text, check_warning, &warnings) < 0)
                abort();
        check_config(&c);
        config_done(&c);

        /* The loader, on the same bytes as a file: its bounded read at
         * every size (CONFIG_FILE_MAX and around it), NUL bytes refused. */
        fuzz_root_write("/proc/cmdline", "quiet\n", 6);
        fuzz_root_write(CONF_FILE, data, size);
        warnings = 0;
        if (config_load(&c, check_warning, &warnings) < 0)
                abort();
        check_config(&c);
        if ((size > CONFIG_FILE_MAX || (size > 0 && memchr(data, 0, size))) && !c.broken)
                abort();
        config_done(&c);

        free(text);
        return 0;
}
