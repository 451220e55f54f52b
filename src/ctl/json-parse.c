// SPDX-License-Identifier: LGPL-2.1-or-later
#include <inttypes.h>
#include <stdarg.h>

#include "json-parse.h"
#include "macro.h"

typedef struct Parser {
        const char *start, *p;
        char *error;
        size_t error_size;
} Parser;

static int fail(Parser *ps, const char *fmt, ...) _printf_(2, 3);
static int fail(Parser *ps, const char *fmt, ...) {
        va_list ap;
        int k = 0;

        if (ps->error_size > 0) {
                k = snprintf(ps->error, ps->error_size, "offset %td: ", ps->p - ps->start);
                if (k < 0 || (size_t) k >= ps->error_size)
                        return -EBADMSG;
                va_start(ap, fmt);
                (void) vsnprintf(ps->error + k, ps->error_size - (size_t) k, fmt, ap);
                va_end(ap);
        }
        return -EBADMSG;
}

static void skip_space(Parser *ps) {
        while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
                ps->p++;
}

static void value_done(JsonValue *v) {
        free(v->string);
        for (size_t i = 0; i < v->n; i++) {
                value_done(v->items + i);
                if (v->keys)
                        free(v->keys[i]);
        }
        free(v->items);
        free(v->keys);
}

void json_value_free(JsonValue *v) {
        if (!v)
                return;
        value_done(v);
        free(v);
}

static int hex4(Parser *ps, uint32_t *ret) {
        uint32_t c = 0;

        for (int i = 0; i < 4; i++) {
                char h = ps->p[i];

                c <<= 4;
                if (h >= '0' && h <= '9')
                        c |= (uint32_t) (h - '0');
                else if (h >= 'a' && h <= 'f')
                        c |= (uint32_t) (h - 'a' + 10);
                else if (h >= 'A' && h <= 'F')
                        c |= (uint32_t) (h - 'A' + 10);
                else
                        return fail(ps, "\\u needs four hex digits");
        }
        ps->p += 4;
        *ret = c;
        return 0;
}

static size_t utf8_put(char *out, uint32_t c) {
        if (c < 0x80) {
                out[0] = (char) c;
                return 1;
        }
        if (c < 0x800) {
                out[0] = (char) (0xc0 | (c >> 6));
                out[1] = (char) (0x80 | (c & 0x3f));
                return 2;
        }
        if (c < 0x10000) {
                out[0] = (char) (0xe0 | (c >> 12));
                out[1] = (char) (0x80 | ((c >> 6) & 0x3f));
                out[2] = (char) (0x80 | (c & 0x3f));
                return 3;
        }
        out[0] = (char) (0xf0 | (c >> 18));
        out[1] = (char) (0x80 | ((c >> 12) & 0x3f));
        out[2] = (char) (0x80 | ((c >> 6) & 0x3f));
        out[3] = (char) (0x80 | (c & 0x3f));
        return 4;
}

/* At the opening quote. The decoded text is never longer than the literal,
 * so one allocation of the literal's size holds it. */
static int parse_string(Parser *ps, char **ret) {
        const char *q;
        char *s, *o;
        int r;

        ps->p++;
        for (q = ps->p; *q && *q != '"'; q++)
                if (*q == '\\' && q[1])
                        q++;
        if (!*q)
                return fail(ps, "unterminated string");
        s = o = malloc((size_t) (q - ps->p) + 1);
        if (!s)
                return -ENOMEM;

        while (*ps->p != '"') {
                unsigned char c = (unsigned char) *ps->p;

                if (c < 0x20) {
                        r = fail(ps, "control character in a string");
                        goto fail;
                }
                if (c != '\\') {
                        *o++ = *ps->p++;
                        continue;
                }
                ps->p++;
                switch (*ps->p++) {
                case '"':  *o++ = '"'; break;
                case '\\': *o++ = '\\'; break;
                case '/':  *o++ = '/'; break;
                case 'b':  *o++ = '\b'; break;
                case 'f':  *o++ = '\f'; break;
                case 'n':  *o++ = '\n'; break;
                case 'r':  *o++ = '\r'; break;
                case 't':  *o++ = '\t'; break;
                case 'u': {
                        uint32_t cp, lo;

                        if ((r = hex4(ps, &cp)) < 0)
                                goto fail;
                        if (cp >= 0xd800 && cp <= 0xdbff) {
                                if (ps->p[0] != '\\' || ps->p[1] != 'u') {
                                        r = fail(ps, "unpaired surrogate");
                                        goto fail;
                                }
                                ps->p += 2;
                                if ((r = hex4(ps, &lo)) < 0)
                                        goto fail;
                                if (lo < 0xdc00 || lo > 0xdfff) {
                                        r = fail(ps, "unpaired surrogate");
                                        goto fail;
                                }
                                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                        } else if ((cp >= 0xdc00 && cp <= 0xdfff) || cp == 0) {
                                r = fail(ps, cp ? "unpaired surrogate" : "\\u0000 in a string");
                                goto fail;
                        }
                        /* A \uXXXX is 6 bytes of literal, at most 3 of UTF-8; a pair 12 for 4. */
                        o += utf8_put(o, cp);
                        break;
                }
                default:
                        ps->p--;
                        r = fail(ps, "unknown escape");
                        goto fail;
                }
        }
        ps->p++;
        *o = 0;
        *ret = s;
        return 0;
fail:
        free(s);
        return r;
}

static int parse_number(Parser *ps, JsonValue *v) {
        const char *b = ps->p;

        if (*ps->p == '-')
                ps->p++;
        if (*ps->p == '0')
                ps->p++;
        else if (*ps->p >= '1' && *ps->p <= '9')
                while (*ps->p >= '0' && *ps->p <= '9')
                        ps->p++;
        else
                return fail(ps, "bad number");
        if (*ps->p == '.') {
                ps->p++;
                if (!(*ps->p >= '0' && *ps->p <= '9'))
                        return fail(ps, "bad number");
                while (*ps->p >= '0' && *ps->p <= '9')
                        ps->p++;
        }
        if (*ps->p == 'e' || *ps->p == 'E') {
                ps->p++;
                if (*ps->p == '+' || *ps->p == '-')
                        ps->p++;
                if (!(*ps->p >= '0' && *ps->p <= '9'))
                        return fail(ps, "bad number");
                while (*ps->p >= '0' && *ps->p <= '9')
                        ps->p++;
        }
        v->type = JSON_NUMBER;
        v->string = strndup(b, (size_t) (ps->p - b));
        return v->string ? 0 : -ENOMEM;
}

static int parse_value(Parser *ps, JsonValue *v, unsigned depth);

/* Arrays and objects grow by doubling; @v owns what was parsed so far. */
static int grow(JsonValue *v, size_t *allocated, bool keys) {
        size_t n = *allocated ? *allocated * 2 : 4;
        JsonValue *items;

        items = reallocarray(v->items, n, sizeof(JsonValue));
        if (!items)
                return -ENOMEM;
        v->items = items;
        if (keys) {
                char **k = reallocarray(v->keys, n, sizeof(char *));

                if (!k)
                        return -ENOMEM;
                v->keys = k;
        }
        *allocated = n;
        return 0;
}

static int parse_container(Parser *ps, JsonValue *v, unsigned depth, bool object) {
        size_t allocated = 0;
        char close = object ? '}' : ']';
        int r;

        v->type = object ? JSON_OBJECT : JSON_ARRAY;
        if (depth >= JSON_PARSE_DEPTH_MAX)
                return fail(ps, "nested deeper than %d", JSON_PARSE_DEPTH_MAX);
        ps->p++;
        skip_space(ps);
        if (*ps->p == close) {
                ps->p++;
                return 0;
        }
        for (;;) {
                char *key = NULL;

                if (object) {
                        if (*ps->p != '"')
                                return fail(ps, "expected a key");
                        if ((r = parse_string(ps, &key)) < 0)
                                return r;
                        skip_space(ps);
                        if (*ps->p != ':') {
                                free(key);
                                return fail(ps, "expected ':'");
                        }
                        ps->p++;
                }
                if (v->n == allocated && (r = grow(v, &allocated, object)) < 0) {
                        free(key);
                        return r;
                }
                v->items[v->n] = (JsonValue) {};
                if (object)
                        v->keys[v->n] = key;
                v->n++;
                if ((r = parse_value(ps, v->items + v->n - 1, depth + 1)) < 0)
                        return r;
                skip_space(ps);
                if (*ps->p == ',') {
                        ps->p++;
                        skip_space(ps);
                        continue;
                }
                if (*ps->p == close) {
                        ps->p++;
                        return 0;
                }
                return fail(ps, "expected ',' or '%c'", close);
        }
}

static int parse_value(Parser *ps, JsonValue *v, unsigned depth) {
        skip_space(ps);
        switch (*ps->p) {
        case '{':
                return parse_container(ps, v, depth, true);
        case '[':
                return parse_container(ps, v, depth, false);
        case '"':
                v->type = JSON_STRING;
                return parse_string(ps, &v->string);
        case 't':
        case 'f':
        case 'n': {
                static const struct { const char *word; JsonType type; bool b; } words[] = {
                        { "true", JSON_BOOL, true }, { "false", JSON_BOOL, false }, { "null", JSON_NULL, false },
                };
                for (size_t i = 0; i < ELEMENTSOF(words); i++)
                        if (startswith(ps->p, words[i].word)) {
                                ps->p += strlen(words[i].word);
                                v->type = words[i].type;
                                v->boolean = words[i].b;
                                return 0;
                        }
                return fail(ps, "unknown literal");
        }
        default:
                return parse_number(ps, v);
        }
}

int json_parse(const char *text, JsonValue **ret, char *ret_error, size_t error_size) {
        Parser ps = { .start = text, .p = text, .error = ret_error, .error_size = error_size };
        JsonValue *v;
        int r;

        v = calloc(1, sizeof(JsonValue));
        if (!v)
                return -ENOMEM;
        r = parse_value(&ps, v, 0);
        if (r >= 0) {
                skip_space(&ps);
                if (*ps.p)
                        r = fail(&ps, "text after the document");
        }
        if (r < 0) {
                json_value_free(v);
                return r;
        }
        *ret = v;
        return 0;
}

const JsonValue *json_object_get(const JsonValue *v, const char *key) {
        if (!v || v->type != JSON_OBJECT)
                return NULL;
        for (size_t i = 0; i < v->n; i++)
                if (streq(v->keys[i], key))
                        return v->items + i;
        return NULL;
}

int json_value_uint64(const JsonValue *v, uint64_t *ret) {
        uint64_t x = 0;

        if (!v || v->type != JSON_NUMBER || !v->string[0])
                return -EINVAL;
        for (const char *c = v->string; *c; c++) {
                if (*c < '0' || *c > '9')
                        return -EINVAL;   /* negative, fraction or exponent */
                if (x > (UINT64_MAX - (uint64_t) (*c - '0')) / 10)
                        return -EINVAL;
                x = x * 10 + (uint64_t) (*c - '0');
        }
        *ret = x;
        return 0;
}
