// SPDX-License-Identifier: LGPL-2.1-or-later
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "macro.h"
#include "time-util.h"

usec_t now_usec(clockid_t id) {
        struct timespec ts;

        if (clock_gettime(id, &ts) < 0)
                abort(); /* only with an invalid clock id: a programming error */
        return (usec_t) ts.tv_sec * USEC_PER_SEC + (usec_t) ts.tv_nsec / NSEC_PER_USEC;
}

static const struct {
        const char *suffix;
        usec_t usec;
} duration_units[] = {
        /* Longest first, so "ms" is not taken for "m" + junk. */
        { "msec",    USEC_PER_MSEC  },
        { "ms",      USEC_PER_MSEC  },
        { "usec",    1              },
        { "us",      1              },
        { "seconds", USEC_PER_SEC   },
        { "second",  USEC_PER_SEC   },
        { "sec",     USEC_PER_SEC   },
        { "s",       USEC_PER_SEC   },
        { "minutes", USEC_PER_MINUTE },
        { "minute",  USEC_PER_MINUTE },
        { "min",     USEC_PER_MINUTE },
        { "m",       USEC_PER_MINUTE },
        { "hours",   USEC_PER_HOUR  },
        { "hour",    USEC_PER_HOUR  },
        { "h",       USEC_PER_HOUR  },
};

int parse_duration(const char *s, usec_t *ret) {
        usec_t total = 0;
        bool any = false;
        const char *e;

        if (!s)
                return -EINVAL;
        while (isspace((unsigned char) *s))
                s++;
        /* Space around it is taken as it is around "30s": "infinity "
         * (a quoted value, a careless edit) must not become a bounded
         * wait where one falls back to a default. */
        e = startswith(s, "infinity");
        if (e) {
                while (isspace((unsigned char) *e))
                        e++;
                if (*e == 0) {
                        *ret = USEC_INFINITY;
                        return 0;
                }
                return -EINVAL;
        }

        for (;;) {
                uint64_t whole = 0, frac = 0, frac_div = 1;
                const char *p;
                usec_t mult = USEC_PER_SEC;
                bool digits = false;

                while (isspace((unsigned char) *s))
                        s++;
                if (*s == 0)
                        break;

                for (; isdigit((unsigned char) *s); s++) {
                        if (whole > (UINT64_MAX - 9) / 10)
                                return -ERANGE;
                        whole = whole * 10 + (uint64_t) (*s - '0');
                        digits = true;
                }
                if (*s == '.') {
                        s++;
                        for (; isdigit((unsigned char) *s); s++) {
                                if (frac_div < 1000000000ULL) {
                                        frac = frac * 10 + (uint64_t) (*s - '0');
                                        frac_div *= 10;
                                }
                                digits = true;
                        }
                }
                if (!digits)
                        return -EINVAL;

                p = s;
                while (isalpha((unsigned char) *p))
                        p++;
                if (p != s) {
                        bool found = false;
                        for (size_t i = 0; i < ELEMENTSOF(duration_units); i++)
                                if (strlen(duration_units[i].suffix) == (size_t) (p - s) &&
                                    strncmp(s, duration_units[i].suffix, (size_t) (p - s)) == 0) {
                                        mult = duration_units[i].usec;
                                        found = true;
                                        break;
                                }
                        if (!found)
                                return -EINVAL;
                } else if (any)
                        return -EINVAL; /* a bare number only stands alone: "1min 30" is ambiguous */
                s = p;

                /* The fraction counts too: "18446744073709.9s" must not
                 * wrap past 2^64 into a wait of a third of a second. It is
                 * below @mult, so the bound cannot underflow. */
                usec_t fraction = frac * mult / frac_div;
                if (whole > (USEC_INFINITY - 1 - fraction) / mult)
                        return -ERANGE;
                usec_t v = whole * mult + fraction;
                if (v >= USEC_INFINITY - total)
                        return -ERANGE;
                total += v;
                any = true;

                if (*s != 0 && !isspace((unsigned char) *s) && !isdigit((unsigned char) *s))
                        return -EINVAL;
        }

        if (!any)
                return -EINVAL;
        *ret = total;
        return 0;
}

const char *format_duration(char *buf, size_t size, usec_t u) {
        if (u == USEC_INFINITY)
                snprintf(buf, size, "infinity");
        else if (u >= USEC_PER_MINUTE)
                snprintf(buf, size, "%llumin %llu.%03llus",
                         (unsigned long long) (u / USEC_PER_MINUTE),
                         (unsigned long long) (u % USEC_PER_MINUTE / USEC_PER_SEC),
                         (unsigned long long) (u % USEC_PER_SEC / USEC_PER_MSEC));
        else
                snprintf(buf, size, "%llu.%03llus",
                         (unsigned long long) (u / USEC_PER_SEC),
                         (unsigned long long) (u % USEC_PER_SEC / USEC_PER_MSEC));
        return buf;
}
