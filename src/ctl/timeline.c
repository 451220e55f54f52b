// SPDX-License-Identifier: LGPL-2.1-or-later
/* The model of a boot's events: its names, its JSON (written by
 * "timeline --json" and read back, so that "entropyctl plot" draws a boot
 * recorded elsewhere exactly as this one). Gathering it from this boot is
 * verb-timeline.c's. */
#include <stdarg.h>

#include "json-parse.h"
#include "macro.h"
#include "string-table.h"
#include "timeline.h"

/* What happened, for scripts: the "event" of --json. */
static const char *const event_kind_table[_EVENT_KIND_MAX] = {
        [EVENT_KERNEL_STARTED] = "kernel-started",
        [EVENT_USERSPACE_STARTED] = "userspace-started",
        [EVENT_SYSTEMD_INITRD_STARTED] = "systemd-initrd-started",
        [EVENT_SYSTEMD_STARTED] = "systemd-started",
        [EVENT_CRNG_INIT_DONE] = "crng-init-done",
        [EVENT_SEED_UNIT_STARTING] = "seed-unit-starting",
        [EVENT_SEED_LOADED] = "seed-loaded",
        [EVENT_GATE_UNIT_STARTING] = "gate-unit-starting",
        [EVENT_GATE_RELEASED] = "gate-released",
        [EVENT_GATE_UNIT_READY] = "gate-unit-ready",
        [EVENT_TARGET_REACHED] = "target-reached",
        [EVENT_UNIT_STARTING] = "unit-starting",
        [EVENT_UNIT_STARTED] = "unit-started",
        [EVENT_GATE_STARTED] = "gate-started",
        [EVENT_CREDENTIAL_LOADED] = "credential-loaded",
};

DEFINE_STRING_TABLE(event_kind, EventKind)

void timeline_done(Timeline *t) {
        for (unsigned i = 0; i < t->n; i++) {
                free(t->events[i].unit);
                free(t->events[i].text);
        }
        for (unsigned i = 0; i < t->n_missing; i++)
                free(t->missing[i].text);
        for (unsigned i = 0; i < t->n_notes; i++)
                free(t->notes[i]);
        free(t->provenance_text);
}

void timeline_json(JsonWriter *j, const char *key, const Timeline *t) {
        json_object_begin(j, key);
        json_int(j, "schema_version", 1);
        json_array_begin(j, "events");
        for (unsigned i = 0; i < t->n; i++) {
                const Event *e = t->events + i;

                json_object_begin(j, NULL);
                json_uint(j, "monotonic_usec", e->usec);
                json_string(j, "event", event_kind_to_string(e->kind));
                json_string(j, "source", e->source);
                json_string(j, "unit", e->unit);
                json_string(j, "text", e->text);
                json_object_end(j);
        }
        json_array_end(j);
        json_array_begin(j, "not_found");
        for (unsigned i = 0; i < t->n_missing; i++) {
                json_object_begin(j, NULL);
                json_string(j, "event", event_kind_to_string(t->missing[i].kind));
                json_string(j, "text", t->missing[i].text);
                json_object_end(j);
        }
        json_array_end(j);
        json_array_begin(j, "notes");
        for (unsigned i = 0; i < t->n_notes; i++)
                json_string(j, NULL, t->notes[i]);
        json_array_end(j);
        if (t->have_provenance) {
                json_object_begin(j, "provenance");
                json_string(j, "verdict", provenance_verdict_to_string(t->provenance));
                json_string(j, "text", t->provenance_text);
                json_object_end(j);
        } else
                json_null(j, "provenance");
        if (t->entropy_avail.n > 0) {
                json_object_begin(j, "entropy_avail");
                json_uint(j, "start_usec", t->entropy_avail_start);
                provenance_entropy_json(j, "samples", &t->entropy_avail);
                json_object_end(j);
        } else
                json_null(j, "entropy_avail");
        json_object_end(j);
}

void timeline_write_json(const Timeline *t, FILE *f, JsonFormat format) {
        JsonWriter j;

        json_init(&j, f, format);
        timeline_json(&j, NULL, t);
}

/* "entropy_avail" of a file: all of it as entropy_samples_parse() would
 * take its text (at most ENTROPY_SAMPLES_MAX, times never going back), or
 * none of it. */
static void read_entropy_avail(Timeline *t, const JsonValue *v) {
        const JsonValue *samples = json_object_get(v, "samples");
        EntropySamples s = {};
        uint64_t start;

        if (json_value_uint64(json_object_get(v, "start_usec"), &start) < 0 ||
            !samples || samples->type != JSON_ARRAY)
                return;
        for (size_t i = 0; i < samples->n; i++) {
                uint64_t msec, bits;

                if (json_value_uint64(json_object_get(samples->items + i, "msec"), &msec) < 0 ||
                    json_value_uint64(json_object_get(samples->items + i, "bits"), &bits) < 0 ||
                    entropy_samples_push(&s, msec, bits) < 0)
                        return;
        }
        t->entropy_avail_start = start;
        t->entropy_avail = s;
}

/* Event.source is static text: a file's value is mapped onto ours. */
static const char *const sources[] = { "kernel", "systemd", "journal", "kernel-log", "runstate" };

static const char *source_intern(const char *s) {
        for (size_t i = 0; i < ELEMENTSOF(sources); i++)
                if (s && streq(s, sources[i]))
                        return sources[i];
        return "unknown";
}

static int bad(char *error, size_t size, const char *fmt, ...) _printf_(3, 4);
static int bad(char *error, size_t size, const char *fmt, ...) {
        va_list ap;

        if (size > 0) {
                va_start(ap, fmt);
                (void) vsnprintf(error, size, fmt, ap);
                va_end(ap);
        }
        return -EBADMSG;
}

static const char *string_or_null(const JsonValue *v) {
        return v && v->type == JSON_STRING ? v->string : NULL;
}

static int compare_events(const void *a, const void *b) {
        const Event *x = a, *y = b;

        if (x->usec != y->usec)
                return x->usec < y->usec ? -1 : 1;
        return x->order < y->order ? -1 : x->order > y->order;
}

static int read_events(Timeline *t, const JsonValue *events, char *error, size_t size) {
        for (size_t i = 0; i < events->n && t->n < TIMELINE_EVENTS_MAX; i++) {
                const JsonValue *e = events->items + i;
                const char *kind_s = string_or_null(json_object_get(e, "event"));
                const char *text = string_or_null(json_object_get(e, "text"));
                const char *unit = string_or_null(json_object_get(e, "unit"));
                EventKind kind;
                uint64_t usec;
                Event *n;

                if (e->type != JSON_OBJECT || !kind_s ||
                    json_value_uint64(json_object_get(e, "monotonic_usec"), &usec) < 0)
                        return bad(error, size, "events[%zu]: needs \"event\" and \"monotonic_usec\"", i);
                kind = event_kind_from_string(kind_s);
                if (kind < 0)
                        continue;   /* from a newer entropyctl: not ours to draw */

                n = t->events + t->n;
                *n = (Event) {
                        .usec = usec,
                        .order = t->n,
                        .kind = kind,
                        .source = source_intern(string_or_null(json_object_get(e, "source"))),
                };
                n->text = strdup(text ?: "");
                if (!n->text || (unit && !(n->unit = strdup(unit)))) {
                        free(n->text);
                        return -ENOMEM;
                }
                t->n++;
        }
        return 0;
}

int timeline_from_json(Timeline *t, const char *text, char *error, size_t size) {
        JsonValue *root = NULL;
        const JsonValue *v, *events;
        uint64_t version;
        int r;

        r = json_parse(text, &root, error, size);
        if (r < 0)
                return r;

        if (root->type != JSON_OBJECT) {
                r = bad(error, size, "not a JSON object");
                goto out;
        }
        if (json_value_uint64(json_object_get(root, "schema_version"), &version) < 0 || version != 1) {
                r = bad(error, size, "not \"entropyctl timeline --json\" output of schema_version 1");
                goto out;
        }
        events = json_object_get(root, "events");
        if (!events || events->type != JSON_ARRAY) {
                r = bad(error, size, "no \"events\" array");
                goto out;
        }
        r = read_events(t, events, error, size);
        if (r < 0)
                goto out;

        v = json_object_get(root, "not_found");
        for (size_t i = 0; v && v->type == JSON_ARRAY && i < v->n && t->n_missing < ELEMENTSOF(t->missing); i++) {
                const char *k = string_or_null(json_object_get(v->items + i, "event"));
                const char *s = string_or_null(json_object_get(v->items + i, "text"));
                EventKind kind = k ? event_kind_from_string(k) : _EVENT_KIND_INVALID;

                if (kind < 0 || !s)
                        continue;
                if (!(t->missing[t->n_missing].text = strdup(s))) {
                        r = -ENOMEM;
                        goto out;
                }
                t->missing[t->n_missing++].kind = kind;
        }
        v = json_object_get(root, "notes");
        for (size_t i = 0; v && v->type == JSON_ARRAY && i < v->n && t->n_notes < ELEMENTSOF(t->notes); i++) {
                const char *s = string_or_null(v->items + i);

                if (!s)
                        continue;
                if (!(t->notes[t->n_notes] = strdup(s))) {
                        r = -ENOMEM;
                        goto out;
                }
                t->n_notes++;
        }
        /* Optional: absent from files of older versions; a verdict this
         * version does not know is drawn as its text alone. */
        v = json_object_get(root, "provenance");
        if (v && v->type == JSON_OBJECT) {
                const char *verdict = string_or_null(json_object_get(v, "verdict"));
                const char *line = string_or_null(json_object_get(v, "text"));

                if (line) {
                        if (!(t->provenance_text = strdup(line))) {
                                r = -ENOMEM;
                                goto out;
                        }
                        t->have_provenance = true;
                        t->provenance = verdict ? provenance_verdict_from_string(verdict) : _PROVENANCE_VERDICT_INVALID;
                        if (t->provenance < 0)
                                t->provenance = PROVENANCE_UNKNOWN;
                }
        }
        v = json_object_get(root, "entropy_avail");
        if (v && v->type == JSON_OBJECT)
                read_entropy_avail(t, v);
        qsort(t->events, t->n, sizeof(Event), compare_events);
        r = 0;
out:
        json_value_free(root);
        return r;
}
