/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <string.h>

#include "macro.h"

/* Reports a bad setting: where it came from (a file name, or "kernel command
 * line"), the line number (0 when none) and what is wrong. Parsers never
 * log; they call this and keep the earlier value. */
typedef void (*config_warn_t)(void *userdata, const char *source, unsigned line, const char *message);

/* The source name of settings from the kernel command line. */
#define CONF_SOURCE_CMDLINE "kernel command line"

/* A name or value from the input, as a message quotes it: at most
 * CONF_QUOTE_MAX bytes of it, then "..." when there is more, so that the
 * words after it (what was done about it) are never cut off. For "%.*s%s". */
#define CONF_QUOTE_MAX 128
#define CONF_QUOTE(s) (int) MIN(strlen(s), (size_t) CONF_QUOTE_MAX), (s), strlen(s) > CONF_QUOTE_MAX ? "..." : ""

/* Where the value being parsed came from, so that a parse function can say
 * so, and where its default lives, so that "" can restore it. */
typedef struct ConfContext {
        const char *source;
        unsigned line;
        const char *section;
        const char *key;             /* "Timeout", or "entropy_gate.timeout" on the kernel command line */
        const void *default_value;   /* the field in the defaults struct */
        config_warn_t warn;
        void *userdata;
} ConfContext;

/* Store @value (already trimmed; "" means "reset to the default"; NULL means
 * a bare key on the kernel command line, which booleans take as yes) into
 * @data. A bad value is reported with conf_warn() and leaves @data as it
 * was; the return value is 0, or -ENOMEM, the only error that stops
 * parsing. */
typedef int (*conf_parse_t)(const ConfContext *ctx, const char *value, void *data);

/* One setting, one parser, wherever it is set from. */
typedef struct ConfItem {
        const char *section;
        const char *key;
        const char *cmdline_key;     /* "entropy_gate.timeout", or NULL: files only */
        conf_parse_t parse;
        size_t offset;               /* of the field in the struct being filled */
} ConfItem;

typedef struct ConfTable {
        const ConfItem *items;
        size_t n_items;
        const void *defaults;        /* a filled-in struct of the same type, for "" */
} ConfTable;

void conf_warn(const ConfContext *ctx, const char *format, ...) _printf_(2, 3);

/* Pure: parse systemd-style INI @text into @base. "[Section]" headers;
 * "Key=Value" assignments with whitespace around either side ignored; "#"
 * and ";" start comment lines; a trailing backslash continues a line
 * (comment lines inside are skipped). Keys and sections are case-sensitive,
 * as in systemd. Unknown sections and keys, and lines that are neither, are
 * reported through @warn (naming @source and the line) and skipped; sections
 * named "X-..." are for other tools and skipped silently. Returns 0 or
 * -ENOMEM. */
int conf_parse_text(const ConfTable *t, void *base, const char *text, const char *source,
                    config_warn_t warn, void *userdata);

/* Pure: apply every item's cmdline_key found in the kernel command line
 * @cmdline (see proc_cmdline_get_key()) through the same parse functions.
 * Returns 0 or -ENOMEM. */
int conf_parse_cmdline(const ConfTable *t, void *base, const char *cmdline,
                       config_warn_t warn, void *userdata);
