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

/* @s as text for a terminal: control characters (from a file name in an
 * image, a reason read from a file, a log message) become \xNN, so that
 * nothing shown can move the cursor or change colours. Into @buf of @size,
 * cut short if need be; returns @buf. */
char *terminal_escape(const char *s, char *buf, size_t size);
#define TERMINAL_ESCAPE_MAX 4096
#define TERMINAL_ESCAPE(s) terminal_escape((s), (char[TERMINAL_ESCAPE_MAX]){}, TERMINAL_ESCAPE_MAX)
