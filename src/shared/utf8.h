/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Pure: the length of the valid UTF-8 sequence at @s (1..4), or 0 when the
 * bytes there are not one: a stray continuation byte, a sequence cut short
 * (by the end of the string too), an overlong encoding, a UTF-16 surrogate
 * or a code point above U+10FFFF. Never reads past a NUL. */
size_t utf8_valid_length(const unsigned char *s);

/* Pure: the code point of the valid sequence of @n bytes at @s. */
unsigned utf8_code_point(const unsigned char *s, size_t n);

/* Pure: whether a terminal acts on the code point @cp rather than showing
 * it: C0, DEL and C1 (U+009B is CSI), the bidirectional formatting
 * characters (U+202E shows what follows it backwards: one name can pass for
 * another) and the line and paragraph separators. */
bool utf8_code_point_is_control(unsigned cp);

/* Pure: is all of @s valid UTF-8? */
bool utf8_is_valid(const char *s);
