// SPDX-License-Identifier: LGPL-2.1-or-later
/* The picture's facts taken from a timeline, and the SVG drawn from them:
 * every mark where it belongs, hostile text escaped, nothing external. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "macro.h"
#include "plot.h"

static void add(Timeline *t, usec_t usec, EventKind kind, const char *source, const char *unit, const char *text) {
        assert_true(t->n < TIMELINE_EVENTS_MAX);
        t->events[t->n] = (Event) { .usec = usec, .order = t->n, .kind = kind, .source = source,
                                    .unit = unit ? strdup(unit) : NULL, .text = strdup(text) };
        t->n++;
}

/* A cold boot: no seed, the gate waits for the kernel, two consumers. */
static void cold_boot(Timeline *t) {
        add(t, 0, EVENT_KERNEL_STARTED, "kernel", NULL, "kernel started");
        add(t, 2000000, EVENT_USERSPACE_STARTED, "journal", NULL, "user space started: Run /init as init process");
        add(t, 4000000, EVENT_SEED_UNIT_STARTING, "systemd", "entropy-seed.service", "entropy-seed.service: starting (load)");
        add(t, 4100000, EVENT_SEED_LOADED, "runstate", "entropy-seed.service",
            "entropy-seed: seed loaded, not credited: no seed file");
        add(t, 4200000, EVENT_GATE_UNIT_STARTING, "systemd", "entropy-gate.service", "entropy-gate.service: starting");
        add(t, 5000000, EVENT_GATE_STARTED, "runstate", "entropy-gate.service",
            "entropy-gate started: the pool was not initialized, waiting");
        add(t, 6000000, EVENT_CRNG_INIT_DONE, "journal", NULL, "kernel: random: crng init done");
        add(t, 6001000, EVENT_GATE_RELEASED, "runstate", "entropy-gate.service", "entropy-gate released: ready, waited 1.001s");
        add(t, 6002000, EVENT_GATE_UNIT_READY, "systemd", "entropy-gate.service", "entropy-gate.service: ready (READY=1)");
        add(t, 6003000, EVENT_TARGET_REACHED, "systemd", "entropy-ready.target", "entropy-ready.target reached");
        add(t, 6100000, EVENT_UNIT_STARTING, "systemd", "ssh-keygen.service", "ssh-keygen.service starting (ordered after entropy-ready.target)");
        add(t, 6200000, EVENT_UNIT_STARTING, "systemd", "a<b>&\"c\".service", "odd");
        add(t, 7500000, EVENT_UNIT_STARTED, "systemd", "ssh-keygen.service", "ssh-keygen.service started (ordered after entropy-ready.target)");
}

static void test_facts(void **state) {
        Timeline t = {};
        PlotBoot b;

        cold_boot(&t);
        plot_boot_from_timeline(&t, "cold", &b);
        assert_true(b.userspace == 2000000);
        assert_true(b.crng_found && b.crng == 6000000);
        assert_true(b.seed.start == 4000000 && b.seed.end == 4100000);
        assert_true(b.gate.start == 4200000 && b.gate.end == 6002000);
        assert_true(b.wait.start == 5000000 && b.wait.end == 6001000);
        assert_true(b.target == 6003000);
        assert_string_equal(b.seed_verdict, "not credited: no seed file");
        assert_string_equal(b.credential_verdict, "none passed to this boot");
        assert_string_equal(b.gate_verdict, "ready, waited 1.001s");
        assert_int_equal(b.n_units, 2);
        assert_string_equal(b.units[0].name, "ssh-keygen.service");
        assert_true(b.units[0].span.start == 6100000 && b.units[0].span.end == 7500000);
        assert_true(b.units[1].span.start == 6200000 && b.units[1].span.end == 0);
        assert_true(b.end == 7500000);
        timeline_done(&t);

        /* An empty timeline draws as "not recorded", without crashing. */
        Timeline e = {};
        plot_boot_from_timeline(&e, "empty", &b);
        assert_false(b.crng_found);
        assert_null(b.seed_verdict);
        assert_null(b.credential_verdict);
        assert_int_equal(b.n_units, 0);
}

static char *draw(const PlotBoot *boots, unsigned n) {
        char *svg = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&svg, &size);

        assert_non_null(f);
        plot_write_svg(f, boots, n);
        assert_int_equal(fclose(f), 0);
        return svg;
}

static void test_svg(void **state) {
        Timeline t = {}, e = {};
        PlotBoot b[2];
        char *svg;

        cold_boot(&t);
        t.have_provenance = true;
        t.provenance = PROVENANCE_JITTER;
        t.provenance_text = strdup("most likely ready by the kernel's jitter generator after 1.001s of waiting: "
                                   "nothing credited, <no> hardware RNG");
        assert_non_null(t.provenance_text);
        assert_int_equal(entropy_samples_parse("0:23 1000:140 1001:256", &t.entropy_avail), 0);
        t.entropy_avail_start = 5 * USEC_PER_SEC;
        plot_boot_from_timeline(&t, "boot <1>", b);
        plot_boot_from_timeline(&e, "empty", b + 1);
        assert_string_equal(b[0].provenance, t.provenance_text);
        assert_null(b[1].provenance);
        svg = draw(b, 2);
        /* How the pool became ready, in words, escaped; "not recorded" for a timeline without it. */
        assert_non_null(strstr(svg, "Pool ready:</tspan> most likely ready by the kernel's jitter generator after "
                               "1.001s of waiting: nothing credited, &lt;no&gt; hardware RNG</text>"));
        assert_non_null(strstr(svg, "Pool ready:</tspan> not recorded</text>"));
        /* entropy_avail over the gate's wait, in the first boot only (and the legend). */
        const char *line = strstr(svg, "<polyline class=\"entropy\"");
        assert_non_null(line);
        assert_non_null(strstr(line, "<title>entropy_avail while the gate waited: 23 to 256 bits (3 samples)</title>"));
        assert_null(strstr(strstr(line, "</polyline>"), "<polyline class=\"entropy\" fill=\"none\" stroke-width=\"1.5\" points"));

        assert_non_null(startswith(svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert_non_null(strstr(svg, "</svg>\n"));
        /* Light and dark. */
        assert_non_null(strstr(svg, "@media (prefers-color-scheme:dark)"));
        /* Self-contained: no script, no link, nothing fetched. */
        assert_null(strstr(svg, "<script"));
        assert_null(strstr(svg, "href"));
        assert_null(strstr(svg, "@import"));
        assert_null(strstr(svg, "url("));
        /* The marks and the words. */
        assert_non_null(strstr(svg, "<line class=\"crng\""));
        assert_non_null(strstr(svg, "crng init done 6.00 s"));
        assert_non_null(strstr(svg, "user space started 2.00 s"));
        assert_non_null(strstr(svg, "class=\"bar consumer\""));
        assert_non_null(strstr(svg, "data-unit=\"ssh-keygen.service\""));
        assert_non_null(strstr(svg, "class=\"wait-band\""));
        assert_non_null(strstr(svg, "not credited: no seed file"));
        assert_non_null(strstr(svg, "none passed to this boot"));
        assert_non_null(strstr(svg, "crng init done: not found in this boot's records"));
        assert_non_null(strstr(svg, "Boots compared: boot &lt;1&gt; vs empty"));
        /* Text from logs and unit names is escaped, never markup. */
        assert_non_null(strstr(svg, "a&lt;b&gt;&amp;&quot;c&quot;.service"));
        assert_null(strstr(svg, "<b>"));
        free(svg);

        /* U+FFFE and U+FFFF are valid UTF-8 that XML forbids: replaced. */
        plot_boot_from_timeline(&e, "odd \xef\xbf\xbe\xef\xbf\xbf label", b);
        svg = draw(b, 1);
        assert_non_null(strstr(svg, "odd \ufffd\ufffd label"));
        assert_null(strstr(svg, "\xef\xbf\xbe"));
        assert_null(strstr(svg, "\xef\xbf\xbf"));
        free(svg);
        timeline_done(&t);
}

/* A saved file may hold any number: times at the end of the clock draw at
 * the end of a bounded axis, never as NaN or a wrapped sum. */
static void test_huge_times(void **state) {
        Timeline t = {};
        PlotBoot b;
        char *svg;

        add(&t, 0, EVENT_KERNEL_STARTED, "kernel", NULL, "kernel started");
        add(&t, UINT64_MAX, EVENT_CRNG_INIT_DONE, "kernel", NULL, "kernel: random: crng init done");
        add(&t, UINT64_MAX - 5, EVENT_GATE_STARTED, "runstate", "entropy-gate.service", "entropy-gate started");
        add(&t, UINT64_MAX, EVENT_GATE_RELEASED, "runstate", "entropy-gate.service", "entropy-gate released: ready");
        assert_int_equal(entropy_samples_parse("0:1 4294967295:256", &t.entropy_avail), 0);
        t.entropy_avail_start = UINT64_MAX - 5;
        plot_boot_from_timeline(&t, "huge", &b);
        assert_true(b.end == UINT64_MAX);
        svg = draw(&b, 1);
        assert_null(strstr(svg, "nan"));
        assert_null(strstr(svg, "inf"));
        assert_non_null(strstr(svg, "<polyline class=\"entropy\""));
        free(svg);
        timeline_done(&t);
}

static void test_axis_and_escaping(void **state) {
        Timeline t = {};
        PlotBoot b;
        char *svg;

        /* Control characters and invalid UTF-8 from a log line. */
        add(&t, 0, EVENT_KERNEL_STARTED, "kernel", NULL, "kernel started");
        add(&t, 90 * USEC_PER_SEC, EVENT_SEED_LOADED, "journal", "entropy-seed.service",
            "entropy-seed: credited \x1b[31m\xff bits");
        plot_boot_from_timeline(&t, "long", &b);
        svg = draw(&b, 1);
        assert_null(strchr(svg, '\x1b'));
        assert_non_null(strstr(svg, "credited  [31m\xef\xbf\xbd bits"));
        /* 90 s: ticks of 10 s, the last at 90. */
        assert_non_null(strstr(svg, ">90 s</text>"));
        assert_null(strstr(svg, ">100 s</text>"));
        free(svg);
        timeline_done(&t);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_facts),
                cmocka_unit_test(test_svg),
                cmocka_unit_test(test_axis_and_escaping),
                cmocka_unit_test(test_huge_times),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
