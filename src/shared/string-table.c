// SPDX-License-Identifier: LGPL-2.1-or-later
#include "string-table.h"

const char *string_table_to_string(const char *const *table, size_t n, int i) {
        return i >= 0 && (size_t) i < n ? table[i] : NULL;
}

int string_table_from_string(const char *const *table, size_t n, const char *s) {
        for (size_t i = 0; s && i < n; i++)
                if (table[i] && streq(table[i], s))
                        return (int) i;
        return -EINVAL;
}
