/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>

#include "macro.h"

/* Enums named in files, messages and JSON: one table of strings, indexed by
 * the value, and both directions generated from it (as systemd's
 * DEFINE_STRING_TABLE_LOOKUP). A NULL entry has no name. */

const char *string_table_to_string(const char *const *table, size_t n, int i);
/* -EINVAL (every "_INVALID" value) when @s names nothing. */
int string_table_from_string(const char *const *table, size_t n, const char *s);

/* For a table named NAME_table: const char *NAME_to_string(TYPE) and
 * TYPE NAME_from_string(const char *). */
#define DEFINE_STRING_TABLE_TO_STRING(name, type)                                               \
        const char *name##_to_string(type x) {                                                  \
                return string_table_to_string(name##_table, ELEMENTSOF(name##_table), (int) x); \
        }
#define DEFINE_STRING_TABLE_FROM_STRING(name, type)                                             \
        type name##_from_string(const char *s) {                                                \
                return (type) string_table_from_string(name##_table, ELEMENTSOF(name##_table), s); \
        }
#define DEFINE_STRING_TABLE(name, type)                 \
        DEFINE_STRING_TABLE_TO_STRING(name, type)       \
        DEFINE_STRING_TABLE_FROM_STRING(name, type)
