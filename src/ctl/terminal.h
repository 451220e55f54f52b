/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Colour, decided once as systemd's tools decide it, before a pager takes
 * standard output. */

/* Pure: colour or not, from the environment and whether standard output is
 * a terminal. In order: NO_COLOR set (to anything, even empty) means no
 * colour, always; SYSTEMD_COLORS= set to a boolean decides (a true value, or
 * 16, 256 or 24bit, asks for colour even without a terminal, as in
 * systemd); TERM=dumb means none; otherwise colour exactly when standard
 * output is a terminal. */
bool colors_decide(const char *no_color, const char *systemd_colors, const char *term, bool stdout_is_tty);

/* Decide from the real environment and standard output; call once, before
 * pager_open(). */
void colors_init(void);
bool colors_enabled(void);

/* The escape sequences, or "" without colour. */
const char *ansi_red(void);          /* bold red: something is wrong */
const char *ansi_yellow(void);       /* bold yellow: look at it */
const char *ansi_green(void);        /* bold green: good */
const char *ansi_bold(void);
const char *ansi_normal(void);

/* @s as text for a terminal, losslessly: every C0 control, DEL, C1 control
 * (U+0080..U+009F, as UTF-8 or as a raw byte) and every byte that is not
 * part of valid UTF-8 becomes \xNN, and a backslash becomes \\, so that
 * nothing shown can move the cursor or change colours, and the bytes can be
 * told back from the text (a file name in an image may hold any byte but
 * NUL). Into @buf of @size; what does not fit is cut at a whole escape and
 * ends in "..." (never for a path of up to PATH_MAX bytes with
 * TERMINAL_ESCAPE()). Returns @buf. */
char *terminal_escape(const char *s, char *buf, size_t size);
#define TERMINAL_ESCAPE_MAX (4 * 4096 + 1)
#define TERMINAL_ESCAPE(s) terminal_escape((s), (char[TERMINAL_ESCAPE_MAX]){}, TERMINAL_ESCAPE_MAX)
