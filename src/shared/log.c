// SPDX-License-Identifier: LGPL-2.1-or-later
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "io-util.h"
#include "log.h"
#include "utf8.h"

/* Room for a message naming two whole paths (a --root tree may be deep):
 * none is cut short. /dev/kmsg refuses a record over 1 KiB: such a line
 * goes to stderr instead, whole. */
#define LOG_LINE_MAX (2 * PATH_MAX)

static const char *log_program = "entropy-gate";
static int log_max_level = LOG_INFO;
static bool log_quiet;
static int log_prefix = -1;            /* stderr is the journal; -1: not yet determined */
static int log_kmsg_fd = -EBADF;

/* A decimal number ending at @end_char; NULL when @s is not one. */
static const char *parse_ull(const char *s, char end_char, unsigned long long *ret) {
        char *end;

        if (*s < '0' || *s > '9')
                return NULL;
        errno = 0;
        *ret = strtoull(s, &end, 10);
        return errno == 0 && *end == end_char ? end : NULL;
}

/* systemd sets JOURNAL_STREAM=<dev>:<ino> for the stream it connects to
 * stderr; if stderr is still that stream, the journal reads "<N>" prefixes
 * as priorities. If stderr was redirected since, it is not the journal.
 * (No sscanf(): in a static musl binary it brings 10 KiB of scanf and
 * floating point parsing along.) */
static bool stderr_is_journal(void) {
        const char *e = getenv("JOURNAL_STREAM");
        unsigned long long dev, ino;
        struct stat st;

        if (!e || !(e = parse_ull(e, ':', &dev)) || !parse_ull(e + 1, 0, &ino))
                return false;
        if (fstat(STDERR_FILENO, &st) < 0)
                return false;
        return (unsigned long long) st.st_dev == dev && (unsigned long long) st.st_ino == ino;
}

void log_open(const char *program_name, LogTarget target) {
        const char *t;

        if (program_name)
                log_program = program_name;
        /* Found out at the first message: a run that has nothing to say
         * (the gate on a ready pool) makes no fstat() of stderr. */
        log_prefix = -1;
        log_kmsg_fd = safe_close(log_kmsg_fd);
        /* As systemd's own generators: SYSTEMD_LOG_TARGET=console keeps
         * messages on the console (stderr), e.g. when run by hand. */
        t = getenv("SYSTEMD_LOG_TARGET");
        if (target == LOG_TARGET_KMSG && !(t && streq(t, "console"))) {
                log_kmsg_fd = open("/dev/kmsg", O_WRONLY | O_NOCTTY | O_CLOEXEC);
                if (log_kmsg_fd < 0)
                        log_kmsg_fd = -EBADF;
        }
}

void log_close(void) {
        log_kmsg_fd = safe_close(log_kmsg_fd);
}

void log_set_max_level(int level) {
        log_max_level = level;
}

void log_set_quiet(bool quiet) {
        log_quiet = quiet;
}

/* Anything not printable becomes \xNN, and so does a backslash: a name
 * holding the four characters "\x0a" and one holding a newline stay two
 * different lines in the journal. Not printable: what a terminal acts on
 * (utf8_code_point_is_control(): U+009B is CSI) and every byte that is not
 * part of valid UTF-8 (a terminal may take a lone 0x9b as CSI too): names
 * from an image's tree and configuration reach a terminal this way. */
static size_t escape_line(char *out, size_t size, const char *in) {
        size_t o = 0;

        for (const unsigned char *p = (const unsigned char *) in; *p;) {
                size_t n = utf8_valid_length(p);

                if (n == 0 || *p == '\\' || utf8_code_point_is_control(utf8_code_point(p, n))) {
                        /* Each byte of it, so that nothing is lost. */
                        for (size_t i = 0; i < MAX(n, (size_t) 1); i++) {
                                if (o + 5 >= size)
                                        goto done;
                                o += (size_t) snprintf(out + o, size - o, "\\x%02x", p[i]);
                        }
                        p += MAX(n, (size_t) 1);
                        continue;
                }
                /* A character is copied whole or not at all. */
                if (o + n + 1 >= size)
                        break;
                memcpy(out + o, p, n);
                o += n;
                p += n;
        }
done:
        out[o] = 0;
        return o;
}

/* @k is what snprintf() wanted to write into @line: a message cut short
 * still ends with its newline. */
static size_t line_length(char *line, size_t size, int k) {
        if (k < 0)
                return 0;
        if ((size_t) k >= size) {
                line[size - 2] = '\n';
                return size - 1;
        }
        return (size_t) k;
}

int log_internal(int level, int error, const char *format, ...) {
        int saved_errno = errno;
        char msg[LOG_LINE_MAX], esc[LOG_LINE_MAX], line[LOG_LINE_MAX + 64];
        va_list ap;
        int k;

        if (error < 0)
                error = -error;

        if (level > log_max_level || (log_quiet && level > LOG_WARNING))
                goto finish;
        if (log_prefix < 0)
                log_prefix = stderr_is_journal();

        /* %m must expand to the error we were given, not whatever errno is. */
        errno = error;
        va_start(ap, format);
        (void) vsnprintf(msg, sizeof(msg), format, ap);
        va_end(ap);

        /* Names in messages come from files and the command line: escaped,
         * a message stays one line whatever it quotes. */
        (void) escape_line(esc, sizeof(esc), msg);
        if (log_kmsg_fd >= 0) {
                /* One write() per record, as /dev/kmsg wants. */
                k = snprintf(line, sizeof(line), "<%i>%s: %s\n", level, log_program, esc);
                if (write(log_kmsg_fd, line, line_length(line, sizeof(line), k)) >= 0)
                        goto finish;
        }
        if (log_prefix > 0)
                k = snprintf(line, sizeof(line), "<%i>%s\n", level, esc);
        else
                k = snprintf(line, sizeof(line), "%s: %s\n", log_program, esc);
        (void) loop_write(STDERR_FILENO, line, line_length(line, sizeof(line), k));

finish:
        errno = saved_errno;
        return -error;
}

void log_config_warning(void *userdata, const char *source, unsigned line, const char *message) {
        if (line > 0)
                log_warning("%s:%u: %s", source, line, message);
        else
                log_warning("%s: %s", source, message);
}
