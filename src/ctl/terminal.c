// SPDX-License-Identifier: LGPL-2.1-or-later
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "config.h"
#include "macro.h"
#include "terminal.h"

static bool use_colors;

bool colors_decide(const char *no_color, const char *systemd_colors, const char *term, bool stdout_is_tty) {
        /* https://no-color.org: a user who set it wants none, whatever else says. */
        if (no_color)
                return false;
        if (systemd_colors) {
                int b = parse_boolean(systemd_colors);

                if (b >= 0)
                        return b;
                /* systemd's colour modes: each one a yes. Anything else
                 * ("auto", a typo) leaves the decision to the terminal. */
                if (streq(systemd_colors, "16") || streq(systemd_colors, "256") || streq(systemd_colors, "24bit"))
                        return true;
        }
        if (term && streq(term, "dumb"))
                return false;
        return stdout_is_tty;
}

void colors_init(void) {
        use_colors = colors_decide(getenv("NO_COLOR"), getenv("SYSTEMD_COLORS"), getenv("TERM"),
                                   isatty(STDOUT_FILENO) > 0);
}

bool colors_enabled(void) {
        return use_colors;
}

const char *ansi_red(void) { return use_colors ? "\x1B[0;1;31m" : ""; }
const char *ansi_yellow(void) { return use_colors ? "\x1B[0;1;33m" : ""; }
const char *ansi_green(void) { return use_colors ? "\x1B[0;1;32m" : ""; }
const char *ansi_bold(void) { return use_colors ? "\x1B[0;1;39m" : ""; }
const char *ansi_normal(void) { return use_colors ? "\x1B[0m" : ""; }

char *terminal_escape(const char *s, char *buf, size_t size) {
        size_t o = 0;

        for (const unsigned char *p = (const unsigned char *) s; *p && o + 5 < size; p++)
                if (*p < 0x20 || *p == 0x7f)
                        o += (size_t) snprintf(buf + o, size - o, "\\x%02x", *p);
                else
                        buf[o++] = (char) *p;
        buf[o] = 0;
        return buf;
}
