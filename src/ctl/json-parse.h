/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A small JSON reader for what entropyctl wrote itself and reads back (a
 * saved "timeline --json"): RFC 8259, the whole document into a tree.
 * Strings are decoded to UTF-8 (a \u0000 or an unpaired surrogate is
 * refused: a C string cannot hold the one and UTF-8 not the other);
 * numbers keep their text and are read as integers on request. Nesting is
 * bounded, so a hostile file costs at most its size in memory and no
 * stack. */

#define JSON_PARSE_DEPTH_MAX 32

typedef enum JsonType {
        JSON_NULL,
        JSON_BOOL,
        JSON_NUMBER,
        JSON_STRING,
        JSON_ARRAY,
        JSON_OBJECT,
} JsonType;

typedef struct JsonValue JsonValue;
struct JsonValue {
        JsonType type;
        bool boolean;
        char *string;                /* JSON_STRING: the text; JSON_NUMBER: the literal */
        size_t n;                    /* JSON_ARRAY, JSON_OBJECT: members */
        JsonValue *items;            /* their values */
        char **keys;                 /* JSON_OBJECT: their keys */
};

/* Pure: parse @text (NUL-terminated). 0 and a tree to free with
 * json_value_free(); -EBADMSG with "offset N: why" in @ret_error
 * (@error_size bytes) when it is not one JSON document; -ENOMEM. */
int json_parse(const char *text, JsonValue **ret, char *ret_error, size_t error_size);
void json_value_free(JsonValue *v);

/* The member @key of an object; NULL when @v is no object or lacks it. */
const JsonValue *json_object_get(const JsonValue *v, const char *key);
/* A number that is a non-negative integer that fits: 0; else -EINVAL. */
int json_value_uint64(const JsonValue *v, uint64_t *ret);
