/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>

#include "macro.h"

/* Reports a bad setting: where it came from (a file name, or "kernel command
 * line"), the line number (0 when none) and what is wrong. Parsers never
 * log; they call this and keep the earlier value. */
typedef void (*config_warn_t)(void *userdata, const char *source, unsigned line, const char *message);

/* Where the value being parsed came from, so that a parse function can say so. */
typedef struct ConfContext {
        const char *source;
        unsigned line;
        const char *section;
        const char *key;
        config_warn_t warn;
        void *userdata;
} ConfContext;

/* Store @value (already trimmed; "" means "reset to the default") into
 * @data. A bad value is reported with conf_warn() and leaves @data as it
 * was; the return value is 0, or -ENOMEM, the only error that stops
 * parsing. */
typedef int (*conf_parse_t)(const ConfContext *ctx, const char *value, void *data);

typedef struct ConfItem {
        const char *section;
        const char *key;
        conf_parse_t parse;
        size_t offset;               /* of the field in the struct being filled */
} ConfItem;

void conf_warn(const ConfContext *ctx, const char *format, ...) _printf_(2, 3);

/* Pure: parse systemd-style INI @text into @base, whose fields @table
 * describes. "[Section]" headers; "Key=Value" assignments with whitespace
 * around either side ignored; "#" and ";" start comment lines; a trailing
 * backslash continues a line (comment lines inside are skipped). Keys and
 * sections are case-sensitive, as in systemd. Unknown sections and keys,
 * and lines that are neither, are reported through @warn (naming @source
 * and the line) and skipped; sections named "X-..." are for other tools
 * and skipped silently. Returns 0 or -ENOMEM. */
int conf_parse_text(const ConfItem *table, size_t n_table, void *base,
                    const char *text, const char *source,
                    config_warn_t warn, void *userdata);
