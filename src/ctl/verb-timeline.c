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
#include <systemd/sd-bus.h>

#include "boot-journal.h"
#include "ctl.h"
#include "log.h"
#include "macro.h"
#include "runstate.h"

#define EVENTS_MAX 256

typedef struct Event {
        usec_t usec;
        char *text;
} Event;

typedef struct Timeline {
        Event events[EVENTS_MAX];
        unsigned n;
        char *missing[32];
        unsigned n_missing;
        char *notes[8];
        unsigned n_notes;
} Timeline;

static int add_event(Timeline *t, usec_t usec, const char *fmt, ...) _printf_(3, 4);
static int add_event(Timeline *t, usec_t usec, const char *fmt, ...) {
        va_list ap;
        char *s;
        int k;

        if (t->n >= EVENTS_MAX)
                return 0;
        va_start(ap, fmt);
        k = vasprintf(&s, fmt, ap);
        va_end(ap);
        if (k < 0)
                return -ENOMEM;
        t->events[t->n++] = (Event) { .usec = usec, .text = s };
        return 0;
}

static int add_line(char **list, unsigned *n, unsigned max, const char *fmt, ...) _printf_(4, 5);
static int add_line(char **list, unsigned *n, unsigned max, const char *fmt, ...) {
        va_list ap;
        char *s;
        int k;

        if (*n >= max)
                return 0;
        va_start(ap, fmt);
        k = vasprintf(&s, fmt, ap);
        va_end(ap);
        if (k < 0)
                return -ENOMEM;
        list[(*n)++] = s;
        return 0;
}
#define add_missing(t, ...) add_line((t)->missing, &(t)->n_missing, ELEMENTSOF((t)->missing), __VA_ARGS__)
#define add_note(t, ...) add_line((t)->notes, &(t)->n_notes, ELEMENTSOF((t)->notes), __VA_ARGS__)

static void timeline_done(Timeline *t) {
        for (unsigned i = 0; i < t->n; i++)
                free(t->events[i].text);
        for (unsigned i = 0; i < t->n_missing; i++)
                free(t->missing[i]);
        for (unsigned i = 0; i < t->n_notes; i++)
                free(t->notes[i]);
}

/* ---- systemd over D-Bus ---- */

#define SD_DEST "org.freedesktop.systemd1"
#define SD_PATH "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"
#define SD_UNIT "org.freedesktop.systemd1.Unit"

typedef struct UnitTimes {
        bool loaded;
        usec_t inactive_exit;        /* start began; 0 when never */
        usec_t active_enter;         /* active (for a oneshot: finished); 0 when never */
} UnitTimes;

static int unit_path(sd_bus *bus, const char *unit, char **ret) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        const char *path;
        int r;

        /* GetUnit, not LoadUnit: a unit systemd never loaded did nothing this boot. */
        r = sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "GetUnit", &error, &reply, "s", unit);
        if (r < 0)
                return r;
        r = sd_bus_message_read(reply, "o", &path);
        if (r >= 0) {
                *ret = strdup(path);
                r = *ret ? 0 : -ENOMEM;
        }
        sd_bus_message_unref(reply);
        return r;
}

static int unit_times(sd_bus *bus, const char *unit, UnitTimes *ret) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *path = NULL;
        UnitTimes u = { .loaded = true };
        uint64_t v;
        int r;

        r = unit_path(bus, unit, &path);
        if (r < 0) {
                *ret = (UnitTimes) {};
                return r == -ENOMEM ? r : 0;
        }
        r = sd_bus_get_property_trivial(bus, SD_DEST, path, SD_UNIT, "InactiveExitTimestampMonotonic", &error, 't', &v);
        if (r >= 0)
                u.inactive_exit = v;
        sd_bus_error_free(&error);
        r = sd_bus_get_property_trivial(bus, SD_DEST, path, SD_UNIT, "ActiveEnterTimestampMonotonic", &error, 't', &v);
        if (r >= 0)
                u.active_enter = v;
        *ret = u;
        return 0;
}

static int units_after_target(sd_bus *bus, char ***ret) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *path = NULL;
        int r;

        r = unit_path(bus, "entropy-ready.target", &path);
        if (r < 0)
                return r;
        /* Units ordered After= the target appear in its Before= list. */
        return sd_bus_get_property_strv(bus, SD_DEST, path, SD_UNIT, "Before", &error, ret);
}

/* As root, talk to systemd directly on its private socket, as systemctl
 * does: it works without a D-Bus daemon (minimal images, early boot). */
static int bus_open(sd_bus **ret) {
        sd_bus *bus = NULL;
        int r;

        if (geteuid() == 0 && access("/run/systemd/private", F_OK) >= 0) {
                r = sd_bus_new(&bus);
                if (r < 0)
                        return r;
                r = sd_bus_set_address(bus, "unix:path=/run/systemd/private");
                if (r >= 0)
                        r = sd_bus_start(bus);
                if (r >= 0) {
                        *ret = bus;
                        return 0;
                }
                sd_bus_unref(bus);
                bus = NULL;
        }
        return sd_bus_open_system(ret);
}

static int gather_bus(Timeline *t, bool *ret_target_found, bool *ret_gate_found) {
        sd_bus *bus = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_strv_free_ char **after = NULL;
        UnitTimes ut;
        uint64_t v;
        unsigned not_started = 0;
        char not_started_list[512] = "";
        int r;

        *ret_target_found = *ret_gate_found = false;
        r = bus_open(&bus);
        if (r >= 0)
                r = sd_bus_get_property_trivial(bus, SD_DEST, SD_PATH, SD_MANAGER,
                                                "UserspaceTimestampMonotonic", &error, 't', &v);
        if (r < 0) {
                sd_bus_flush_close_unref(bus);
                return add_note(t, "systemd is not reachable over D-Bus (%s): unit times not shown",
                                error.message ?: strerror(-r));
        }
        if (v > 0 && (r = add_event(t, v, "systemd started (PID 1 on the root file system)")) < 0)
                goto out;
        sd_bus_error_free(&error);
        /* Zero unless systemd itself ran in the initrd. */
        if (sd_bus_get_property_trivial(bus, SD_DEST, SD_PATH, SD_MANAGER, "InitRDTimestampMonotonic", &error, 't', &v) >= 0 &&
            v > 0 && (r = add_event(t, v, "systemd started in the initrd")) < 0)
                goto out;

        r = unit_times(bus, "entropy-seed.service", &ut);
        if (r < 0)
                goto out;
        if (ut.inactive_exit > 0 && (r = add_event(t, ut.inactive_exit, "entropy-seed.service: starting (load)")) < 0)
                goto out;

        r = unit_times(bus, "entropy-gate.service", &ut);
        if (r < 0)
                goto out;
        if (ut.inactive_exit > 0 && (r = add_event(t, ut.inactive_exit, "entropy-gate.service: starting")) < 0)
                goto out;
        if (ut.active_enter > 0) {
                *ret_gate_found = true;
                if ((r = add_event(t, ut.active_enter, "entropy-gate.service: ready (READY=1)")) < 0)
                        goto out;
        }

        r = unit_times(bus, "entropy-ready.target", &ut);
        if (r < 0)
                goto out;
        if (ut.active_enter > 0) {
                *ret_target_found = true;
                if ((r = add_event(t, ut.active_enter, "entropy-ready.target reached")) < 0)
                        goto out;
        }

        r = units_after_target(bus, &after);
        if (r == -ENOMEM)
                goto out;
        for (char **u = after; u && *u; u++) {
                if (streq(*u, "shutdown.target"))
                        continue;   /* every target is ordered before it; not a consumer */
                r = unit_times(bus, *u, &ut);
                if (r < 0)
                        goto out;
                if (ut.active_enter > 0 || ut.inactive_exit > 0) {
                        r = add_event(t, ut.active_enter ?: ut.inactive_exit, "%s %s (ordered after entropy-ready.target)",
                                      *u, ut.active_enter ? "started" : "starting");
                        if (r < 0)
                                goto out;
                } else {
                        size_t l = strlen(not_started_list);
                        snprintf(not_started_list + l, sizeof(not_started_list) - l, "%s%s", l ? ", " : "", *u);
                        not_started++;
                }
        }
        if (not_started > 0)
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
        return x->usec < y->usec ? -1 : x->usec > y->usec;
}

static int gather(Timeline *t, BootJournal *j) {
        SeedRecord seed;
        GateRecord gate;
        bool target_found, gate_found;
        int r;

        r = add_event(t, 0, "kernel started");
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

        if (j->init_run.found && (r = add_event(t, j->init_run.usec, "user space started: %s", j->init_run.message)) < 0)
                return r;

        if (j->crng_init.found)
                r = add_event(t, j->crng_init.usec, "kernel: %s", j->crng_init.message);
        else
                r = add_missing(t, "the kernel's \"random: crng init done\" (not in this boot's journal or kernel log)");
        if (r < 0)
                return r;

        /* The seed: what entropy-seed recorded, else what it logged. */
        if (seed_record_read(&seed) > 0 && seed.action >= 0) {
                if (seed.boottime_usec == RUNSTATE_UNKNOWN || seed.boottime_usec == 0)
                        r = add_missing(t, "the time in %s/seed", runstate_dir());
                else if (seed.action == SEED_ACTION_CREDITED)
                        r = add_event(t, seed.boottime_usec, "entropy-seed: seed loaded, credited %" PRIu64 " bits",
                                      seed.bits == RUNSTATE_UNKNOWN ? 0 : seed.bits);
                else
                        r = add_event(t, seed.boottime_usec, "entropy-seed: seed loaded, %s%s%s",
                                      seed.action == SEED_ACTION_NOT_CREDITED ? "not credited" :
                                      seed_action_to_string(seed.action),
                                      seed.reason[0] ? ": " : "", seed.reason);
                if (r < 0)
                        return r;
        } else if (j->n_seed > 0) {
                for (unsigned i = 0; i < j->n_seed; i++)
                        if ((r = add_event(t, j->seed[i].usec, "entropy-seed: %s", j->seed[i].message)) < 0)
                                return r;
        } else if ((r = add_missing(t, "entropy-seed's result (no %s/seed, nothing in the journal)", runstate_dir())) < 0)
                return r;

        /* The gate: its own record of when it let go and how long it waited. */
        if (gate_record_read(&gate) > 0 && gate.outcome >= 0) {
                if (gate.end_usec == RUNSTATE_UNKNOWN || gate.end_usec == 0)
                        r = add_missing(t, "the time in %s/gate", runstate_dir());
                else
                        r = add_event(t, gate.end_usec, "entropy-gate released: %s, waited %s",
                                      record_outcome_to_string(gate.outcome),
                                      FORMAT_DURATION(gate.waited_usec == RUNSTATE_UNKNOWN ? 0 : gate.waited_usec));
        } else if (j->gate.found)
                r = add_event(t, j->gate.usec, "entropy-gate: %s", j->gate.message);
        else if (!gate_found && j->gate_unit.found)
                r = add_event(t, j->gate_unit.usec, "%s", j->gate_unit.message);
        else if (!gate_found)
                r = add_missing(t, "entropy-gate's release (no %s/gate, nothing in the journal)", runstate_dir());
        if (r < 0)
                return r;

        if (!target_found) {
                if (j->target.found)
                        r = add_event(t, j->target.usec, "%s", j->target.message);
                else
                        r = add_missing(t, "entropy-ready.target being reached");
                if (r < 0)
                        return r;
        }

        qsort(t->events, t->n, sizeof(Event), compare_events);
        return 0;
}

int verb_timeline(int argc, char *argv[], const CtlArgs *a) {
        Timeline t = {};
        BootJournal j = {};
        int r;

        r = gather(&t, &j);
        if (r < 0) {
                log_error_errno(r, "Failed to assemble the timeline: %m");
                timeline_done(&t);
                boot_journal_done(&j);
                return CTL_EXIT_FAILURE;
        }

        printf("This boot, seconds since the kernel started (CLOCK_MONOTONIC; the same as CLOCK_BOOTTIME unless suspended):\n");
        for (unsigned i = 0; i < t.n; i++)
                printf("%7" PRIu64 ".%06" PRIu64 "s  %s\n",
                       t.events[i].usec / USEC_PER_SEC, t.events[i].usec % USEC_PER_SEC, t.events[i].text);
        for (unsigned i = 0; i < t.n_missing; i++)
                printf("%15s  %s\n", "not found", t.missing[i]);
        for (unsigned i = 0; i < t.n_notes; i++)
                printf("%15s  %s\n", "note", t.notes[i]);

        timeline_done(&t);
        boot_journal_done(&j);
        return CTL_EXIT_OK;
}
