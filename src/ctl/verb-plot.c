// SPDX-License-Identifier: LGPL-2.1-or-later
/* entropyctl plot [FILE] [--compare=OTHER] [--output=SVG]: this boot, or a
 * saved "timeline --json", as a picture; with --compare= a second boot
 * below it on the same time axis. The name is systemd-analyze's verb for
 * its own picture of a boot, and the picture is drawn from the same model
 * "timeline" prints, so the two never disagree. With --json= (as
 * systemd-analyze plot takes it) the boots it would draw, each a labelled
 * "timeline --json" document, instead of the picture. */
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>

#include "ctl.h"
#include "io-util.h"
#include "log.h"
#include "macro.h"
#include "output.h"
#include "plot.h"
#include "timeline.h"

/* A saved timeline is a few KiB; a bound, as for every file we read. */
#define TIMELINE_FILE_MAX (4U * 1024U * 1024U)

/* The label of a boot read from @path: its file name without ".json". */
static char *label_from_path(const char *path) {
        _cleanup_free_ char *copy = strdup(path);
        char *b, *dot;

        if (!copy)
                return NULL;
        b = strdup(basename(copy));
        if (b && (dot = strrchr(b, '.')) && dot != b && streq(dot, ".json"))
                *dot = 0;
        return b;
}

static int timeline_load(Timeline *t, const char *path) {
        _cleanup_free_ char *text = NULL;
        char error[160] = "";
        size_t size;
        int r;

        r = read_file_at(AT_FDCWD, path, TIMELINE_FILE_MAX, READ_NUL_TERMINATE | READ_REFUSE_NUL, &text, &size, NULL);
        if (r < 0)
                return log_error_errno(r, "Failed to read %s: %m", path);
        r = timeline_from_json(t, text, error, sizeof error);
        if (r == -EBADMSG)
                log_error("%s is not a saved 'entropyctl timeline --json': %s", path, error);
        else if (r < 0)
                log_error_errno(r, "Failed to read %s: %m", path);
        return r;
}

static void write_json(FILE *f, JsonFormat format, const Timeline *t, char *const *labels, unsigned n) {
        JsonWriter j;

        json_init(&j, f, format);
        json_object_begin(&j, NULL);
        json_int(&j, "schema_version", 1);
        json_array_begin(&j, "boots");
        for (unsigned i = 0; i < n; i++) {
                json_object_begin(&j, NULL);
                json_string(&j, "label", labels[i]);
                timeline_json(&j, "timeline", t + i);
                json_object_end(&j);
        }
        json_array_end(&j);
        json_object_end(&j);
}

int verb_plot(int argc, char *argv[], const CtlArgs *a) {
        Timeline t[2] = {};
        PlotBoot boots[2];
        char *labels[2] = {};
        const char *paths[2] = { argc > 1 ? argv[1] : NULL, a->compare };
        _cleanup_free_ char *text = NULL;
        size_t text_size = 0;
        unsigned n = a->compare ? 2 : 1;
        FILE *f;
        int r, ret = CTL_EXIT_FAILURE;

        for (unsigned i = 0; i < n; i++) {
                if (paths[i]) {
                        if (timeline_load(t + i, paths[i]) < 0)
                                goto out;
                        labels[i] = label_from_path(paths[i]);
                } else {
                        r = timeline_gather(t + i);
                        if (r < 0) {
                                log_error_errno(r, "Failed to assemble the timeline: %m");
                                goto out;
                        }
                        labels[i] = strdup("this boot");
                }
                if (!labels[i]) {
                        log_error_errno(-ENOMEM, "Out of memory.");
                        goto out;
                }
                plot_boot_from_timeline(t + i, labels[i], boots + i);
        }

        f = open_memstream(&text, &text_size);
        if (!f) {
                log_error_errno(-errno, "Out of memory.");
                goto out;
        }
        if (a->json != JSON_FORMAT_OFF)
                write_json(f, a->json, t, labels, n);
        else
                plot_write_svg(f, boots, n);
        if (fclose(f) != 0) {
                log_error_errno(-ENOMEM, "Out of memory.");
                goto out;
        }

        /* -q: nothing on standard output; a file asked for, or JSON, is
         * still written. */
        r = a->quiet && !a->output && a->json == JSON_FORMAT_OFF ? 0 : output_write(a->output, text, text_size);
        if (r == -EEXIST) {
                log_error("%s is not a regular file: not replaced.", a->output);
                goto out;
        }
        if (r < 0) {
                log_error_errno(r, "Failed to write the %s to %s: %m", a->json != JSON_FORMAT_OFF ? "boots" : "picture",
                                a->output ?: "standard output");
                goto out;
        }
        ret = CTL_EXIT_OK;
out:
        for (unsigned i = 0; i < 2; i++) {
                timeline_done(t + i);
                free(labels[i]);
        }
        return ret;
}
