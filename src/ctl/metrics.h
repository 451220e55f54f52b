/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "provenance.h"
#include "runstate.h"
#include "time-util.h"

/* "entropyctl metrics": this boot's results in Prometheus' text exposition
 * format, for node_exporter's textfile collector. Pure: facts in, text out;
 * verb-metrics.c gathers the facts. */

/* Why the seed was or was not credited, as a small fixed set of label
 * values (a free-text reason would make a new time series per wording). */
typedef enum SeedVerdict {
        SEED_VERDICT_CREDITED,
        SEED_VERDICT_NO_SEED,          /* no seed file yet: a first boot, a wiped disk */
        SEED_VERDICT_DISABLED,         /* crediting turned off by configuration */
        SEED_VERDICT_INVALID,          /* torn, corrupt, not a regular file, unreadable */
        SEED_VERDICT_NOT_CREDITABLE,   /* written while the CRNG was not initialized */
        SEED_VERDICT_FIRST_BOOT,
        SEED_VERDICT_OTHER_MACHINE,    /* bound to another machine-id: a clone */
        SEED_VERDICT_VM_GENERATION_CHANGED, /* saved in another VM generation: a restored snapshot or clone */
        SEED_VERDICT_VM_GENERATION_UNREADABLE, /* saved in a VM generation, none readable now */
        SEED_VERDICT_NO_MACHINE_ID,    /* none, or an invalid one, to bind to */
        SEED_VERDICT_PERMISSIONS,      /* owner or mode of the file or its directory */
        SEED_VERDICT_NOT_DURABLE,      /* the replacement could not be written first */
        SEED_VERDICT_LOCKED,           /* the seed directory could not be locked */
        SEED_VERDICT_ERROR,            /* the load failed */
        SEED_VERDICT_NOT_LOADED,       /* no load recorded in this boot */
        SEED_VERDICT_ALREADY_CREDITED, /* credited in this boot already (another name of it), or may have been */
        SEED_VERDICT_OTHER,            /* a reason this entropyctl does not know */
        _SEED_VERDICT_MAX,
        _SEED_VERDICT_INVALID = -EINVAL,
} SeedVerdict;

const char *seed_verdict_to_string(SeedVerdict v);

/* Pure: the verdict of a load's record (NULL: no record this boot). */
SeedVerdict seed_verdict_classify(const SeedRecord *rec);

typedef struct MetricsFacts {
        const char *version;
        int pool_initialized;          /* now; -1 unknown */
        bool crng_found;
        usec_t crng_usec;              /* "crng init done", since the kernel started */
        bool have_gate;
        GateRecord gate;
        bool have_seed;
        SeedRecord seed;
        int64_t seed_file_age_usec;    /* the seed on disk; -1: none or unknown */
        int first_boot;                /* -1 unknown */
        ProvenanceVerdict ready_source; /* how the pool most likely became ready (provenance.h) */
} MetricsFacts;

/* Pure: the exposition text. Every series is always there (0 or 1 for the
 * booleans, every label value of a state set), so that alerts see a value
 * rather than an absence; a duration that is not known is left out. */
void metrics_write(FILE *f, const MetricsFacts *m);

/* Pure: the same facts as one JSON object (--json=): durations in
 * microseconds, null where the text leaves a series out, each state set as
 * the name of its one value. */
void metrics_write_json(FILE *f, JsonFormat format, const MetricsFacts *m);
