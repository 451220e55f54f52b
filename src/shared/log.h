/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <syslog.h>

#include "macro.h"

/* Logging for front ends only: modules return -errno and the caller logs once.
 * When stderr is the journal ($JOURNAL_STREAM matches it) each line carries a
 * "<N>" syslog priority prefix; otherwise it is plain text for people. */

void log_open(const char *program_name);
void log_set_max_level(int level);
void log_set_quiet(bool quiet); /* keep warnings and errors, drop notices/info */

/* Returns -abs(error) so callers can "return log_error_errno(r, ...)".
 * %m in @format prints strerror(abs(error)). */
int log_internal(int level, int error, const char *format, ...) _printf_(3, 4);

#define log_full_errno(level, error, ...) log_internal((level), (error), __VA_ARGS__)
#define log_debug(...)   log_internal(LOG_DEBUG,   0, __VA_ARGS__)
#define log_info(...)    log_internal(LOG_INFO,    0, __VA_ARGS__)
#define log_notice(...)  log_internal(LOG_NOTICE,  0, __VA_ARGS__)
#define log_warning(...) log_internal(LOG_WARNING, 0, __VA_ARGS__)
#define log_error(...)   log_internal(LOG_ERR,     0, __VA_ARGS__)
#define log_warning_errno(error, ...) log_internal(LOG_WARNING, (error), __VA_ARGS__)
#define log_error_errno(error, ...)   log_internal(LOG_ERR,     (error), __VA_ARGS__)
