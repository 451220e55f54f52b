// SPDX-License-Identifier: LGPL-2.1-or-later
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "log.h"

static const char *log_program = "entropy-gate";
static int log_max_level = LOG_INFO;
static bool log_quiet;
static int log_prefix = -1; /* -1: not yet determined */

/* systemd sets JOURNAL_STREAM=<dev>:<ino> for the stream it connects to
 * stderr; if stderr is still that stream, the journal reads "<N>" prefixes
 * as priorities. If stderr was redirected since, it is not the journal. */
static bool stderr_is_journal(void) {
        const char *e = getenv("JOURNAL_STREAM");
        unsigned long long dev, ino;
        struct stat st;

        if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2)
                return false;
        if (fstat(STDERR_FILENO, &st) < 0)
                return false;
        return (unsigned long long) st.st_dev == dev && (unsigned long long) st.st_ino == ino;
}

void log_open(const char *program_name) {
        if (program_name)
                log_program = program_name;
        log_prefix = stderr_is_journal();
}

void log_set_max_level(int level) {
        log_max_level = level;
}

void log_set_quiet(bool quiet) {
        log_quiet = quiet;
}

int log_internal(int level, int error, const char *format, ...) {
        int saved_errno = errno;
        va_list ap;

        if (error < 0)
                error = -error;

        if (level > log_max_level || (log_quiet && level > LOG_WARNING))
                goto finish;
        if (log_prefix < 0)
                log_prefix = stderr_is_journal();

        /* %m must expand to the error we were given, not whatever errno is. */
        errno = error;
        if (log_prefix)
                fprintf(stderr, "<%i>", level);
        else
                fprintf(stderr, "%s: ", log_program);
        va_start(ap, format);
        vfprintf(stderr, format, ap);
        va_end(ap);
        fputc('\n', stderr);

finish:
        errno = saved_errno;
        return -error;
}
