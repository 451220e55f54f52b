// SPDX-License-Identifier: LGPL-2.1-or-later
#include <stdint.h>

#include "utf8.h"

size_t utf8_valid_length(const unsigned char *s) {
        unsigned char c = s[0];
        uint32_t cp;
        size_t n;

        if (c < 0x80)
                return 1;
        if (c >= 0xc2 && c <= 0xdf) {
                n = 2;
                cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
                n = 3;
                cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
                n = 4;
                cp = c & 0x07;
        } else
                return 0; /* 0x80..0xc1 (continuation, overlong lead), 0xf5..0xff */

        for (size_t i = 1; i < n; i++) {
                /* Also stops at the NUL terminator, which is not a continuation byte. */
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                cp = (cp << 6) | (s[i] & 0x3f);
        }
        if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000))
                return 0;
        if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
                return 0;
        return n;
}

unsigned utf8_code_point(const unsigned char *s, size_t n) {
        static const unsigned char lead_mask[5] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
        unsigned cp = s[0] & lead_mask[n];

        for (size_t i = 1; i < n; i++)
                cp = (cp << 6) | (s[i] & 0x3f);
        return cp;
}

bool utf8_code_point_is_control(unsigned cp) {
        return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp == 0x61c || cp == 0x200e || cp == 0x200f ||
                (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

bool utf8_is_valid(const char *s) {
        for (const unsigned char *p = (const unsigned char *) s; *p;) {
                size_t n = utf8_valid_length(p);

                if (n == 0)
                        return false;
                p += n;
        }
        return true;
}
