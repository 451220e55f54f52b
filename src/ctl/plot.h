/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "timeline.h"

/* "entropyctl plot": one or two boots as one self-contained SVG on one time
 * axis from the kernel's start. Pure: a function of the timelines alone. */

#define PLOT_UNITS_MAX 32

typedef struct PlotSpan {
        usec_t start, end;           /* 0: not known */
} PlotSpan;

typedef struct PlotUnit {
        const char *name;            /* the timeline's */
        PlotSpan span;               /* began starting .. active (a oneshot: finished) */
} PlotUnit;

/* What a picture of one boot needs, taken from its timeline. */
typedef struct PlotBoot {
        const char *label;
        usec_t userspace;            /* 0: not known */
        usec_t crng;                 /* "crng init done"; 0: not found */
        bool crng_found;
        usec_t target;               /* entropy-ready.target reached; 0: not */
        PlotSpan seed, gate, wait;   /* the units, and the gate's own wait */
        const char *seed_verdict;    /* words, from the timeline's texts; NULL: not known */
        const char *credential_verdict;
        const char *gate_verdict;
        const char *provenance;      /* how the pool most likely became ready; NULL: not recorded */
        const EntropySamples *entropy; /* the gate's samples of entropy_avail; NULL: none */
        usec_t entropy_start;        /* when they began, on the axis */
        PlotUnit units[PLOT_UNITS_MAX]; /* ordered after entropy-ready.target */
        unsigned n_units;
        usec_t end;                  /* the last event */
} PlotBoot;

/* Pure: the picture's facts from @t, which must outlive @ret. */
void plot_boot_from_timeline(const Timeline *t, const char *label, PlotBoot *ret);

/* Pure: @boots[0..n) as one SVG document on @f, on one time axis. */
void plot_write_svg(FILE *f, const PlotBoot *boots, unsigned n);
