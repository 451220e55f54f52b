// SPDX-License-Identifier: LGPL-2.1-or-later
#include <string.h>

#include "macro.h"
#include "unit-name.h"

static const char *const unit_types[] = {
        "service", "socket", "target", "device", "mount", "automount",
        "swap", "timer", "path", "slice", "scope",
};

static bool char_ok(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == ':' || c == '-' || c == '_' || c == '.' || c == '\\';
}

bool unit_name_is_valid(const char *name) {
        const char *dot, *at = NULL;
        bool type_ok = false;

        if (!name || !*name || strlen(name) >= UNIT_NAME_MAX)
                return false;

        dot = strrchr(name, '.');
        if (!dot || dot == name)
                return false;
        for (size_t i = 0; i < ELEMENTSOF(unit_types); i++)
                if (streq(dot + 1, unit_types[i]))
                        type_ok = true;
        if (!type_ok)
                return false;

        for (const char *p = name; p < dot; p++) {
                if (*p == '@') {
                        if (at)
                                return false;
                        at = p;
                } else if (!char_ok(*p))
                        return false;
        }
        /* "@.service" has no prefix; "foo@.service" is a template, "foo@bar.service" an instance. */
        if (at == name)
                return false;
        return true;
}
