/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <syslog.h>

#include "macro.h"

/* Logging for front ends only: modules return -errno and the caller logs
 * once. Every message is one write() of one line:
 *
 *   stderr, plain      "PROGRAM: message" for people
 *   stderr, journal    "<N>message" when stderr is the journal stream
 *                      ($JOURNAL_STREAM names it), so it keeps its priority
 *   kmsg               "<N>PROGRAM: message" to /dev/kmsg, for programs that
 *                      run before the journal does (the generator); control
 *                      characters are escaped, a line stays one line */

typedef enum LogTarget {
        LOG_TARGET_STDERR,            /* with "<N>" prefixes when stderr is the journal */
        LOG_TARGET_KMSG,              /* falls back to stderr when /dev/kmsg cannot be written */
} LogTarget;

void log_open(const char *program_name, LogTarget target);
void log_close(void);
void log_set_max_level(int level);
void log_set_quiet(bool quiet); /* keep warnings and errors, drop notices/info */

/* Returns -abs(error) so callers can "return log_error_errno(r, ...)".
 * %m in @format prints strerror(abs(error)). */
int log_internal(int level, int error, const char *format, ...) _printf_(3, 4);

#define log_full_errno(level, error, ...) log_internal((level), (error), __VA_ARGS__)
#define log_full(level, ...) log_internal((level), 0, __VA_ARGS__)
#define log_debug(...)   log_internal(LOG_DEBUG,   0, __VA_ARGS__)
#define log_info(...)    log_internal(LOG_INFO,    0, __VA_ARGS__)
#define log_notice(...)  log_internal(LOG_NOTICE,  0, __VA_ARGS__)
#define log_warning(...) log_internal(LOG_WARNING, 0, __VA_ARGS__)
#define log_error(...)   log_internal(LOG_ERR,     0, __VA_ARGS__)
#define log_warning_errno(error, ...) log_internal(LOG_WARNING, (error), __VA_ARGS__)
#define log_error_errno(error, ...)   log_internal(LOG_ERR,     (error), __VA_ARGS__)

/* A warning callback for the configuration parsers (config_warn_t):
 * "SOURCE:LINE: message", or "SOURCE: message" without a line. */
void log_config_warning(void *userdata, const char *source, unsigned line, const char *message);
