// SPDX-License-Identifier: LGPL-2.1-or-later
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "macro.h"
#include "terminal.h"
#include "utf8.h"

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

/* The longest piece: a UTF-8 character of 4 bytes, each as "\xNN", and
 * the NUL snprintf() ends the last with. */
#define PIECE_MAX (4 * 4 + 1)

/* One piece of the escaped text for the bytes at @p: their escape or
 * themselves. Returns how many input bytes it stands for; *ret_len is its
 * length in @piece. */
static size_t escape_piece(const unsigned char *p, char piece[static PIECE_MAX], size_t *ret_len) {
        size_t n = utf8_valid_length(p);

        if (*p == '\\') {
                memcpy(piece, "\\\\", 2);
                *ret_len = 2;
                return 1;
        }
        /* C0, DEL, C1 (U+0080..U+009F, which a terminal may take as CSI and
         * friends), the bidirectional overrides and every byte that is not
         * part of valid UTF-8 (a terminal may read a lone 0x9b as CSI too). */
        if (n == 0 || utf8_code_point_is_control(utf8_code_point(p, n))) {
                size_t k = MAX(n, (size_t) 1);

                for (size_t i = 0; i < k; i++)
                        snprintf(piece + 4 * i, 5, "\\x%02x", p[i]);
                *ret_len = 4 * k;
                return k;
        }
        memcpy(piece, p, n);
        *ret_len = n;
        return n;
}

char *terminal_escape(const char *s, char *buf, size_t size) {
        static const char cut[] = "...";
        size_t total = 0, o = 0, limit;
        char piece[PIECE_MAX];

        if (size == 0)
                return buf;
        for (const unsigned char *p = (const unsigned char *) s; *p;) {
                size_t len;

                p += escape_piece(p, piece, &len);
                total += len;
        }
        /* Whole, or visibly cut short. */
        limit = total < size ? total : size - 1 >= sizeof(cut) - 1 ? size - 1 - (sizeof(cut) - 1) : 0;
        for (const unsigned char *p = (const unsigned char *) s; *p;) {
                size_t len, k = escape_piece(p, piece, &len);

                if (o + len > limit)
                        break;
                memcpy(buf + o, piece, len);
                o += len;
                p += k;
        }
        if (total >= size && o + sizeof(cut) - 1 < size) {
                memcpy(buf + o, cut, sizeof(cut) - 1);
                o += sizeof(cut) - 1;
        }
        buf[o] = 0;
        return buf;
}
