// SPDX-License-Identifier: LGPL-2.1-or-later
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf-parser.h"
#include "proc-cmdline.h"

void conf_warn(const ConfContext *ctx, const char *format, ...) {
        /* Room for the words and two names or values (CONF_QUOTE()). */
        char msg[1024];
        va_list ap;

        if (!ctx->warn)
                return;
        va_start(ap, format);
        vsnprintf(msg, sizeof(msg), format, ap);
        va_end(ap);
        ctx->warn(ctx->userdata, ctx->source, ctx->line, msg);
}

/* systemd's WHITESPACE: what strstrip() removes around keys, values and
 * lines. Not isspace(): "\v" and "\f" are part of a key or value there. */
#define CONF_WHITESPACE " \t\n\r"
#define CONF_COMMENTS "#;"
#define UTF8_BOM "\xef\xbb\xbf"

static char *strip(char *s) {
        char *e;

        s += strspn(s, CONF_WHITESPACE);
        e = s + strlen(s);
        while (e > s && strchr(CONF_WHITESPACE, e[-1]))
                *--e = 0;
        return s;
}

/* systemd's string_is_safe(), which section names must pass. */
static bool string_is_safe(const char *s) {
        for (const unsigned char *p = (const unsigned char *) s; *p; p++)
                if (*p < ' ' || *p == 0x7f || strchr("\\\"'", *p))
                        return false;
        return true;
}

static bool section_known(const ConfTable *t, const char *section) {
        for (size_t i = 0; i < t->n_items; i++)
                if (streq(t->items[i].section, section))
                        return true;
        return false;
}

static const ConfItem *item_find(const ConfTable *t, const char *section, const char *key) {
        for (size_t i = 0; i < t->n_items; i++)
                if (streq(t->items[i].section, section) && streq(t->items[i].key, key))
                        return t->items + i;
        return NULL;
}

static int item_parse(const ConfTable *t, const ConfItem *item, void *base, ConfContext *ctx, const char *value) {
        ctx->default_value = t->defaults ? (const char *) t->defaults + item->offset : NULL;
        return item->parse(ctx, value, (char *) base + item->offset);
}

/* One logical line, as systemd's parse_line(): a comment, a header or an
 * assignment, its continuations already joined. Modifies @l. */
static int parse_line(const ConfTable *t, void *base, ConfContext *ctx,
                      char **section, bool *section_ignored, char *l) {
        const ConfItem *item;
        char *eq, *key, *value;

        l = strip(l);
        if (!*l || strchr(CONF_COMMENTS, *l))
                return 0;

        if (startswith(l, ".include ")) {
                conf_warn(ctx, ".include is not supported (systemd dropped it too), ignoring line");
                return 0;
        }

        if (*l == '[') {
                size_t len = strlen(l);
                char *name;

                if (l[len - 1] != ']') {
                        conf_warn(ctx, "Invalid section header '%.*s%s', ignoring the section", CONF_QUOTE(l));
                        free(*section);
                        *section = NULL;
                        *section_ignored = true;
                        return 0;
                }
                name = strndup(l + 1, len - 2);
                if (!name)
                        return -ENOMEM;
                free(*section);
                *section = name;
                if (!string_is_safe(name)) {
                        conf_warn(ctx, "Bad characters in section header '%.*s%s', ignoring the section", CONF_QUOTE(l));
                        *section_ignored = true;
                        return 0;
                }
                *section_ignored = !section_known(t, name);
                if (*section_ignored && !startswith(name, "X-"))
                        conf_warn(ctx, "Unknown section '%.*s%s', ignoring", CONF_QUOTE(name));
                return 0;
        }

        if (!*section || *section_ignored) {
                /* Lines in a section we skip are skipped silently. */
                if (!*section_ignored)
                        conf_warn(ctx, "Assignment outside of any section, ignoring");
                return 0;
        }

        eq = strchr(l, '=');
        if (!eq) {
                conf_warn(ctx, "Missing '=', ignoring line");
                return 0;
        }
        if (eq == l) {
                conf_warn(ctx, "Missing key name before '=', ignoring line");
                return 0;
        }
        *eq = 0;
        key = strip(l);
        value = strip(eq + 1);
        item = item_find(t, *section, key);
        if (!item) {
                conf_warn(ctx, "Unknown key '%.*s%s' in section [%.*s%s], ignoring", CONF_QUOTE(key), CONF_QUOTE(*section));
                return 0;
        }
        ctx->section = *section;
        ctx->key = key;
        return item_parse(t, item, base, ctx, value);
}

/* A growing byte buffer: appending costs what is appended (amortized), so a
 * line continued a million times costs a million lines, not their square. */
typedef struct LineBuffer {
        char *data;
        size_t len, allocated;
} LineBuffer;

static int line_buffer_append(LineBuffer *b, const char *s, size_t n) {
        if (b->len + n + 1 > b->allocated) {
                size_t a = MAX(b->allocated * 2, b->len + n + 1);
                char *d = realloc(b->data, MAX(a, (size_t) 128));

                if (!d)
                        return -ENOMEM;
                b->data = d;
                b->allocated = MAX(a, (size_t) 128);
        }
        memcpy(b->data + b->len, s, n);
        b->len += n;
        b->data[b->len] = 0;
        return 0;
}

int conf_parse_text(const ConfTable *t, void *base, const char *text, const char *source,
                    config_warn_t warn, void *userdata) {
        _cleanup_free_ char *section = NULL;
        LineBuffer lb = {};
        bool section_ignored = false, bom_seen = false, continuing = false;
        unsigned line = 0;
        int r = 0;

        /* The order of systemd's config_parse(), step by step, so that a
         * file means here what it would mean to systemd. */
        for (const char *p = text; *p;) {
                ConfContext ctx = {
                        .source = source,
                        .warn = warn,
                        .userdata = userdata,
                };
                size_t n = strcspn(p, "\r\n"), start;
                const char *l = p;
                bool escaped = false;

                /* Lines end in "\n", "\r\n" or a lone "\r", as systemd's
                 * read_line() ends them. */
                p += n;
                if (p[0] == '\r' && p[1] == '\n')
                        p += 2;
                else if (*p)
                        p++;
                line++;

                /* A comment line is skipped whole, also in the middle of a
                 * continued line, and never continues itself. */
                {
                        size_t w = strspn(l, CONF_WHITESPACE);
                        if (w < n && strchr(CONF_COMMENTS, l[w]))
                                continue;
                }
                /* A byte order mark is skipped where systemd skips it: at the
                 * start of the first line that has one, once. */
                if (!bom_seen && n >= 3 && memcmp(l, UTF8_BOM, 3) == 0) {
                        l += 3;
                        n -= 3;
                        bom_seen = true;
                }

                if (!continuing)
                        lb.len = 0;
                start = lb.len;
                r = line_buffer_append(&lb, l, n);
                if (r < 0)
                        goto finish;
                /* A backslash continues the line unless it is itself
                 * escaped ("\\\\" at the end does not continue). The one
                 * before a continuation became a space, so the state at
                 * the start of this line is "not escaped". */
                for (size_t i = start; i < lb.len; i++)
                        escaped = !escaped && lb.data[i] == '\\';
                if (escaped) {
                        lb.data[lb.len - 1] = ' ';
                        continuing = true;
                        continue;
                }
                continuing = false;
                ctx.line = line;
                r = parse_line(t, base, &ctx, &section, &section_ignored, lb.data);
                if (r < 0)
                        goto finish;
        }
        /* A continuation that runs into the end of the text ends there. */
        if (continuing) {
                ConfContext ctx = {
                        .source = source,
                        .line = line,
                        .warn = warn,
                        .userdata = userdata,
                };
                r = parse_line(t, base, &ctx, &section, &section_ignored, lb.data);
        }
finish:
        free(lb.data);
        return MIN(r, 0);
}

int conf_parse_cmdline(const ConfTable *t, void *base, const char *cmdline,
                       config_warn_t warn, void *userdata) {
        for (size_t i = 0; i < t->n_items; i++) {
                const ConfItem *item = t->items + i;
                _cleanup_free_ char *value = NULL;
                ConfContext ctx = {
                        .source = CONF_SOURCE_CMDLINE,
                        .key = item->cmdline_key,
                        .warn = warn,
                        .userdata = userdata,
                };
                int r;

                if (!item->cmdline_key)
                        continue;
                r = proc_cmdline_get_key(cmdline, item->cmdline_key, &value);
                if (r < 0)
                        return r;
                if (r == 0)
                        continue;
                r = item_parse(t, item, base, &ctx, value);
                if (r < 0)
                        return r;
        }
        return 0;
}
