// SPDX-License-Identifier: LGPL-2.1-or-later
/* How the cost of reading configuration grows with its size: the parser
 * (conf_parse_text() through config_parse_text()) and the kernel command
 * line's (proc_cmdline_get_key()) on texts of 10^3 to 10^6 entries of each
 * shape an attacker or a careless generator could produce, and the loader
 * (config_load()) on drop-in directories around its cap. Prints, for each
 * shape, the best of a few runs at each size, the time per entry and the
 * ratio of the time at 10^6 entries to the time at 10^3: linear cost makes
 * it about 1000, quadratic about 10^6. A benchmark, not a test: it prints
 * figures and judges nothing.
 *
 * usage: cmake --build BUILD --target bench-config && BUILD/tests/bench-config [MAX]
 *   MAX  the largest size (default 1000000) */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "paths.h"
#include "proc-cmdline.h"
#include "root.h"

static double now_ms(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

/* A growing text. */
typedef struct Text {
        char *s;
        size_t len, size;
} Text;

static void add(Text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(Text *t, const char *fmt, ...) {
        va_list ap;
        int n;

        for (;;) {
                va_start(ap, fmt);
                n = vsnprintf(t->s + t->len, t->size - t->len, fmt, ap);
                va_end(ap);
                if (n >= 0 && (size_t) n < t->size - t->len)
                        break;
                t->size = t->size * 2 + 4096;
                t->s = realloc(t->s, t->size);
                if (!t->s)
                        abort();
        }
        t->len += (size_t) n;
}

typedef enum Shape {
        SHAPE_DUPLICATE_KEYS,        /* Timeout=Ns, N times */
        SHAPE_UNITS_ONE_LIST,        /* Units=u0 u1 ... on one line (names repeat past the cap) */
        SHAPE_UNITS_LINES,           /* Units=uK on N lines */
        SHAPE_CONTINUED,             /* one Units= line continued N times */
        SHAPE_COMMENTS,              /* N comment lines, then one setting */
        SHAPE_SECTIONS,              /* [Gate] and [X-Other] headers, N of them */
        SHAPE_CMDLINE,               /* N parameters, the one asked for last */
        _SHAPE_MAX,
} Shape;

static const char *const shape_name[_SHAPE_MAX] = {
        [SHAPE_DUPLICATE_KEYS] = "duplicated keys (Timeout= N times)",
        [SHAPE_UNITS_ONE_LIST] = "one Units= list of N names",
        [SHAPE_UNITS_LINES]    = "N Units= lines",
        [SHAPE_CONTINUED]      = "one line continued N times",
        [SHAPE_COMMENTS]       = "N comment lines",
        [SHAPE_SECTIONS]       = "N section headers",
        [SHAPE_CMDLINE]        = "kernel command line of N parameters",
};

static void make_text(Shape shape, size_t n, Text *t) {
        t->len = 0;
        add(t, "%s", shape == SHAPE_CMDLINE ? "" : "[Gate]\n");
        for (size_t i = 0; i < n; i++)
                switch (shape) {
                case SHAPE_DUPLICATE_KEYS:
                        add(t, "Timeout=%zus\n", i % 100 + 1);
                        break;
                case SHAPE_UNITS_ONE_LIST:
                        add(t, "%su%zu.service", i == 0 ? "Units=" : " ", i % 8192);
                        break;
                case SHAPE_UNITS_LINES:
                        add(t, "Units=u%zu.service\n", i % 8192);
                        break;
                case SHAPE_CONTINUED:
                        add(t, "%su%zu.service \\\n", i == 0 ? "Units=" : "", i % 1000);
                        break;
                case SHAPE_COMMENTS:
                        add(t, "# comment %zu\n", i);
                        break;
                case SHAPE_SECTIONS:
                        add(t, i % 2 ? "[X-Other]\nA=%zu\n" : "[Gate]\nWarnAfter=%zus\n", i % 100 + 1);
                        break;
                case SHAPE_CMDLINE:
                        add(t, "p%zu=\"v %zu\" ", i, i);
                        break;
                default:
                        abort();
                }
        if (shape == SHAPE_CMDLINE)
                add(t, "entropy_gate.credit=0");
        else
                add(t, "\nTimeout=1s\n");
}

static double run_once(Shape shape, const Text *t) {
        double t0 = now_ms();

        if (shape == SHAPE_CMDLINE) {
                char *v = NULL;

                if (proc_cmdline_get_key(t->s, "entropy_gate.credit", &v) != 1)
                        abort();
                free(v);
        } else {
                Config c;

                if (config_init(&c) < 0 || config_parse_text(&c, t->s, "bench.conf", NULL, NULL) < 0)
                        abort();
                config_done(&c);
        }
        return now_ms() - t0;
}

static double best_of(Shape shape, const Text *t, int runs) {
        double best = 1e300;

        for (int i = 0; i < runs; i++) {
                double d = run_once(shape, t);
                if (d < best)
                        best = d;
        }
        return best;
}

/* The loader over @n empty drop-ins plus one that says something. */
static double load_dropins(size_t n) {
        char root[] = "/tmp/eg-bench-config.XXXXXX", path[4096];
        double t0, d;
        Config c;

        if (!mkdtemp(root))
                abort();
        snprintf(path, sizeof(path), "mkdir -p '%s%s' '%s/proc' && touch '%s/proc/cmdline'", root, CONF_DROPIN_DIR, root, root);
        if (system(path) != 0)
                abort();
        for (size_t i = 0; i < n; i++) {
                FILE *f;

                snprintf(path, sizeof(path), "%s%s/%07zu.conf", root, CONF_DROPIN_DIR, i);
                f = fopen(path, "w");
                if (!f)
                        abort();
                fprintf(f, "[Gate]\nUnits=u%zu.service\n", i);
                fclose(f);
        }
        root_set(root);
        t0 = now_ms();
        if (config_load(&c, NULL, NULL) < 0)
                abort();
        d = now_ms() - t0;
        printf("  %8zu drop-ins  %10.3f ms  %8.0f ns each  %s\n", n, d, d * 1e6 / (double) (n ?: 1),
               c.broken ? "refused (over the cap), crediting off" : "read");
        config_done(&c);
        root_set(NULL);
        snprintf(path, sizeof(path), "rm -rf '%s'", root);
        (void) system(path);
        return d;
}

int main(int argc, char *argv[]) {
        size_t max = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
        Text t = {};

        printf("Configuration and kernel command line parsing, best of 3 runs (ms)\n");
        printf("caps: %u drop-ins, %u bytes of files, %u units; the parser itself has none\n\n",
               CONFIG_DROPINS_MAX, CONFIG_TOTAL_MAX, CONFIG_UNITS_MAX);
        for (Shape s = 0; s < _SHAPE_MAX; s++) {
                double first = 0, last = 0;
                size_t last_n = 0;

                printf("%s\n", shape_name[s]);
                for (size_t n = 1000; n <= max; n *= 10) {
                        double d;

                        make_text(s, n, &t);
                        d = best_of(s, &t, 3);
                        printf("  N=%-8zu %8zu bytes  %10.3f ms  %8.1f ns/entry\n", n, t.len, d, d * 1e6 / (double) n);
                        if (n == 1000)
                                first = d;
                        last = d;
                        last_n = n;
                }
                if (last_n > 1000 && first > 0)
                        printf("  growth: time(N=%zu) / time(N=1000) = %.0f for %zux the entries\n\n", last_n,
                               last / first, last_n / 1000);
        }

        printf("The loader (config_load()) on drop-in directories\n");
        for (size_t n = 10; n <= 10000 && n <= max; n *= 10)
                (void) load_dropins(n);
        (void) load_dropins(CONFIG_DROPINS_MAX);
        (void) load_dropins(CONFIG_DROPINS_MAX + 1);
        free(t.s);
        return 0;
}
