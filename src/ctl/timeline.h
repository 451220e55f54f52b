/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <errno.h>
#include <stdio.h>

#include "entropy-samples.h"
#include "json.h"
#include "provenance.h"
#include "time-util.h"

/* One boot's events, as "entropyctl timeline" shows them and "entropyctl
 * plot" draws them: gathered from this boot (timeline_gather()) or read
 * back from a saved "timeline --json" (timeline_from_json()), so that a
 * boot recorded on another machine is drawn from the same model. */

#define TIMELINE_EVENTS_MAX 256

/* What happened, for scripts: the "event" of --json. */
typedef enum EventKind {
        EVENT_KERNEL_STARTED,
        EVENT_USERSPACE_STARTED,
        EVENT_SYSTEMD_INITRD_STARTED,
        EVENT_SYSTEMD_STARTED,
        EVENT_CRNG_INIT_DONE,
        EVENT_SEED_UNIT_STARTING,
        EVENT_SEED_LOADED,
        EVENT_GATE_UNIT_STARTING,
        EVENT_GATE_RELEASED,
        EVENT_GATE_UNIT_READY,
        EVENT_TARGET_REACHED,
        EVENT_UNIT_STARTING,
        EVENT_UNIT_STARTED,
        EVENT_GATE_STARTED,          /* the gate process began: its wait starts here */
        EVENT_CREDENTIAL_LOADED,     /* what entropy-seed did with the system credential */
        _EVENT_KIND_MAX,
        _EVENT_KIND_INVALID = -EINVAL,
} EventKind;

const char *event_kind_to_string(EventKind k);
EventKind event_kind_from_string(const char *s);

typedef struct Event {
        usec_t usec;
        unsigned order;              /* when it was found: ties keep it */
        EventKind kind;
        const char *source;          /* static */
        char *unit;                  /* the unit it is about, when one */
        char *text;
} Event;

typedef struct Missing {
        EventKind kind;
        char *text;
} Missing;

typedef struct Timeline {
        Event events[TIMELINE_EVENTS_MAX];
        unsigned n;
        Missing missing[32];
        unsigned n_missing;
        char *notes[8];
        unsigned n_notes;
        /* How the pool most likely became ready (provenance.h); not in
         * files written before it was recorded. */
        bool have_provenance;
        ProvenanceVerdict provenance;
        char *provenance_text;
        /* The kernel's entropy_avail as the gate sampled it while it waited
         * (entropy-samples.h), from @entropy_avail_start (the gate's start,
         * on the events' clock); n == 0: none. */
        usec_t entropy_avail_start;
        EntropySamples entropy_avail;
} Timeline;

/* This boot, from systemd, the journal, the kernel log and our records;
 * sorted by time. 0 or -ENOMEM (a source that cannot be read is a note). */
int timeline_gather(Timeline *t);

/* Pure: a timeline from the text of "timeline --json" (schema_version 1;
 * unknown members and event kinds are skipped, so newer files still draw;
 * "provenance" and "entropy_avail" are optional, so older ones do too).
 * 0, -EBADMSG when it is not such a document (with a reason in @ret_error
 * of @error_size bytes), -ENOMEM. Events are sorted by time. */
int timeline_from_json(Timeline *t, const char *text, char *ret_error, size_t error_size);

/* The document "timeline --json" prints; timeline_json() writes it as one
 * value of a larger document (plot --json), as member @key of an object or
 * (NULL) an element of an array. */
void timeline_write_json(const Timeline *t, FILE *f, JsonFormat format);
void timeline_json(JsonWriter *j, const char *key, const Timeline *t);
void timeline_done(Timeline *t);
