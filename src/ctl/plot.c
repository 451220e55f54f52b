// SPDX-License-Identifier: LGPL-2.1-or-later
/* The picture of a boot: a time axis from the kernel's start, the kernel's
 * events as vertical lines ("user space started", "crng init done"), our
 * units and every unit ordered after entropy-ready.target as bars from
 * "starting" to "ready", the gate's own wait shaded, the verdicts on the
 * seed and the credential in words, how the pool most likely became ready,
 * a legend.
 *
 * It is meant to be looked at by a person, in a browser or an image viewer,
 * light or dark: all colours are CSS variables with a dark set under
 * prefers-color-scheme (and plain attributes as the fallback for viewers
 * without CSS), the background is painted (a transparent picture on a dark
 * page loses its text), and every word is SVG <text>, selectable and
 * searchable. Nothing is loaded from anywhere: no fonts, scripts or links. */
#include <inttypes.h>

#include "json.h"
#include "macro.h"
#include "plot.h"

/* ---- The facts a picture needs ---- */

static const char *after_prefix(const char *s, const char *prefix) {
        const char *p = startswith(s, prefix);

        return p ?: s;
}

static void span_begin(PlotSpan *s, usec_t u) {
        if (s->start == 0 || u < s->start)
                s->start = u;
}

static void span_finish(PlotSpan *s, usec_t u) {
        if (u > s->end)
                s->end = u;
}

static PlotUnit *unit_get(PlotBoot *b, const char *name) {
        for (unsigned i = 0; i < b->n_units; i++)
                if (streq(b->units[i].name, name))
                        return b->units + i;
        if (b->n_units >= PLOT_UNITS_MAX)
                return NULL;
        b->units[b->n_units] = (PlotUnit) { .name = name };
        return b->units + b->n_units++;
}

/* @start + @msec, saturated: a saved file's start may be anything. */
static usec_t sample_at(usec_t start, uint32_t msec) {
        usec_t off = (usec_t) msec * USEC_PER_MSEC;

        return start > USEC_INFINITY - off ? USEC_INFINITY : start + off;
}

void plot_boot_from_timeline(const Timeline *t, const char *label, PlotBoot *ret) {
        PlotBoot b = { .label = label };
        bool seed_recorded = false;

        for (unsigned i = 0; i < t->n; i++) {
                const Event *e = t->events + i;
                PlotUnit *u;

                b.end = MAX(b.end, e->usec);
                switch (e->kind) {
                case EVENT_USERSPACE_STARTED:
                        if (b.userspace == 0)
                                b.userspace = e->usec;
                        break;
                case EVENT_CRNG_INIT_DONE:
                        if (!b.crng_found)
                                b.crng = e->usec;
                        b.crng_found = true;
                        break;
                case EVENT_SEED_UNIT_STARTING:
                        span_begin(&b.seed, e->usec);
                        break;
                case EVENT_SEED_LOADED:
                        span_finish(&b.seed, e->usec);
                        b.seed_verdict = after_prefix(after_prefix(e->text, "entropy-seed: "), "seed loaded, ");
                        seed_recorded = seed_recorded || streq(e->source, "runstate");
                        break;
                case EVENT_CREDENTIAL_LOADED:
                        b.credential_verdict = after_prefix(e->text, "entropy-seed: credential ");
                        break;
                case EVENT_GATE_UNIT_STARTING:
                        span_begin(&b.gate, e->usec);
                        break;
                case EVENT_GATE_STARTED:
                        span_begin(&b.wait, e->usec);
                        break;
                case EVENT_GATE_RELEASED:
                        span_finish(&b.wait, e->usec);
                        span_finish(&b.gate, e->usec);
                        b.gate_verdict = after_prefix(after_prefix(e->text, "entropy-gate released: "), "entropy-gate: ");
                        break;
                case EVENT_GATE_UNIT_READY:
                        span_finish(&b.gate, e->usec);
                        break;
                case EVENT_TARGET_REACHED:
                        if (b.target == 0)
                                b.target = e->usec;
                        break;
                case EVENT_UNIT_STARTING:
                case EVENT_UNIT_STARTED:
                        if (!e->unit || !(u = unit_get(&b, e->unit)))
                                break;
                        if (e->kind == EVENT_UNIT_STARTING)
                                span_begin(&u->span, e->usec);
                        else
                                span_finish(&u->span, e->usec);
                        break;
                default:
                        break;
                }
        }
        /* The gate's wait without its start recorded: it waited from when
         * the unit began until it let go, as far as anyone can tell. */
        if (b.wait.end > 0 && b.wait.start == 0)
                b.wait.start = b.gate.start ?: b.wait.end;
        if (!b.credential_verdict && seed_recorded)
                b.credential_verdict = "none passed to this boot";
        if (t->have_provenance)
                b.provenance = t->provenance_text;
        if (t->entropy_avail.n > 0) {
                b.entropy = &t->entropy_avail;
                b.entropy_start = t->entropy_avail_start;
                b.end = MAX(b.end, sample_at(t->entropy_avail_start, t->entropy_avail.s[t->entropy_avail.n - 1].msec));
        }
        *ret = b;
}

/* ---- SVG ---- */

/* The canvas, in CSS pixels: a laptop screen's width, text at 13 px. */
#define W 1280.0
#define PLOT_X0 310.0                /* left of it: the names */
#define PLOT_X1 (W - 150.0)          /* right of it: room for the last labels */
#define ROW_H 24.0
#define BAR_H 14.0
#define NAME_CHARS_MAX 40

/* Light first, then dark; the attribute fallback is the light one. */
#define COLOURS(X)                                              \
        X(bg,        "#ffffff", "#0d1117")                      \
        X(fg,        "#1f2328", "#e6edf3")                      \
        X(muted,     "#57606a", "#9198a1")                      \
        X(grid,      "#d8dee4", "#30363d")                      \
        X(seed,      "#1a7f37", "#3fb950")                      \
        X(gate,      "#0969da", "#58a6ff")                      \
        X(wait,      "#bf8700", "#d29922")                      \
        X(consumer,  "#8250df", "#bc8cff")                      \
        X(crng,      "#cf222e", "#ff7b72")                      \
        X(userspace, "#6e7781", "#9198a1")

#define LIGHT(name, light, dark) static const char colour_##name[] _unused_ = light;
COLOURS(LIGHT)
#undef LIGHT

/* Text into XML character data or an attribute value: markup escaped,
 * control characters (C1 and the bidirectional overrides too: the picture
 * may go to a terminal, U+009B is CSI there) as spaces, invalid UTF-8 as
 * U+FFFD, at most @max characters (then an ellipsis); log lines and saved
 * files are anyone's text. */
static void xml_text(FILE *f, const char *s, size_t max) {
        const unsigned char *p = (const unsigned char *) (s ?: "");
        size_t chars = 0;

        while (*p) {
                size_t n;

                if (max > 0 && chars++ >= max) {
                        fputs("\u2026", f);
                        return;
                }
                switch (*p) {
                case '&': fputs("&amp;", f); p++; continue;
                case '<': fputs("&lt;", f); p++; continue;
                case '>': fputs("&gt;", f); p++; continue;
                case '"': fputs("&quot;", f); p++; continue;
                default: break;
                }
                if (*p < 0x20 || *p == 0x7f) {
                        fputc(' ', f);
                        p++;
                        continue;
                }
                n = utf8_valid_length(p);
                if (n == 0) {
                        fputs("\ufffd", f);
                        p++;
                        continue;
                }
                if (utf8_code_point_is_control(utf8_code_point(p, n))) {
                        fputc(' ', f);
                        p += n;
                        continue;
                }
                /* U+FFFE and U+FFFF are UTF-8 but not XML: no reader
                 * takes a document with them. */
                if (n == 3 && p[0] == 0xef && p[1] == 0xbf && p[2] >= 0xbe) {
                        fputs("\ufffd", f);
                        p += n;
                        continue;
                }
                fwrite(p, 1, n, f);
                p += n;
        }
}

static double secs(usec_t u) {
        return (double) u / (double) USEC_PER_SEC;
}

typedef struct Axis {
        usec_t end, step;
} Axis;

static double x_of(const Axis *a, usec_t u) {
        return PLOT_X0 + (PLOT_X1 - PLOT_X0) * (double) MIN(u, a->end) / (double) a->end;
}

/* Ticks at 1, 2 or 5 times a power of ten (or whole minutes), at most 12. */
static Axis axis_for(usec_t end) {
        static const usec_t steps_ms[] = { 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 30000, 60000,
                                           120000, 300000, 600000, 1200000, 1800000, 3600000 };
        /* A saved file may say anything: past a year, the axis ends there
         * (and what lies beyond is drawn at its end) rather than wrap. */
        usec_t e = CLAMP(end, USEC_PER_SEC / 2, (usec_t) 366 * 24 * 3600 * USEC_PER_SEC);
        Axis a = { .step = steps_ms[ELEMENTSOF(steps_ms) - 1] * USEC_PER_MSEC };

        for (size_t i = 0; i < ELEMENTSOF(steps_ms); i++)
                if (e <= 12 * steps_ms[i] * USEC_PER_MSEC) {
                        a.step = steps_ms[i] * USEC_PER_MSEC;
                        break;
                }
        a.end = (e + a.step - 1) / a.step * a.step;
        return a;
}

static const char *format_secs(char *buf, size_t size, double s) {
        snprintf(buf, size, s < 10 ? "%.2f s" : "%.1f s", s);
        return buf;
}
#define FORMAT_SECS(u) format_secs((char[24]){}, 24, secs(u))

static void write_style(FILE *f) {
        fputs("<style>\n"
              "svg{", f);
#define VAR(name, light, dark) fputs("--" #name ":" light ";", f);
        COLOURS(VAR)
#undef VAR
        fputs("font-family:system-ui,\"DejaVu Sans\",\"Liberation Sans\",Arial,sans-serif;font-size:13px}\n"
              "@media (prefers-color-scheme:dark){svg{", f);
#define VAR(name, light, dark) fputs("--" #name ":" dark ";", f);
        COLOURS(VAR)
#undef VAR
        fputs("}}\n"
              ".bg{fill:var(--bg)}\n"
              /* A halo of the background: a label stays readable across a line. */
              "text{fill:var(--fg);paint-order:stroke;stroke:var(--bg);stroke-width:3px;stroke-linejoin:round}\n"
              "text.muted,text.tick{fill:var(--muted)}\n"
              "text.title{font-size:20px;font-weight:bold}\n"
              "text.boot{font-size:16px;font-weight:bold}\n"
              "text.tick{font-size:12px}\n"
              ".grid{stroke:var(--grid)}\n"
              ".seed{fill:var(--seed)}\n"
              ".gate{fill:var(--gate)}\n"
              ".wait{fill:var(--wait)}\n"
              ".wait-band{fill:var(--wait);fill-opacity:.2}\n"
              ".consumer{fill:var(--consumer)}\n"
              ".target{fill:var(--gate);stroke:var(--bg)}\n"
              "line.crng{stroke:var(--crng)}\n"
              "text.crng{fill:var(--crng);font-weight:bold}\n"
              "line.userspace{stroke:var(--userspace)}\n"
              ".entropy{stroke:var(--fg);fill:none}\n"
              "</style>\n", f);
}

static void text_at(FILE *f, double x, double y, const char *cls, const char *anchor, const char *s, size_t max) {
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\"", x, y);
        if (cls)
                fprintf(f, " class=\"%s\"", cls);
        if (anchor)
                fprintf(f, " text-anchor=\"%s\"", anchor);
        fputc('>', f);
        xml_text(f, s, max);
        fputs("</text>\n", f);
}

/* A label next to a point in the plot: to its right, or to its left when
 * the right edge is near. */
static void label_near(FILE *f, double x, double y, const char *cls, const char *s) {
        bool left = x > W - 300;

        text_at(f, left ? x - 6 : x + 6, y, cls, left ? "end" : NULL, s, 0);
}

static void bar(FILE *f, const Axis *a, double y, PlotSpan s, const char *cls, const char *fill, const char *unit) {
        double x0 = x_of(a, s.start), x1 = x_of(a, s.end ?: s.start);

        /* Something that took no visible time is still there. */
        if (x1 - x0 < 2)
                x1 = x0 + 2;
        fprintf(f, "<rect class=\"bar %s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"2\" fill=\"%s\"",
                cls, x0, y - BAR_H + 3, x1 - x0, BAR_H, fill);
        if (unit) {
                fputs(" data-unit=\"", f);
                xml_text(f, unit, 0);
                fputc('"', f);
        }
        fputs("/>\n", f);
}

static void span_label(FILE *f, const Axis *a, double y, PlotSpan s) {
        char buf[96];

        if (s.end > 0 && s.start > 0)
                snprintf(buf, sizeof buf, "%s \u2192 %s", FORMAT_SECS(s.start), FORMAT_SECS(s.end));
        else
                snprintf(buf, sizeof buf, "%s%s", s.end ? "ready " : "began ", FORMAT_SECS(s.end ?: s.start));
        /* Right of the bar while it fits (about 120 px), else left of it. */
        if (x_of(a, s.end ?: s.start) > W - 130)
                text_at(f, x_of(a, s.start) - 6, y, "muted", "end", buf, 0);
        else
                text_at(f, x_of(a, s.end ?: s.start) + 6, y, "muted", NULL, buf, 0);
}

/* The kernel's entropy_avail over the gate's row: a line from the bar's
 * bottom (0 bits) to its top (256, or the largest sample of an older
 * kernel's bigger count), with the numbers at its end. */
static void entropy_line(FILE *f, const Axis *a, double y, const PlotBoot *b) {
        const EntropySamples *s = b->entropy;
        double bottom = y + 3, scale = 256;
        char buf[96];

        for (unsigned i = 0; i < s->n; i++)
                scale = MAX(scale, (double) s->s[i].bits);
        fputs("<polyline class=\"entropy\" fill=\"none\" stroke-width=\"1.5\" points=\"", f);
        for (unsigned i = 0; i < s->n; i++)
                fprintf(f, "%s%.1f,%.1f", i ? " " : "",
                        x_of(a, sample_at(b->entropy_start, s->s[i].msec)),
                        bottom - BAR_H * (double) s->s[i].bits / scale);
        fprintf(f, "\" stroke=\"%s\"><title>", colour_fg);
        snprintf(buf, sizeof buf, "entropy_avail while the gate waited: %" PRIu32 " to %" PRIu32 " bits (%u samples)",
                 s->s[0].bits, s->s[s->n - 1].bits, s->n);
        xml_text(f, buf, 0);
        fputs("</title></polyline>\n", f);
}

static bool span_known(PlotSpan s) {
        return s.start > 0 || s.end > 0;
}

static unsigned boot_rows(const PlotBoot *b) {
        return 3 + MAX(b->n_units, 1u);
}

/* The verdict lines at the top of a boot, then the kernel's events' labels. */
#define VERDICTS_H 18.0
#define BOOT_HEADER_H (124.0 + VERDICTS_H)

static double boot_height(const PlotBoot *b) {
        return BOOT_HEADER_H + boot_rows(b) * ROW_H + 16;
}

static void write_verdict(FILE *f, double y, const char *what, const char *verdict) {
        fprintf(f, "<text x=\"16\" y=\"%.1f\"><tspan font-weight=\"bold\">%s:</tspan> ", y, what);
        xml_text(f, verdict ?: "not recorded", 160);
        fputs("</text>\n", f);
}

static void write_boot(FILE *f, const Axis *a, const PlotBoot *b, double top) {
        double rows_top = top + BOOT_HEADER_H, rows_bottom = rows_top + boot_rows(b) * ROW_H;
        double y = rows_top;
        char buf[128];

        fputs("<g class=\"boot\" data-label=\"", f);
        xml_text(f, b->label, 0);
        fputs("\">\n", f);
        text_at(f, 16, top + 22, "boot", NULL, b->label, 80);
        write_verdict(f, top + 44, "Seed", b->seed_verdict);
        write_verdict(f, top + 62, "Credential", b->credential_verdict);
        write_verdict(f, top + 80, "Gate", b->gate_verdict);
        write_verdict(f, top + 98, "Pool ready", b->provenance);
        top += VERDICTS_H;   /* what follows is drawn below the verdicts */

        /* The gate's wait, across the whole boot: everything in the band
         * happened while the gate held entropy-ready.target back. */
        if (span_known(b->wait) && b->wait.end > b->wait.start) {
                double x0 = x_of(a, b->wait.start), x1 = x_of(a, b->wait.end);

                fprintf(f, "<rect class=\"wait-band\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                        "fill=\"%s\" fill-opacity=\".2\"/>\n",
                        x0, top + 92, MAX(x1 - x0, 1.0), rows_bottom - top - 92, colour_wait);
        }

        /* The kernel's events: a line each across the boot, labelled above. */
        if (b->userspace > 0) {
                double x = x_of(a, b->userspace);

                fprintf(f, "<line class=\"userspace\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                        "stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>\n",
                        x, top + 94, x, rows_bottom, colour_userspace);
                snprintf(buf, sizeof buf, "user space started %s", FORMAT_SECS(b->userspace));
                label_near(f, x, top + 100, "muted", buf);
        }
        if (b->crng_found) {
                double x = x_of(a, b->crng);

                fprintf(f, "<line class=\"crng\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                        "stroke=\"%s\" stroke-width=\"2.5\"/>\n", x, top + 104, x, rows_bottom, colour_crng);
                snprintf(buf, sizeof buf, "crng init done %s", FORMAT_SECS(b->crng));
                label_near(f, x, top + 116, "crng", buf);
        } else
                text_at(f, PLOT_X0, top + 116, "crng", NULL,
                        "crng init done: not found in this boot's records", 0);

        y += ROW_H;
        text_at(f, 16, y, NULL, NULL, "entropy-seed.service", 0);
        if (span_known(b->seed)) {
                bar(f, a, y, b->seed, "seed", colour_seed, "entropy-seed.service");
                span_label(f, a, y, b->seed);
        } else
                text_at(f, PLOT_X0, y, "muted", NULL, "did not run, or not recorded", 0);

        y += ROW_H;
        text_at(f, 16, y, NULL, NULL, "entropy-gate.service", 0);
        if (span_known(b->gate) || span_known(b->wait)) {
                PlotSpan g = b->gate;

                if (!span_known(g))
                        g = b->wait;
                bar(f, a, y, g, "gate", colour_gate, "entropy-gate.service");
                if (span_known(b->wait))
                        bar(f, a, y, b->wait, "wait", colour_wait, NULL);
                if (b->entropy)
                        entropy_line(f, a, y, b);
                span_label(f, a, y, g);
        } else
                text_at(f, PLOT_X0, y, "muted", NULL, "did not run, or not recorded", 0);

        y += ROW_H;
        text_at(f, 16, y, NULL, NULL, "entropy-ready.target", 0);
        if (b->target > 0) {
                double x = x_of(a, b->target), c = y - BAR_H / 2 + 3;

                fprintf(f, "<path class=\"target\" d=\"M%.1f %.1fl7 7l-7 7l-7 -7z\" fill=\"%s\"/>\n",
                        x, c - 7, colour_gate);
                snprintf(buf, sizeof buf, "reached %s", FORMAT_SECS(b->target));
                label_near(f, x + 4, y, "muted", buf);
        } else
                text_at(f, PLOT_X0, y, "muted", NULL, "not reached", 0);

        for (unsigned i = 0; i < b->n_units; i++) {
                y += ROW_H;
                text_at(f, 16, y, NULL, NULL, b->units[i].name, NAME_CHARS_MAX);
                bar(f, a, y, b->units[i].span, "consumer", colour_consumer, b->units[i].name);
                span_label(f, a, y, b->units[i].span);
        }
        if (b->n_units == 0) {
                y += ROW_H;
                text_at(f, 16, y, "muted", NULL, "(no unit ordered after entropy-ready.target started)", 0);
        }
        fputs("</g>\n", f);
}

static void write_ticks(FILE *f, const Axis *a, double y) {
        char buf[24];

        for (usec_t u = 0; u <= a->end; u += a->step) {
                /* As many decimals as the step has. */
                snprintf(buf, sizeof buf, a->step < USEC_PER_SEC ? "%.1f s" : "%.0f s", secs(u));
                text_at(f, x_of(a, u), y, "tick", "middle", buf, 0);
        }
}

/* A swatch in the legend: a bar of the class. */
static void legend_swatch(FILE *f, double x, double y, const char *cls, const char *fill) {
        fprintf(f, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"20\" height=\"12\" rx=\"2\" fill=\"%s\"/>\n",
                cls, x, y - 11, fill);
}

void plot_write_svg(FILE *f, const PlotBoot *boots, unsigned n) {
        usec_t end = 0;
        double h = 96, y;
        Axis a;

        for (unsigned i = 0; i < n; i++) {
                end = MAX(end, boots[i].end);
                h += boot_height(boots + i);
        }
        a = axis_for(end);
        h += 144;   /* the bottom axis and the legend */

        fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                "font-family=\"sans-serif\" font-size=\"13\" fill=\"%s\">\n", W, h, W, h, colour_fg);
        fputs("<title>", f);
        fputs(n > 1 ? "Boots compared: " : "Boot: ", f);
        for (unsigned i = 0; i < n; i++) {
                if (i > 0)
                        fputs(" vs ", f);
                xml_text(f, boots[i].label, 0);
        }
        fputs(" (entropyctl plot)</title>\n"
              "<desc>When the kernel's random pool was initialized, against the units that wait for it, "
              "in seconds since the kernel started.</desc>\n", f);
        write_style(f);
        fprintf(f, "<rect class=\"bg\" width=\"100%%\" height=\"100%%\" fill=\"%s\"/>\n", colour_bg);

        text_at(f, 16, 32, "title", NULL, n > 1 ? "When the random pool was ready: two boots compared"
                                                : "When the random pool was ready", 0);
        text_at(f, 16, 54, "muted", NULL,
                "seconds since the kernel started; bars from \u201cstarting\u201d to \u201cready\u201d", 0);

        /* The grid behind everything, one axis for all boots. */
        for (usec_t u = 0; u <= a.end; u += a.step) {
                double x = x_of(&a, u);

                fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"84\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
                        x, x, h - 106, colour_grid);
        }
        write_ticks(f, &a, 78);

        y = 90;
        for (unsigned i = 0; i < n; i++) {
                if (i > 0)
                        fprintf(f, "<line class=\"grid\" x1=\"16\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
                                y, W - 16, y, colour_grid);
                write_boot(f, &a, boots + i, y);
                y += boot_height(boots + i);
        }
        write_ticks(f, &a, y + 4);

        /* The legend: what each mark means. */
        y += 40;
        fprintf(f, "<g class=\"legend\">\n");
        legend_swatch(f, 16, y, "seed", colour_seed);
        text_at(f, 42, y, NULL, NULL, "entropy-seed.service (loads and credits the seed)", 0);
        legend_swatch(f, 450, y, "gate", colour_gate);
        text_at(f, 476, y, NULL, NULL, "entropy-gate.service", 0);
        legend_swatch(f, 700, y, "wait", colour_wait);
        text_at(f, 726, y, NULL, NULL, "the gate waiting for the kernel (shaded)", 0);
        y += 24;
        legend_swatch(f, 16, y, "consumer", colour_consumer);
        text_at(f, 42, y, NULL, NULL, "a unit ordered after entropy-ready.target", 0);
        fprintf(f, "<line class=\"crng\" x1=\"460\" y1=\"%.1f\" x2=\"460\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2.5\"/>\n",
                y - 13, y + 3, colour_crng);
        text_at(f, 476, y, NULL, NULL, "kernel: crng init done", 0);
        fprintf(f, "<line class=\"userspace\" x1=\"710\" y1=\"%.1f\" x2=\"710\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>\n", y - 13, y + 3, colour_userspace);
        text_at(f, 726, y, NULL, NULL, "kernel: user space started", 0);
        fprintf(f, "<path class=\"target\" d=\"M1000 %.1fl7 7l-7 7l-7 -7z\" fill=\"%s\"/>\n", y - 12, colour_gate);
        text_at(f, 1014, y, NULL, NULL, "entropy-ready.target", 0);
        y += 24;
        fprintf(f, "<polyline class=\"entropy\" fill=\"none\" stroke-width=\"1.5\" stroke=\"%s\" "
                "points=\"16,%.1f 26,%.1f 36,%.1f\"/>\n", colour_fg, y + 1, y - 5, y - 11);
        text_at(f, 42, y, NULL, NULL, "kernel: entropy_avail while the gate waited (bottom of its bar 0, top 256 bits)", 0);
        fputs("</g>\n</svg>\n", f);
}
