// SPDX-License-Identifier: LGPL-2.1-or-later
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>

#include "conf-parser.h"
#include "proc-cmdline.h"

void conf_warn(const ConfContext *ctx, const char *format, ...) {
        char msg[512];
        va_list ap;

        if (!ctx->warn)
                return;
        va_start(ap, format);
        vsnprintf(msg, sizeof(msg), format, ap);
        va_end(ap);
        ctx->warn(ctx->userdata, ctx->source, ctx->line, msg);
}

static char *strip(char *s) {
        char *e;

        while (isspace((unsigned char) *s))
                s++;
        e = s + strlen(s);
        while (e > s && isspace((unsigned char) e[-1]))
                *--e = 0;
        return s;
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

/* One logical line: a header or an assignment, with its continuations
 * already joined. Modifies @l. */
static int parse_line(const ConfTable *t, void *base, ConfContext *ctx,
                      char **section, bool *section_ignored, char *l) {
        const ConfItem *item;
        char *eq, *key, *value;

        if (*l == '[') {
                size_t len = strlen(l);
                char *name;

                if (len < 3 || l[len - 1] != ']') {
                        conf_warn(ctx, "Invalid section header '%s', ignoring the section", l);
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
                *section_ignored = !section_known(t, name);
                if (*section_ignored && !startswith(name, "X-"))
                        conf_warn(ctx, "Unknown section '%s', ignoring", name);
                return 0;
        }

        if (*section_ignored)
                return 0;

        eq = strchr(l, '=');
        if (!eq) {
                conf_warn(ctx, "Missing '=', ignoring line");
                return 0;
        }
        *eq = 0;
        key = strip(l);
        value = strip(eq + 1);
        if (!*section) {
                conf_warn(ctx, "Assignment outside of any section, ignoring");
                return 0;
        }
        if (!*key) {
                conf_warn(ctx, "Missing key name before '=', ignoring line");
                return 0;
        }
        item = item_find(t, *section, key);
        if (!item) {
                conf_warn(ctx, "Unknown key '%s' in section [%s], ignoring", key, *section);
                return 0;
        }
        ctx->section = *section;
        ctx->key = key;
        return item_parse(t, item, base, ctx, value);
}

int conf_parse_text(const ConfTable *t, void *base, const char *text, const char *source,
                    config_warn_t warn, void *userdata) {
        _cleanup_free_ char *copy = NULL, *section = NULL, *joined = NULL;
        bool section_ignored = false;
        unsigned line = 0, joined_line = 0;
        char *p, *next;
        int r;

        copy = strdup(text);
        if (!copy)
                return -ENOMEM;

        for (p = copy; p; p = next) {
                ConfContext ctx = {
                        .source = source,
                        .warn = warn,
                        .userdata = userdata,
                };
                char *l, *logical;
                size_t len;
                bool continues;

                next = strchr(p, '\n');
                if (next)
                        *next++ = 0;
                line++;

                l = strip(p);
                /* Comments are whole lines, also in the middle of a continued line. */
                if (*l == '#' || *l == ';')
                        continue;
                if (!*l && !joined)
                        continue;

                len = strlen(l);
                continues = len > 0 && l[len - 1] == '\\';
                if (continues)
                        l[--len] = 0;

                if (joined || continues) {
                        size_t jl = joined ? strlen(joined) : 0;
                        char *j = realloc(joined, jl + 1 + len + 1);

                        if (!j)
                                return -ENOMEM;
                        if (jl == 0) {
                                joined_line = line;
                                memcpy(j, l, len + 1);
                        } else {
                                j[jl] = ' ';
                                memcpy(j + jl + 1, l, len + 1);
                        }
                        joined = j;
                        /* A continuation that runs into the end of the text ends there. */
                        if (continues && next)
                                continue;
                        logical = joined;
                        ctx.line = joined_line;
                } else {
                        logical = l;
                        ctx.line = line;
                }

                r = parse_line(t, base, &ctx, &section, &section_ignored, strip(logical));
                free(joined);
                joined = NULL;
                if (r < 0)
                        return r;
        }
        return 0;
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
