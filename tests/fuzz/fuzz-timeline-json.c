// SPDX-License-Identifier: LGPL-2.1-or-later
/* "entropyctl plot FILE" reads a saved timeline that may come from any
 * machine: any bytes must parse or be refused without crashing, reading
 * out of bounds or leaking; what parses must draw, and what it writes
 * back as JSON must read again to the same events. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "json-parse.h"
#include "macro.h"
#include "plot.h"
#include "timeline.h"

static Timeline t, u;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char error[160], *text, *out = NULL;
        size_t out_size = 0;
        PlotBoot b;
        FILE *f;

        text = strndup((const char *) data, size);
        if (!text)
                return 0;
        memset(&t, 0, sizeof t);
        if (timeline_from_json(&t, text, error, sizeof error) < 0) {
                if (strlen(error) >= sizeof error)
                        abort();
                goto done;
        }
        for (unsigned i = 1; i < t.n; i++)
                if (t.events[i].usec < t.events[i - 1].usec)
                        abort();

        plot_boot_from_timeline(&t, "fuzz", &b);
        f = open_memstream(&out, &out_size);
        if (!f)
                abort();
        plot_write_svg(f, &b, 1);
        timeline_write_json(&t, f, JSON_FORMAT_SHORT);
        if (fclose(f) != 0)
                abort();
        free(out);

        /* Written back, read again: the same events. */
        out = NULL;
        f = open_memstream(&out, &out_size);
        if (!f)
                abort();
        timeline_write_json(&t, f, JSON_FORMAT_SHORT);
        if (fclose(f) != 0)
                abort();
        memset(&u, 0, sizeof u);
        if (timeline_from_json(&u, out, error, sizeof error) < 0 || u.n != t.n)
                abort();
        for (unsigned i = 0; i < t.n; i++)
                if (u.events[i].usec != t.events[i].usec || u.events[i].kind != t.events[i].kind)
                        abort();
        timeline_done(&u);
        free(out);
done:
        timeline_done(&t);
        free(text);
        return 0;
}
