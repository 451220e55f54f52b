// SPDX-License-Identifier: LGPL-2.1-or-later
#include <inttypes.h>

#include "json.h"
#include "string-table.h"
#include "macro.h"
#include "utf8.h"

void json_escape(FILE *f, const char *s) {
        const unsigned char *p = (const unsigned char *) s;

        fputc('"', f);
        while (*p) {
                size_t n;

                switch (*p) {
                case '"':  fputs("\\\"", f); p++; continue;
                case '\\': fputs("\\\\", f); p++; continue;
                case '\b': fputs("\\b", f);  p++; continue;
                case '\f': fputs("\\f", f);  p++; continue;
                case '\n': fputs("\\n", f);  p++; continue;
                case '\r': fputs("\\r", f);  p++; continue;
                case '\t': fputs("\\t", f);  p++; continue;
                default:
                        break;
                }
                if (*p < 0x20 || *p == 0x7f) {
                        fprintf(f, "\\u%04x", *p);
                        p++;
                        continue;
                }
                n = utf8_valid_length(p);
                if (n == 0) {
                        fputs("\\ufffd", f);
                        p++;
                        continue;
                }
                /* C1 controls (U+0080..U+009F: U+009B is CSI) are legal in
                 * a JSON string, but not on the terminal it may be shown on. */
                if (n == 2 && utf8_code_point(p, n) < 0xa0) {
                        fprintf(f, "\\u%04x", utf8_code_point(p, n));
                        p += n;
                        continue;
                }
                fwrite(p, 1, n, f);
                p += n;
        }
        fputc('"', f);
}

static const char *const json_format_table[_JSON_FORMAT_MAX] = {
        [JSON_FORMAT_OFF] = "off",
        [JSON_FORMAT_SHORT] = "short",
        [JSON_FORMAT_PRETTY] = "pretty",
};

DEFINE_STRING_TABLE(json_format, JsonFormat)

void json_init(JsonWriter *j, FILE *f, JsonFormat format) {
        *j = (JsonWriter) { .f = f, .pretty = format != JSON_FORMAT_SHORT, .first[0] = true };
}

static void newline_indent(JsonWriter *j) {
        if (!j->pretty)
                return;
        fputc('\n', j->f);
        for (unsigned i = 0; i < j->depth; i++)
                fputs("  ", j->f);
}

/* Comma, newline and indentation before a member, then its key. */
static void member(JsonWriter *j, const char *key) {
        if (j->depth > 0) {
                if (!j->first[j->depth])
                        fputc(',', j->f);
                newline_indent(j);
        }
        j->first[j->depth] = false;
        if (key) {
                json_escape(j->f, key);
                fputs(j->pretty ? ": " : ":", j->f);
        }
}

static void open_level(JsonWriter *j, const char *key, char c) {
        member(j, key);
        fputc(c, j->f);
        /* Deeper nesting than we ever write is a bug; keep the output valid anyway. */
        if (j->depth + 1 < JSON_DEPTH_MAX)
                j->depth++;
        j->first[j->depth] = true;
}

static void close_level(JsonWriter *j, char c) {
        bool empty = j->first[j->depth];

        if (j->depth > 0)
                j->depth--;
        if (!empty)
                newline_indent(j);
        fputc(c, j->f);
        if (j->depth == 0)
                fputc('\n', j->f);
}

void json_object_begin(JsonWriter *j, const char *key) { open_level(j, key, '{'); }
void json_object_end(JsonWriter *j) { close_level(j, '}'); }
void json_array_begin(JsonWriter *j, const char *key) { open_level(j, key, '['); }
void json_array_end(JsonWriter *j) { close_level(j, ']'); }

/* As systemd's JSON output does (journalctl -o json): a string that is not
 * valid UTF-8, which a path may well be, becomes the array of its bytes. */
void json_bytes(FILE *f, const char *s, bool pretty) {
        fputc('[', f);
        for (const unsigned char *p = (const unsigned char *) s; *p; p++)
                fprintf(f, p == (const unsigned char *) s ? "%u" : pretty ? ", %u" : ",%u", *p);
        fputc(']', f);
}

void json_string(JsonWriter *j, const char *key, const char *value) {
        member(j, key);
        if (!value)
                fputs("null", j->f);
        else if (utf8_is_valid(value))
                json_escape(j->f, value);
        else
                json_bytes(j->f, value, j->pretty);
}

void json_int(JsonWriter *j, const char *key, int64_t value) {
        member(j, key);
        fprintf(j->f, "%" PRId64, value);
}

void json_uint(JsonWriter *j, const char *key, uint64_t value) {
        member(j, key);
        fprintf(j->f, "%" PRIu64, value);
}

void json_bool(JsonWriter *j, const char *key, bool value) {
        member(j, key);
        fputs(value ? "true" : "false", j->f);
}

void json_null(JsonWriter *j, const char *key) {
        member(j, key);
        fputs("null", j->f);
}
