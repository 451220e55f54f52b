/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "utf8.h"   /* utf8_valid_length(), for other writers of text that must be UTF-8 */

/* A small streaming JSON writer for entropyctl's --json output: objects and
 * arrays nest, commas and indentation (two spaces) are placed for the
 * caller, and every string goes through json_escape(). Keys are passed with
 * each value inside objects and are NULL inside arrays. */

#define JSON_DEPTH_MAX 16

/* --json=, as systemd's tools take it. */
typedef enum JsonFormat {
        JSON_FORMAT_OFF,             /* text for people */
        JSON_FORMAT_SHORT,           /* one line, no white space */
        JSON_FORMAT_PRETTY,          /* indented, one member per line */
        _JSON_FORMAT_MAX,
        _JSON_FORMAT_INVALID = -EINVAL,
} JsonFormat;

const char *json_format_to_string(JsonFormat f);
JsonFormat json_format_from_string(const char *s);

typedef struct JsonWriter {
        FILE *f;
        bool pretty;
        unsigned depth;
        bool first[JSON_DEPTH_MAX];  /* no member written yet at this level */
} JsonWriter;

/* Either format ends the document with a newline. */
void json_init(JsonWriter *j, FILE *f, JsonFormat format);

void json_object_begin(JsonWriter *j, const char *key);
void json_object_end(JsonWriter *j);
void json_array_begin(JsonWriter *j, const char *key);
void json_array_end(JsonWriter *j);

/* NULL is null; a string that is not valid UTF-8 (a path may hold any byte
 * but NUL) is the array of its bytes, numbers 0..255, as in systemd's JSON
 * output: lossless, where a replacement character would lose bytes. */
void json_string(JsonWriter *j, const char *key, const char *value);
void json_int(JsonWriter *j, const char *key, int64_t value);
void json_uint(JsonWriter *j, const char *key, uint64_t value);
void json_bool(JsonWriter *j, const char *key, bool value);
void json_null(JsonWriter *j, const char *key);

/* Pure: write @s as a JSON string literal, quotes included, into @f.
 * '"', '\\' and every control character, C0, DEL and C1 (U+0080..U+009F),
 * are escaped; other valid UTF-8 passes through; every byte of an invalid,
 * overlong or surrogate sequence becomes U+FFFD, so the output is always
 * valid JSON in valid UTF-8. Lossy for invalid UTF-8: json_string() uses
 * it only for valid strings. */
void json_escape(FILE *f, const char *s);

/* Pure: @s as a JSON array of its bytes. */
void json_bytes(FILE *f, const char *s, bool pretty);
