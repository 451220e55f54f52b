// SPDX-License-Identifier: LGPL-2.1-or-later
/* entropyctl timeline: this boot's events, in order, as offsets from the
 * kernel's start. Three sources, each for what it knows best:
 *   - systemd over D-Bus: when each unit became active (exact, CLOCK_MONOTONIC),
 *     and which units are ordered after entropy-ready.target;
 *   - the journal: the kernel's "crng init done" (its own printk time) and
 *     the lines entropy-seed and entropy-gate logged; the kernel log
 *     (/dev/kmsg) for the kernel's messages when the journal lacks them;
 *   - /run/entropy-gate: what entropy-seed and entropy-gate recorded
 *     (CLOCK_BOOTTIME, the same as CLOCK_MONOTONIC unless the machine slept).
 * Whatever a source lacks is listed at the end as not found. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "boot-journal.h"
#include "bus-util.h"
#include "ctl.h"
#include "json.h"
#include "log.h"
#include "macro.h"
#include "pool.h"
#include "provenance.h"
#include "runstate.h"
#include "terminal.h"
#include "timeline.h"

/* Where a time came from, for --json. */
#define SOURCE_KERNEL "kernel"        /* the origin itself */
#define SOURCE_SYSTEMD "systemd"      /* the manager over D-Bus */
#define SOURCE_RUNSTATE "runstate"    /* /run/entropy-gate */

static int add_event(Timeline *t, usec_t usec, EventKind kind, const char *source, const char *unit,
                     const char *fmt, ...) _printf_(6, 7);
static int add_event(Timeline *t, usec_t usec, EventKind kind, const char *source, const char *unit,
                     const char *fmt, ...) {
        char *s, *u = NULL;
        va_list ap;
        int k;

        if (t->n >= TIMELINE_EVENTS_MAX)
                return 0;
        if (unit && !(u = strdup(unit)))
                return -ENOMEM;
        va_start(ap, fmt);
        k = vasprintf(&s, fmt, ap);
        va_end(ap);
        if (k < 0) {
                free(u);
                return -ENOMEM;
        }
        t->events[t->n] = (Event) { .usec = usec, .order = t->n, .kind = kind, .source = source, .unit = u, .text = s };
        t->n++;
        return 0;
}

static int add_missing(Timeline *t, EventKind kind, const char *fmt, ...) _printf_(3, 4);
static int add_missing(Timeline *t, EventKind kind, const char *fmt, ...) {
        va_list ap;
        char *s;
        int k;

        if (t->n_missing >= ELEMENTSOF(t->missing))
                return 0;
        va_start(ap, fmt);
        k = vasprintf(&s, fmt, ap);
        va_end(ap);
        if (k < 0)
                return -ENOMEM;
        t->missing[t->n_missing++] = (Missing) { .kind = kind, .text = s };
        return 0;
}

static int add_note(Timeline *t, const char *fmt, ...) _printf_(2, 3);
static int add_note(Timeline *t, const char *fmt, ...) {
        va_list ap;
        char *s;
        int k;

        if (t->n_notes >= ELEMENTSOF(t->notes))
                return 0;
        va_start(ap, fmt);
        k = vasprintf(&s, fmt, ap);
        va_end(ap);
        if (k < 0)
                return -ENOMEM;
        t->notes[t->n_notes++] = s;
        return 0;
}

/* ---- systemd over D-Bus ---- */

static int gather_bus(Timeline *t, bool *ret_target_found, bool *ret_gate_found) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *bus_error = NULL;
        _cleanup_strv_free_ char **after = NULL;
        sd_bus *bus = NULL;
        UnitTimes ut;
        uint64_t v = 0;
        unsigned not_started = 0, listed = 0;
        char not_started_list[512] = "";
        int r;

        *ret_target_found = *ret_gate_found = false;
        r = bus_open_manager(&bus, &bus_error);
        if (r >= 0)
                r = sd_bus_get_property_trivial(bus, SD_DEST, SD_PATH, SD_MANAGER,
                                                "UserspaceTimestampMonotonic", &error, 't', &v);
        if (r < 0) {
                sd_bus_flush_close_unref(bus);
                return add_note(t, "systemd is not reachable over D-Bus (%s): unit times not shown",
                                bus_error ?: error.message ?: strerror(-r));
        }
        if (v > 0 && (r = add_event(t, v, EVENT_SYSTEMD_STARTED, SOURCE_SYSTEMD, NULL,
                                    "systemd started (PID 1 on the root file system)")) < 0)
                goto out;
        sd_bus_error_free(&error);
        /* Zero unless systemd itself ran in the initrd. */
        if (sd_bus_get_property_trivial(bus, SD_DEST, SD_PATH, SD_MANAGER, "InitRDTimestampMonotonic", &error, 't', &v) >= 0 &&
            v > 0 && (r = add_event(t, v, EVENT_SYSTEMD_INITRD_STARTED, SOURCE_SYSTEMD, NULL,
                                    "systemd started in the initrd")) < 0)
                goto out;

        r = unit_times(bus, "entropy-seed.service", &ut);
        if (r < 0)
                goto out;
        if (ut.inactive_exit > 0 &&
            (r = add_event(t, ut.inactive_exit, EVENT_SEED_UNIT_STARTING, SOURCE_SYSTEMD, "entropy-seed.service",
                           "entropy-seed.service: starting (load)")) < 0)
                goto out;

        r = unit_times(bus, "entropy-gate.service", &ut);
        if (r < 0)
                goto out;
        if (ut.inactive_exit > 0 &&
            (r = add_event(t, ut.inactive_exit, EVENT_GATE_UNIT_STARTING, SOURCE_SYSTEMD, "entropy-gate.service",
                           "entropy-gate.service: starting")) < 0)
                goto out;
        if (ut.active_enter > 0) {
                *ret_gate_found = true;
                if ((r = add_event(t, ut.active_enter, EVENT_GATE_UNIT_READY, SOURCE_SYSTEMD, "entropy-gate.service",
                                   "entropy-gate.service: ready (READY=1)")) < 0)
                        goto out;
        }

        r = unit_times(bus, "entropy-ready.target", &ut);
        if (r < 0)
                goto out;
        if (ut.active_enter > 0) {
                *ret_target_found = true;
                if ((r = add_event(t, ut.active_enter, EVENT_TARGET_REACHED, SOURCE_SYSTEMD, "entropy-ready.target",
                                   "entropy-ready.target reached")) < 0)
                        goto out;
        }

        r = unit_before(bus, "entropy-ready.target", &after);
        if (r == -ENOMEM)
                goto out;
        for (char **u = after; u && *u; u++) {
                if (streq(*u, "shutdown.target"))
                        continue;   /* every target is ordered before it; not a consumer */
                r = unit_times(bus, *u, &ut);
                if (r < 0)
                        goto out;
                if (ut.active_enter > 0 || ut.inactive_exit > 0) {
                        /* Both ends, so that a picture can draw the unit's start as a bar. */
                        if (ut.inactive_exit > 0 &&
                            (r = add_event(t, ut.inactive_exit, EVENT_UNIT_STARTING, SOURCE_SYSTEMD, *u,
                                           "%s starting (ordered after entropy-ready.target)", *u)) < 0)
                                goto out;
                        if (ut.active_enter > 0 &&
                            (r = add_event(t, ut.active_enter, EVENT_UNIT_STARTED, SOURCE_SYSTEMD, *u,
                                           "%s started (ordered after entropy-ready.target)", *u)) < 0)
                                goto out;
                } else {
                        size_t l = strlen(not_started_list);

                        /* Whole names only; the others are counted. */
                        if (l + 2 + strlen(*u) < sizeof(not_started_list)) {
                                snprintf(not_started_list + l, sizeof(not_started_list) - l, "%s%s", l ? ", " : "", *u);
                                listed++;
                        }
                        not_started++;
                }
        }
        if (not_started > listed)
                r = add_note(t, "ordered after entropy-ready.target but not started this boot: %s%s%u %s",
                             not_started_list, listed > 0 ? " and " : "", not_started - listed,
                             listed > 0 ? "more" : "units");
        else if (not_started > 0)
                r = add_note(t, "ordered after entropy-ready.target but not started this boot: %s", not_started_list);
        else
                r = 0;
out:
        sd_bus_flush_close_unref(bus);
        return r;
}

/* ---- Assembly ---- */

static int compare_events(const void *a, const void *b) {
        const Event *x = a, *y = b;

        if (x->usec != y->usec)
                return x->usec < y->usec ? -1 : 1;
        return x->order < y->order ? -1 : x->order > y->order;
}

static int gather(Timeline *t, BootJournal *j) {
        SeedRecord seed;
        GateRecord gate;
        bool target_found, gate_found, have_seed, have_gate;
        ProvenanceFacts pf;
        Provenance prov;
        const char *src;
        int r;

        r = add_event(t, 0, EVENT_KERNEL_STARTED, SOURCE_KERNEL, NULL, "kernel started");
        if (r < 0)
                return r;

        r = gather_bus(t, &target_found, &gate_found);
        if (r < 0)
                return r;

        r = boot_journal_read(j);
        if (r < 0)
                return r;
        if (j->error < 0 && (r = add_note(t, "the journal could not be read: %s", strerror(-j->error))) < 0)
                return r;

        if (j->init_run.found &&
            (r = add_event(t, j->init_run.usec, EVENT_USERSPACE_STARTED, event_source_to_string(j->init_run.source),
                           NULL, "user space started: %s", j->init_run.message)) < 0)
                return r;

        if (j->crng_init.found)
                r = add_event(t, j->crng_init.usec, EVENT_CRNG_INIT_DONE, event_source_to_string(j->crng_init.source),
                              NULL, "kernel: %s", j->crng_init.message);
        else
                r = add_missing(t, EVENT_CRNG_INIT_DONE,
                                "the kernel's \"random: crng init done\" (not in this boot's journal or kernel log)");
        if (r < 0)
                return r;

        /* The seed: what entropy-seed recorded, else what it logged. */
        src = event_source_to_string(EVENT_SOURCE_JOURNAL);
        have_seed = seed_record_read(&seed) > 0 && seed.action >= 0;
        if (have_seed) {
                if (seed.boottime_usec == RUNSTATE_UNKNOWN || seed.boottime_usec == 0)
                        r = add_missing(t, EVENT_SEED_LOADED, "the time in %s/seed", runstate_dir());
                else if (seed.action == SEED_ACTION_CREDITED)
                        r = add_event(t, seed.boottime_usec, EVENT_SEED_LOADED, SOURCE_RUNSTATE, "entropy-seed.service",
                                      "entropy-seed: seed loaded, credited %" PRIu64 " bits",
                                      seed.bits == RUNSTATE_UNKNOWN ? 0 : seed.bits);
                else
                        r = add_event(t, seed.boottime_usec, EVENT_SEED_LOADED, SOURCE_RUNSTATE, "entropy-seed.service",
                                      "entropy-seed: seed loaded, %s%s%s",
                                      seed.action == SEED_ACTION_NOT_CREDITED ? "not credited" :
                                      seed_action_to_string(seed.action),
                                      seed.reason[0] ? ": " : "", seed.reason);
                if (r < 0)
                        return r;
                if (seed.boottime_usec != RUNSTATE_UNKNOWN && seed.boottime_usec > 0 &&
                    seed.credential > CREDENTIAL_NONE &&
                    (r = seed.credential == CREDENTIAL_CREDITED ?
                     add_event(t, seed.boottime_usec, EVENT_CREDENTIAL_LOADED, SOURCE_RUNSTATE, "entropy-seed.service",
                               "entropy-seed: credential credited, %" PRIu64 " bits",
                               seed.credential_bits == RUNSTATE_UNKNOWN ? 0 : seed.credential_bits) :
                     add_event(t, seed.boottime_usec, EVENT_CREDENTIAL_LOADED, SOURCE_RUNSTATE, "entropy-seed.service",
                               "entropy-seed: credential mixed in, not credited")) < 0)
                        return r;
        } else if (j->n_seed > 0) {
                for (unsigned i = 0; i < j->n_seed; i++)
                        if ((r = add_event(t, j->seed[i].usec, EVENT_SEED_LOADED, src, "entropy-seed.service",
                                           "entropy-seed: %s", j->seed[i].message)) < 0)
                                return r;
        } else if ((r = add_missing(t, EVENT_SEED_LOADED, "entropy-seed's result (no %s/seed, nothing in the journal)",
                                    runstate_dir())) < 0)
                return r;

        /* The gate: its own record of when it began, when it let go and how long it waited. */
        have_gate = gate_record_read(&gate) > 0 && gate.outcome >= 0;
        if (have_gate) {
                if (gate.start_usec != RUNSTATE_UNKNOWN && gate.start_usec > 0 &&
                    (r = add_event(t, gate.start_usec, EVENT_GATE_STARTED, SOURCE_RUNSTATE, "entropy-gate.service",
                                   "entropy-gate started: %s",
                                   gate.ready_at_start > 0 ? "the pool was already initialized" :
                                   gate.ready_at_start == 0 ? "the pool was not initialized, waiting" :
                                   "waiting for the pool")) < 0)
                        return r;
                if (gate.end_usec == RUNSTATE_UNKNOWN || gate.end_usec == 0)
                        r = add_missing(t, EVENT_GATE_RELEASED, "the time in %s/gate", runstate_dir());
                else {
                        char samples[160] = "";

                        if (entropy_samples_parse(gate.entropy_avail, &t->entropy_avail) >= 0 &&
                            t->entropy_avail.n > 0 && gate.start_usec != RUNSTATE_UNKNOWN) {
                                t->entropy_avail_start = gate.start_usec;
                                snprintf(samples, sizeof(samples), " (entropy_avail %" PRIu32 " to %" PRIu32 " bits)",
                                         t->entropy_avail.s[0].bits, t->entropy_avail.s[t->entropy_avail.n - 1].bits);
                        } else
                                t->entropy_avail = (EntropySamples) {};
                        r = add_event(t, gate.end_usec, EVENT_GATE_RELEASED, SOURCE_RUNSTATE, "entropy-gate.service",
                                      "entropy-gate released: %s, waited %s%s",
                                      record_outcome_to_string(gate.outcome),
                                      FORMAT_DURATION(gate.waited_usec == RUNSTATE_UNKNOWN ? 0 : gate.waited_usec),
                                      samples);
                }
        } else if (j->gate.found)
                r = add_event(t, j->gate.usec, EVENT_GATE_RELEASED, src, "entropy-gate.service",
                              "entropy-gate: %s", j->gate.message);
        else if (!gate_found && j->gate_unit.found)
                r = add_event(t, j->gate_unit.usec, EVENT_GATE_UNIT_READY, src, "entropy-gate.service",
                              "%s", j->gate_unit.message);
        else if (!gate_found)
                r = add_missing(t, EVENT_GATE_RELEASED, "entropy-gate's release (no %s/gate, nothing in the journal)",
                                runstate_dir());
        if (r < 0)
                return r;

        if (!target_found) {
                if (j->target.found)
                        r = add_event(t, j->target.usec, EVENT_TARGET_REACHED, src, "entropy-ready.target",
                                      "%s", j->target.message);
                else
                        r = add_missing(t, EVENT_TARGET_REACHED, "entropy-ready.target being reached");
                if (r < 0)
                        return r;
        }

        /* How the pool most likely became ready, from the same records. */
        r = provenance_facts_gather(&pf, pool_probe_ready(), j, have_seed ? &seed : NULL, have_gate ? &gate : NULL);
        if (r < 0)
                return r;
        provenance_decide(&pf, &prov);
        t->provenance_text = strdup(prov.line);
        if (!t->provenance_text)
                return -ENOMEM;
        t->provenance = prov.verdict;
        t->have_provenance = true;

        /* Stable: events at the same time keep the order they were found in. */
        qsort(t->events, t->n, sizeof(Event), compare_events);
        return 0;
}

int timeline_gather(Timeline *t) {
        BootJournal j = {};
        int r;

        r = gather(t, &j);
        boot_journal_done(&j);
        return r;
}

static void print_human(const Timeline *t) {
        printf("This boot, seconds since the kernel started (CLOCK_MONOTONIC; the same as CLOCK_BOOTTIME unless suspended):\n");
        for (unsigned i = 0; i < t->n; i++)
                /* Log messages are anyone's text: escaped for the terminal. */
                printf("%7" PRIu64 ".%06" PRIu64 "s  %s\n",
                       t->events[i].usec / USEC_PER_SEC, t->events[i].usec % USEC_PER_SEC,
                       TERMINAL_ESCAPE(t->events[i].text));
        for (unsigned i = 0; i < t->n_missing; i++)
                printf("%s%15s%s  %s\n", ansi_yellow(), "not found", ansi_normal(), t->missing[i].text);
        for (unsigned i = 0; i < t->n_notes; i++)
                printf("%15s  %s\n", "note", t->notes[i]);
        if (t->have_provenance)
                printf("%15s  %s\n", "provenance", TERMINAL_ESCAPE(t->provenance_text));
}

int verb_timeline(int argc, char *argv[], const CtlArgs *a) {
        Timeline t = {};
        int r;

        r = timeline_gather(&t);
        if (r < 0) {
                log_error_errno(r, "Failed to assemble the timeline: %m");
                timeline_done(&t);
                return CTL_EXIT_FAILURE;
        }

        if (a->json != JSON_FORMAT_OFF)
                timeline_write_json(&t, stdout, a->json);
        else if (!a->quiet)
                print_human(&t);

        timeline_done(&t);
        return CTL_EXIT_OK;
}
