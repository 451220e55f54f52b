// SPDX-License-Identifier: LGPL-2.1-or-later
/* entropyctl status: the random pool, the kernel's trust options, hardware
 * RNGs, the seed file, what our units did this boot and their states, and
 * the other entropy daemons present. It only reads: the seed file is
 * parsed, never locked, rewritten or credited. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <libudev.h>

#include "boot-journal.h"
#include "bus-util.h"
#include "config.h"
#include "ctl.h"
#include "daemons.h"
#include "json.h"
#include "log.h"
#include "macro.h"
#include "pool.h"
#include "proc-cmdline.h"
#include "provenance.h"
#include "runstate.h"
#include "machine-id.h"
#include "root.h"
#include "seed-file.h"
#include "seed-store.h"
#include "terminal.h"

typedef enum Binding {
        BINDING_UNKNOWN,
        BINDING_THIS_MACHINE,
        BINDING_OTHER_MACHINE,
        BINDING_UNBOUND,
} Binding;

static const char *const binding_json[] = {
        [BINDING_UNKNOWN] = NULL,
        [BINDING_THIS_MACHINE] = "this-machine",
        [BINDING_OTHER_MACHINE] = "other-machine",
        [BINDING_UNBOUND] = "unbound",
};

typedef struct SeedInfo {
        char *path;
        bool present;
        int64_t size;                /* -1: unknown */
        int valid;                   /* -1: unknown (absent or unreadable) */
        const char *problem;         /* static text */
        char problem_buf[256];
        int64_t seed_bits;
        int creditable;
        Binding binding;
        int64_t age_usec;
} SeedInfo;

typedef struct HwRng {
        bool present;
        char *current;
        char *available;             /* space-separated, as the kernel lists them */
} HwRng;

/* Our units, in the order they start. */
static const char *const our_units[] = { "entropy-seed.service", "entropy-gate.service", "entropy-ready.target" };

#define STATUS_DAEMONS_MAX 8

typedef struct DaemonInfo {
        const EntropyDaemon *daemon;
        UnitState units[4];          /* as daemon->units; empty without systemd */
        pid_t pids[DAEMON_PIDS_MAX];
        size_t n_pids;               /* how many processes, even beyond DAEMON_PIDS_MAX */
        bool present;
} DaemonInfo;

typedef struct Status {
        int crng;                    /* 1, 0, or -errno (-ENOSYS: no getrandom) */
        BootJournal journal;
        struct utsname uts;
        char *trust_cpu, *trust_bootloader;
        bool trust_cpu_set, trust_bootloader_set;
        HwRng hwrng;
        SeedInfo seed;
        SeedRecord seed_rec;
        GateRecord gate_rec;
        bool have_seed_rec, have_gate_rec;
        int seed_rec_error, gate_rec_error;  /* < 0: the record is there but could not be read */
        int bus_error;               /* < 0: systemd could not be asked */
        char *bus_error_message;
        UnitState units[ELEMENTSOF(our_units)];
        DaemonInfo daemons[STATUS_DAEMONS_MAX];
        int proc_error;              /* < 0: /proc could not be read */
        ProvenanceFacts prov_facts;
        Provenance prov;
} Status;

static size_t n_daemons(void) {
        return MIN(entropy_daemons_count, (size_t) STATUS_DAEMONS_MAX);
}

static void status_done(Status *s) {
        for (size_t i = 0; i < ELEMENTSOF(s->units); i++)
                unit_state_done(s->units + i);
        for (size_t i = 0; i < n_daemons(); i++)
                for (size_t k = 0; k < ELEMENTSOF(s->daemons[i].units); k++)
                        unit_state_done(s->daemons[i].units + k);
        free(s->bus_error_message);
        boot_journal_done(&s->journal);
        free(s->trust_cpu);
        free(s->trust_bootloader);
        free(s->hwrng.current);
        free(s->hwrng.available);
        free(s->seed.path);
}

/* ---- Gathering ---- */

static char *strip_newline(const char *s) {
        char *c = s ? strdup(s) : NULL;
        size_t l;

        if (!c)
                return NULL;
        l = strlen(c);
        while (l > 0 && (c[l - 1] == '\n' || c[l - 1] == ' '))
                c[--l] = 0;
        return c;
}

static void hwrng_read(HwRng *h) {
        struct udev *udev;
        struct udev_device *d;

        udev = udev_new();
        if (!udev)
                return;
        /* The kernel's hw_random core is the misc device "hw_random" (/dev/hwrng). */
        d = udev_device_new_from_subsystem_sysname(udev, "misc", "hw_random");
        if (d) {
                h->present = true;
                h->current = strip_newline(udev_device_get_sysattr_value(d, "rng_current"));
                h->available = strip_newline(udev_device_get_sysattr_value(d, "rng_available"));
                /* The kernel's "none" pseudo-choice is not shown to people. */
                if (h->available)
                        hwrng_list_drop_none(h->available);
                /* "none" is how the kernel says there is no current source. */
                if (h->current && (streq(h->current, "none") || !*h->current)) {
                        free(h->current);
                        h->current = NULL;
                }
                udev_device_unref(d);
        }
        udev_unref(udev);
}

static void seed_problem(SeedInfo *si, const char *what, const char *detail) {
        snprintf(si->problem_buf, sizeof(si->problem_buf), "%s%s%s", what, detail ? ": " : "", detail ?: "");
        si->problem = si->problem_buf;
}

/* The seed as entropy-seed would find it, read the same way, but never
 * locked, rewritten or credited: it is only ever replaced by rename(), so a
 * read sees the old file or the new one, whole. */
static int seed_read(SeedInfo *si, const char *configured_dir) {
        _cleanup_free_ char *dir = NULL;
        _cleanup_close_ int dfd = -EBADF;
        _cleanup_(stored_seed_done) StoredSeed stored = {};
        int r;

        si->size = si->seed_bits = si->age_usec = -1;
        si->valid = si->creditable = -1;
        r = root_path(configured_dir, &dir);
        if (r < 0)
                return r;
        if (asprintf(&si->path, "%s/%s", dir, SEED_FILE_NAME) < 0) {
                si->path = NULL;
                return -ENOMEM;
        }

        dfd = root_open(configured_dir, CHASE_DIRECTORY);
        if (dfd < 0) {
                r = dfd;
                if (r == -ENOENT)
                        return 0;
                si->present = true;
                seed_problem(si, r == -EACCES ? "cannot read it (needs root)" : "cannot read it", strerror(-r));
                return 0;
        }
        stored_seed_read(dfd, &stored);
        if (!stored.exists)
                return 0;
        si->present = true;
        if (stored.stat.mode != S_IFLNK) {
                usec_t now = now_usec(CLOCK_REALTIME);
                usec_t mtime = (usec_t) stored.stat.mtime.tv_sec * USEC_PER_SEC +
                        (usec_t) stored.stat.mtime.tv_nsec / 1000;

                si->size = (int64_t) stored.stat.size;
                si->age_usec = now > mtime ? (int64_t) (now - mtime) : 0;
        }
        if (!stored.parsed) {
                if (stored.stat.mode == S_IFLNK)
                        seed_problem(si, "a symlink (never followed)", NULL);
                else if (!stored.raw && S_ISREG(stored.stat.mode) && !strstr(stored.problem, "larger"))
                        seed_problem(si, strstr(stored.problem, "ermission") ? "cannot read it (needs root)" :
                                     "cannot read it", stored.problem);
                else {
                        seed_problem(si, "does not parse", stored.problem);
                        si->valid = 0;
                }
                return 0;
        }
        si->valid = 1;
        si->seed_bits = (int64_t) stored.file.seed_size * 8;
        si->creditable = stored.file.creditable;

        if (seed_binding_is_unbound(stored.file.binding))
                si->binding = BINDING_UNBOUND;
        else {
                uint8_t binding[SEED_BINDING_SIZE];
                MachineId m;

                machine_id_read(&m);
                if (m.state == MACHINE_ID_INVALID)
                        return 0;       /* unknown: say nothing rather than guess */
                seed_binding_compute(machine_id_get(&m), binding);
                si->binding = memcmp(binding, stored.file.binding, SEED_BINDING_SIZE) == 0 ?
                        BINDING_THIS_MACHINE : BINDING_OTHER_MACHINE;
        }
        return 0;
}

static bool unit_present(const UnitState *u) {
        return u->load_state && !streq(u->load_state, "not-found");
}

/* Our units and every other entropy daemon, over D-Bus; without systemd
 * their states stay unknown. The processes come from /proc, with or
 * without systemd. */
static int services_gather(Status *s) {
        _cleanup_close_ int proc_fd = -EBADF;
        sd_bus *bus = NULL;
        int r;

        s->bus_error = bus_open_manager(&bus, &s->bus_error_message);
        for (size_t i = 0; bus && i < ELEMENTSOF(our_units); i++) {
                r = unit_state(bus, our_units[i], s->units + i);
                if (r == -ENOMEM)
                        goto out;
        }

        proc_fd = root_open("/proc", CHASE_DIRECTORY);
        s->proc_error = proc_fd < 0 ? proc_fd : 0;
        for (size_t i = 0; i < n_daemons(); i++) {
                DaemonInfo *d = s->daemons + i;

                d->daemon = entropy_daemons + i;
                for (size_t k = 0; bus && k < ELEMENTSOF(d->units) && d->daemon->units[k]; k++) {
                        r = unit_state(bus, d->daemon->units[k], d->units + k);
                        if (r == -ENOMEM)
                                goto out;
                        if (unit_present(d->units + k))
                                d->present = true;
                }
                if (proc_fd >= 0) {
                        r = process_find(proc_fd, d->daemon->process, d->pids, ELEMENTSOF(d->pids), &d->n_pids);
                        if (r == -ENOMEM)
                                goto out;
                        if (r < 0 && s->proc_error == 0)
                                s->proc_error = r;
                        if (d->n_pids > 0)
                                d->present = true;
                }
        }
        r = 0;
out:
        sd_bus_flush_close_unref(bus);
        return r;
}

static int status_gather(Status *s) {
        _cleanup_free_ char *cmdline = NULL;
        Config c;
        int r;

        s->crng = pool_probe_ready();

        r = boot_journal_read(&s->journal);
        if (r < 0)
                return r;

        if (uname(&s->uts) < 0)
                return negative_errno();

        /* The configuration, for the seed directory: as entropy-seed sees it. */
        r = config_load(&c, log_config_warning, NULL);
        if (r >= 0 && proc_cmdline_read(&cmdline) >= 0) {
                r = proc_cmdline_get_key(cmdline, "random.trust_cpu", &s->trust_cpu);
                if (r >= 0)
                        s->trust_cpu_set = r > 0;
                if (r >= 0)
                        r = proc_cmdline_get_key(cmdline, "random.trust_bootloader", &s->trust_bootloader);
                if (r >= 0)
                        s->trust_bootloader_set = r > 0;
        }
        if (r >= 0)
                r = seed_read(&s->seed, c.seed_dir);
        config_done(&c);
        if (r < 0)
                return r;

        r = seed_record_read(&s->seed_rec);
        s->have_seed_rec = r > 0;
        s->seed_rec_error = MIN(r, 0);
        r = gate_record_read(&s->gate_rec);
        s->have_gate_rec = r > 0;
        s->gate_rec_error = MIN(r, 0);
        hwrng_read(&s->hwrng);
        r = provenance_facts_gather(&s->prov_facts, s->crng, &s->journal, s->have_seed_rec ? &s->seed_rec : NULL,
                                    s->have_gate_rec ? &s->gate_rec : NULL);
        if (r < 0)
                return r;
        provenance_decide(&s->prov_facts, &s->prov);
        return services_gather(s);
}

/* ---- This boot's records ---- */

static void json_u64_or_null(JsonWriter *j, const char *key, uint64_t v) {
        if (v == RUNSTATE_UNKNOWN)
                json_null(j, key);
        else
                json_uint(j, key, v);
}

/* ---- Output ---- */

static void json_int_or_null(JsonWriter *j, const char *key, int64_t v) {
        if (v < 0)
                json_null(j, key);
        else
                json_int(j, key, v);
}

static void json_tristate(JsonWriter *j, const char *key, int v) {
        if (v < 0)
                json_null(j, key);
        else
                json_bool(j, key, v);
}

static void json_unit(JsonWriter *j, const char *name, const UnitState *u) {
        json_object_begin(j, NULL);
        json_string(j, "unit", name);
        json_string(j, "load_state", u->load_state);
        json_string(j, "active_state", u->active_state);
        json_string(j, "sub_state", u->sub_state);
        json_object_end(j);
}

static void json_word_list(JsonWriter *j, const char *key, const char *list) {
        _cleanup_free_ char *copy = strdup(list);
        char *save = NULL;

        json_array_begin(j, key);
        for (char *w = copy ? strtok_r(copy, " ", &save) : NULL; w; w = strtok_r(NULL, " ", &save))
                json_string(j, NULL, w);
        json_array_end(j);
}

/* The verdict, its reasons and every fact it rests on; null: unknown. */
static void json_provenance(JsonWriter *j, const Provenance *p, const ProvenanceFacts *f) {
        json_object_begin(j, "provenance");
        json_string(j, "verdict", provenance_verdict_to_string(p->verdict));
        json_string(j, "text", p->line);
        json_array_begin(j, "reasons");
        for (unsigned i = 0; i < p->n_reasons; i++)
                json_string(j, NULL, provenance_reason_to_string(p->reasons[i]));
        json_array_end(j);
        json_string(j, "advice", p->advice[0] ? p->advice : NULL);

        json_object_begin(j, "facts");
        if (f->crng_init_found)
                json_uint(j, "crng_init_monotonic_usec", f->crng_init_usec);
        else
                json_null(j, "crng_init_monotonic_usec");
        if (f->userspace_found)
                json_uint(j, "userspace_monotonic_usec", f->userspace_usec);
        else
                json_null(j, "userspace_monotonic_usec");
        json_bool(j, "load_recorded", f->load_recorded);
        json_u64_or_null(j, "load_boottime_usec", f->load_usec);
        if (f->load_recorded) {
                json_uint(j, "seed_credited_bits", f->seed_credited && f->seed_bits != RUNSTATE_UNKNOWN ? f->seed_bits : 0);
                json_bool(j, "seed_mixed", f->seed_mixed);
                json_string(j, "credential", credential_result_to_string(f->credential));
                json_uint(j, "credential_credited_bits",
                          f->credential == CREDENTIAL_CREDITED && f->credential_bits != RUNSTATE_UNKNOWN ?
                          f->credential_bits : 0);
        } else {
                json_null(j, "seed_credited_bits");
                json_null(j, "seed_mixed");
                json_null(j, "credential");
                json_null(j, "credential_credited_bits");
        }
        json_tristate(j, "trust_cpu", f->trust_cpu);
        json_string(j, "trust_cpu_origin", trust_origin_to_string(f->trust_cpu_origin));
        json_tristate(j, "trust_bootloader", f->trust_bootloader);
        json_string(j, "trust_bootloader_origin", trust_origin_to_string(f->trust_bootloader_origin));
        json_tristate(j, "cpu_rdrand", f->cpu_rdrand);
        json_tristate(j, "cpu_rdseed", f->cpu_rdseed);
        json_tristate(j, "bootloader_seed", f->bootloader_seed);
        json_string(j, "hwrng_current", f->hwrng_current[0] ? f->hwrng_current : NULL);
        json_word_list(j, "hwrng_available", f->hwrng_available);
        json_int_or_null(j, "hwrng_quality", f->hwrng_current[0] ? f->hwrng_quality : -1);
        json_int_or_null(j, "rng_core_default_quality", f->default_quality);
        json_tristate(j, "vm_generation_device", f->vmgenid);
        json_string(j, "vm_generation_device_name", f->vmgenid_device[0] ? f->vmgenid_device : NULL);
        json_string(j, "other_daemon", f->other_daemon[0] ? f->other_daemon : NULL);
        json_tristate(j, "gate_ready_at_start", f->gate_ran ? f->gate_ready_at_start : -1);
        json_u64_or_null(j, "gate_waited_usec", f->gate_ran ? f->gate_waited_usec : RUNSTATE_UNKNOWN);
        if (f->gate_entropy_avail.n > 0)
                provenance_entropy_json(j, "gate_entropy_avail", &f->gate_entropy_avail);
        else
                json_null(j, "gate_entropy_avail");
        json_object_end(j);
        json_object_end(j);
}

static void print_json(const Status *s, JsonFormat format) {
        JsonWriter j;

        json_init(&j, stdout, format);
        json_object_begin(&j, NULL);
        json_int(&j, "schema_version", 1);

        json_object_begin(&j, "crng");
        json_tristate(&j, "initialized", s->crng < 0 ? -1 : s->crng);
        if (s->journal.crng_init.found) {
                json_uint(&j, "init_monotonic_usec", s->journal.crng_init.usec);
                json_string(&j, "init_source", event_source_to_string(s->journal.crng_init.source));
        } else {
                json_null(&j, "init_monotonic_usec");
                json_null(&j, "init_source");
        }
        json_object_end(&j);

        json_object_begin(&j, "kernel");
        json_string(&j, "release", s->uts.release);
        json_string(&j, "version", s->uts.version);
        json_string(&j, "machine", s->uts.machine);
        /* null: not on the command line, the kernel's built-in default applies. */
        json_string(&j, "trust_cpu", s->trust_cpu_set ? (s->trust_cpu ?: "") : NULL);
        json_string(&j, "trust_bootloader", s->trust_bootloader_set ? (s->trust_bootloader ?: "") : NULL);
        json_object_end(&j);

        json_object_begin(&j, "hw_random");
        json_bool(&j, "present", s->hwrng.present);
        json_string(&j, "current", s->hwrng.current);
        /* hwrng_read() dropped the kernel's "none" from the list already. */
        json_word_list(&j, "available", s->hwrng.available ?: "");
        json_object_end(&j);

        json_object_begin(&j, "seed");
        json_string(&j, "path", s->seed.path);
        json_bool(&j, "present", s->seed.present);
        json_int_or_null(&j, "size", s->seed.size);
        json_tristate(&j, "valid", s->seed.valid);
        json_string(&j, "problem", s->seed.problem);
        json_int_or_null(&j, "seed_bits", s->seed.seed_bits);
        json_tristate(&j, "creditable", s->seed.creditable);
        json_string(&j, "binding", binding_json[s->seed.binding]);
        json_int_or_null(&j, "age_usec", s->seed.age_usec);
        json_object_end(&j);

        json_object_begin(&j, "this_boot");
        json_string(&j, "runstate_dir", runstate_dir());
        if (s->have_seed_rec) {
                const SeedRecord *r = &s->seed_rec;

                json_object_begin(&j, "seed_helper");
                json_string(&j, "action", seed_action_to_string(r->action));
                json_u64_or_null(&j, "bits", r->bits);
                json_string(&j, "reason", r->reason);
                json_string(&j, "seed_path", r->seed_path);
                json_string(&j, "credential", credential_result_to_string(r->credential));
                json_u64_or_null(&j, "credential_bits", r->credential_bits);
                json_u64_or_null(&j, "legacy_mixed", r->legacy_mixed);
                json_tristate(&j, "replacement_creditable", r->replacement_creditable);
                json_string(&j, "vm_generation", record_vm_generation_to_string(r->vm_generation));
                json_string(&j, "seed_generation", seed_generation_to_string(r->seed_generation));
                json_u64_or_null(&j, "boottime_usec", r->boottime_usec);
                json_object_end(&j);
        } else
                json_null(&j, "seed_helper");
        if (s->have_gate_rec) {
                const GateRecord *r = &s->gate_rec;

                json_object_begin(&j, "gate");
                json_string(&j, "outcome", record_outcome_to_string(r->outcome));
                json_tristate(&j, "ready_at_start", r->ready_at_start);
                json_u64_or_null(&j, "start_boottime_usec", r->start_usec);
                json_u64_or_null(&j, "end_boottime_usec", r->end_usec);
                json_u64_or_null(&j, "waited_usec", r->waited_usec);
                json_object_end(&j);
        } else
                json_null(&j, "gate");
        json_object_end(&j);

        json_provenance(&j, &s->prov, &s->prov_facts);

        json_object_begin(&j, "service_manager");
        json_bool(&j, "reachable", s->bus_error >= 0);
        json_string(&j, "error", s->bus_error >= 0 ? NULL : s->bus_error_message ?: strerror(-s->bus_error));
        json_object_end(&j);

        json_array_begin(&j, "units");
        for (size_t i = 0; i < ELEMENTSOF(our_units); i++)
                json_unit(&j, our_units[i], s->units + i);
        json_array_end(&j);

        json_array_begin(&j, "other_daemons");
        for (size_t i = 0; i < n_daemons(); i++) {
                const DaemonInfo *d = s->daemons + i;

                if (!d->present)
                        continue;
                json_object_begin(&j, NULL);
                json_string(&j, "name", d->daemon->name);
                json_array_begin(&j, "units");
                for (size_t k = 0; k < ELEMENTSOF(d->units) && d->daemon->units[k]; k++)
                        if (unit_present(d->units + k))
                                json_unit(&j, d->daemon->units[k], d->units + k);
                json_array_end(&j);
                json_array_begin(&j, "pids");
                for (size_t k = 0; k < MIN(d->n_pids, ELEMENTSOF(d->pids)); k++)
                        json_int(&j, NULL, d->pids[k]);
                json_array_end(&j);
                json_object_end(&j);
        }
        json_array_end(&j);
        json_bool(&j, "processes_scanned", s->proc_error >= 0);

        json_object_end(&j);
}

/* "3d 4h", "2h 5min", "5min 3s", "12s": an age, not a stopwatch. */
static const char *format_age(char *buf, size_t size, uint64_t u) {
        uint64_t s = u / USEC_PER_SEC;

        if (s >= 86400)
                snprintf(buf, size, "%" PRIu64 "d %" PRIu64 "h", s / 86400, s % 86400 / 3600);
        else if (s >= 3600)
                snprintf(buf, size, "%" PRIu64 "h %" PRIu64 "min", s / 3600, s % 3600 / 60);
        else if (s >= 60)
                snprintf(buf, size, "%" PRIu64 "min %" PRIu64 "s", s / 60, s % 60);
        else
                snprintf(buf, size, "%" PRIu64 "s", s);
        return buf;
}

#define LABEL "%13s: "
#define CONTINUED "               "  /* under the text after LABEL */

/* The VM generation as the load saw it, and the seed's against it. */
static void print_vm_generation(const SeedRecord *r) {
        static const char *const seed_says[_SEED_GENERATION_MAX] = {
                [SEED_GENERATION_UNBOUND] = "the seed was saved in none (machine-id rules only)",
                [SEED_GENERATION_SAME] = "the seed was saved in this one",
                [SEED_GENERATION_CHANGED] = "changed since this seed was saved: restored snapshot or clone",
                [SEED_GENERATION_UNVERIFIABLE] = "the seed was saved in one, but none can be read now",
        };
        const char *now;

        switch (r->vm_generation) {
        case RECORD_VM_GENERATION_NONE:
                now = "none (no vmclock or VM Generation ID device)";
                break;
        case RECORD_VM_GENERATION_VMCLOCK:
                now = "vmclock generation counter";
                break;
        case RECORD_VM_GENERATION_VMGENID:
                now = "VM Generation ID";
                break;
        case RECORD_VM_GENERATION_UNREADABLE:
                now = "a device is there, but cannot be read";
                break;
        default:
                return;  /* an older entropy-seed: nothing recorded */
        }
        printf(LABEL "%s", "VM generation", now);
        if (r->seed_generation >= 0 && r->seed_generation < _SEED_GENERATION_MAX)
                printf("; %s%s%s", r->seed_generation == SEED_GENERATION_CHANGED ||
                       r->seed_generation == SEED_GENERATION_UNVERIFIABLE ? ansi_yellow() : "",
                       seed_says[r->seed_generation], ansi_normal());
        printf("\n");
}

/* No record to show: none (the program did not run), one that cannot be
 * read (too large, not a file), or one without the line that says what
 * happened. */
static void print_no_record(const char *label, const char *name, bool present, int error) {
        if (error < 0)
                printf(LABEL "%sunknown%s: %s/%s cannot be read: %s\n", label, ansi_red(), ansi_normal(),
                       runstate_dir(), name, strerror(-error));
        else if (present)
                printf(LABEL "%sunknown%s: %s/%s does not say what happened\n", label, ansi_red(), ansi_normal(),
                       runstate_dir(), name);
        else
                printf(LABEL "did not run this boot (no %s/%s)\n", label, runstate_dir(), name);
}

static void print_seed_helper(const Status *s) {
        const SeedRecord *r = &s->seed_rec;

        if (!s->have_seed_rec || r->action < 0) {
                print_no_record("Seed load", RUNSTATE_SEED, s->have_seed_rec, s->seed_rec_error);
                return;
        }
        if (r->action == SEED_ACTION_CREDITED)
                printf(LABEL "%sloaded, credited %" PRIu64 " bits%s", "Seed load", ansi_green(),
                       r->bits == RUNSTATE_UNKNOWN ? 0 : r->bits, ansi_normal());
        else if (r->action == SEED_ACTION_NOT_CREDITED)
                printf(LABEL "loaded, %snot credited%s: %s", "Seed load", ansi_yellow(), ansi_normal(),
                       r->reason[0] ? TERMINAL_ESCAPE(r->reason) : "no reason given");
        else
                printf(LABEL "%s%s%s%s%s", "Seed load", ansi_red(), seed_action_to_string(r->action), ansi_normal(),
                       r->reason[0] ? ": " : "", TERMINAL_ESCAPE(r->reason));
        if (r->boottime_usec != RUNSTATE_UNKNOWN)
                printf(" (at %s)", FORMAT_DURATION(r->boottime_usec));
        printf("\n");
        print_vm_generation(r);
        if (r->credential > CREDENTIAL_NONE)
                printf(LABEL "%s, %" PRIu64 " bits\n", "Credential", credential_result_to_string(r->credential),
                       r->credential_bits == RUNSTATE_UNKNOWN ? 0 : r->credential_bits);
}

static void print_gate(const Status *s) {
        const GateRecord *r = &s->gate_rec;
        const char *color;

        if (!s->have_gate_rec || r->outcome < 0) {
                print_no_record("Gate", RUNSTATE_GATE, s->have_gate_rec, s->gate_rec_error);
                return;
        }
        color = r->outcome == RECORD_OUTCOME_READY ? ansi_green() :
                r->outcome == RECORD_OUTCOME_TIMEOUT_PROCEED ? ansi_yellow() : ansi_red();
        if (r->outcome == RECORD_OUTCOME_READY && r->ready_at_start == 1)
                printf(LABEL "%sreleased at once%s: initialized before it started", "Gate", color, ansi_normal());
        else
                printf(LABEL "%s%s%s after waiting %s", "Gate", color, record_outcome_to_string(r->outcome),
                       ansi_normal(), FORMAT_DURATION(r->waited_usec == RUNSTATE_UNKNOWN ? 0 : r->waited_usec));
        if (r->end_usec != RUNSTATE_UNKNOWN)
                printf(" (at %s)", FORMAT_DURATION(r->end_usec));
        printf("\n");
}

static const char *yes_no_unknown(int v, const char *yes, const char *no) {
        return v < 0 ? "unknown" : v ? yes : no;
}

static void print_trust(const char *key, int v, TrustOrigin o) {
        printf("%s=%s", key, yes_no_unknown(v, "on", "off"));
        if (o == TRUST_ORIGIN_COMMAND_LINE)
                printf(" (command line)");
        else if (o == TRUST_ORIGIN_KERNEL_CONFIG)
                printf(" (kernel config default)");
        else
                printf(" (no valid parameter, no readable kernel config)");
}

/* The verdict, then each fact it rests on, one a line. */
static void print_provenance(const Provenance *p, const ProvenanceFacts *f) {
        const char *color = p->verdict == PROVENANCE_NONE ? ansi_red() :
                p->verdict == PROVENANCE_UNKNOWN ? ansi_yellow() : "";

        printf(LABEL "%s%s%s\n", "Provenance", color, TERMINAL_ESCAPE(p->line), *color ? ansi_normal() : "");
        if (f->crng_init_found)
                printf(CONTINUED "crng init done: %s after boot\n", FORMAT_DURATION(f->crng_init_usec));
        else
                printf(CONTINUED "crng init done: not found\n");
        if (!f->load_recorded)
                printf(CONTINUED "credited: nothing (no load recorded)\n");
        else {
                printf(CONTINUED "credited: ");
                if (f->credential == CREDENTIAL_CREDITED)
                        printf("credential %" PRIu64 " bits%s", f->credential_bits == RUNSTATE_UNKNOWN ? 0 : f->credential_bits,
                               f->seed_credited ? ", " : "");
                if (f->seed_credited)
                        printf("saved seed %" PRIu64 " bits", f->seed_bits == RUNSTATE_UNKNOWN ? 0 : f->seed_bits);
                if (f->credential != CREDENTIAL_CREDITED && !f->seed_credited)
                        printf("nothing");
                if (f->load_usec != RUNSTATE_UNKNOWN)
                        printf(" (load at %s)", FORMAT_DURATION(f->load_usec));
                printf("\n");
                if (f->seed_mixed || f->credential == CREDENTIAL_MIXED)
                        printf(CONTINUED "mixed, not credited: %s%s%s\n", f->seed_mixed ? "saved seed" : "",
                               f->seed_mixed && f->credential == CREDENTIAL_MIXED ? ", " : "",
                               f->credential == CREDENTIAL_MIXED ? "credential" : "");
        }
        printf(CONTINUED "trust: ");
        print_trust("random.trust_cpu", f->trust_cpu, f->trust_cpu_origin);
        printf(", ");
        print_trust("random.trust_bootloader", f->trust_bootloader, f->trust_bootloader_origin);
        printf("\n");
        printf(CONTINUED "CPU RNG: rdrand %s, rdseed %s\n", yes_no_unknown(f->cpu_rdrand, "yes", "no"),
               yes_no_unknown(f->cpu_rdseed, "yes", "no"));
        printf(CONTINUED "boot loader seed: %s\n",
               f->bootloader_seed > 0 ? "yes (RNG= in the kernel's efi: line)" :
               f->bootloader_seed == 0 ? "none (no RNG= in the kernel's efi: line)" :
               "unknown (no efi: tables line in the kernel log)");
        if (!f->hwrng_current[0])
                printf(CONTINUED "hardware RNG: none\n");
        else {
                printf(CONTINUED "hardware RNG: %s, quality ", TERMINAL_ESCAPE(f->hwrng_current));
                if (f->hwrng_quality >= 0)
                        printf("%d\n", f->hwrng_quality);
                else if (f->default_quality >= 0)
                        printf("unknown (rng_core.default_quality=%d)\n", f->default_quality);
                else
                        printf("unknown\n");
        }
        printf(CONTINUED "VM generation device: %s\n", f->vmgenid > 0 ? TERMINAL_ESCAPE(f->vmgenid_device) :
               f->vmgenid == 0 ? "none" : "unknown");
        if (f->other_daemon[0])
                printf(CONTINUED "other entropy daemon: %s\n", f->other_daemon);
        if (f->gate_ran && f->gate_ready_at_start > 0)
                printf(CONTINUED "gate wait: none, the pool was ready when it started\n");
        else if (f->gate_ran && f->gate_waited_usec != RUNSTATE_UNKNOWN)
                printf(CONTINUED "gate wait: %s\n", FORMAT_DURATION(f->gate_waited_usec));
        else
                printf(CONTINUED "gate wait: unknown (no record)\n");
        if (f->gate_entropy_avail.n > 0) {
                char text[256];

                provenance_entropy_text(&f->gate_entropy_avail, text, sizeof(text));
                printf(CONTINUED "entropy_avail: %s\n", text);
        }
        if (p->advice[0])
                printf(CONTINUED "%s%s%s\n", ansi_yellow(), p->advice, ansi_normal());
}

/* "active (exited)", as systemctl says it; coloured as systemctl colours it. */
static void print_unit_state(const UnitState *u) {
        const char *color;

        if (!u->load_state) {
                printf("unknown");
                return;
        }
        if (streq(u->load_state, "not-found")) {
                printf("not installed");
                return;
        }
        if (!streq(u->load_state, "loaded")) {
                printf("%s%s%s", ansi_yellow(), u->load_state, ansi_normal());
                return;
        }
        color = streq_ptr(u->active_state, "active") ? ansi_green() :
                streq_ptr(u->active_state, "failed") ? ansi_red() :
                streq_ptr(u->active_state, "inactive") ? "" : ansi_yellow();
        printf("%s%s%s (%s)", color, strna(u->active_state), *color ? ansi_normal() : "", strna(u->sub_state));
}

static void print_units(const Status *s) {
        for (size_t i = 0; i < ELEMENTSOF(our_units); i++) {
                if (i == 0)
                        printf(LABEL "%s: ", "Units", our_units[i]);
                else
                        printf(CONTINUED "%s: ", our_units[i]);
                print_unit_state(s->units + i);
                if (i == 0 && s->bus_error < 0)
                        printf(" (systemd is not reachable: %s)",
                               s->bus_error_message ?: strerror(-s->bus_error));
                printf("\n");
        }
}

static void print_daemons(const Status *s) {
        bool any = false;

        for (size_t i = 0; i < n_daemons(); i++) {
                const DaemonInfo *d = s->daemons + i;
                const char *sep = "";

                if (!d->present)
                        continue;
                if (any)
                        printf(CONTINUED "%s: ", d->daemon->name);
                else
                        printf(LABEL "%s: ", "Other daemons", d->daemon->name);
                any = true;
                for (size_t k = 0; k < ELEMENTSOF(d->units) && d->daemon->units[k]; k++)
                        if (unit_present(d->units + k)) {
                                printf("%s%s ", sep, d->daemon->units[k]);
                                print_unit_state(d->units + k);
                                sep = ", ";
                        }
                for (size_t k = 0; k < MIN(d->n_pids, ELEMENTSOF(d->pids)); k++) {
                        printf("%s%s%d", k == 0 ? sep : ",", k == 0 ? (d->n_pids > 1 ? "pids " : "pid ") : " ",
                               (int) d->pids[k]);
                        sep = ", ";
                }
                if (d->n_pids > ELEMENTSOF(d->pids))
                        printf(", ...");
                printf("\n");
        }
        if (any)
                return;
        if (s->proc_error < 0 && s->bus_error < 0)
                printf(LABEL "unknown (no systemd, and %s cannot be read: %s)\n", "Other daemons", "/proc",
                       strerror(-s->proc_error));
        else
                printf(LABEL "none found\n", "Other daemons");
}

static void print_human(const Status *s) {
        char age[32];

        if (s->crng == 1) {
                printf(LABEL "%sinitialized%s", "CRNG", ansi_green(), ansi_normal());
                if (s->journal.crng_init.found)
                        printf(" since %s after boot%s\n", FORMAT_DURATION(s->journal.crng_init.usec),
                               s->journal.crng_init.source == EVENT_SOURCE_KERNEL_LOG ? " (from the kernel log)" : "");
                else
                        printf(", since: unknown (no \"crng init done\" in this boot's journal or kernel log)\n");
        } else if (s->crng == 0)
                printf(LABEL "%sNOT initialized%s: getrandom() would block\n", "CRNG", ansi_red(), ansi_normal());
        else
                printf(LABEL "%sunknown%s: %s\n", "CRNG", ansi_yellow(), ansi_normal(),
                       s->crng == -ENOSYS ? "no getrandom() (Linux < 3.17)" : strerror(-s->crng));

        printf(LABEL "%s %s %s\n", "Kernel", s->uts.sysname, s->uts.release, s->uts.machine);
        printf(LABEL "random.trust_cpu=%s, random.trust_bootloader=%s\n", "Trust",
               s->trust_cpu_set ? TERMINAL_ESCAPE(strna(s->trust_cpu)) : "kernel default",
               s->trust_bootloader_set ? TERMINAL_ESCAPE(strna(s->trust_bootloader)) : "kernel default");

        if (!s->hwrng.present)
                printf(LABEL "none\n", "hw_random");
        else
                printf(LABEL "%s (available: %s)\n", "hw_random",
                       s->hwrng.current ? TERMINAL_ESCAPE(s->hwrng.current) : "no current source",
                       s->hwrng.available && *s->hwrng.available ? TERMINAL_ESCAPE(s->hwrng.available) : "none");

        if (!s->seed.present)
                printf(LABEL "%s: none yet\n", "Seed file", TERMINAL_ESCAPE(s->seed.path));
        else if (s->seed.valid != 1)
                printf(LABEL "%s: %s%s%s\n", "Seed file", TERMINAL_ESCAPE(s->seed.path), ansi_yellow(),
                       TERMINAL_ESCAPE(strna(s->seed.problem)), ansi_normal());
        else
                printf(LABEL "%s: %" PRId64 " bits, %s, %s%s%s, %s old\n", "Seed file", TERMINAL_ESCAPE(s->seed.path),
                       s->seed.seed_bits,
                       s->seed.creditable ? "creditable" : "not creditable",
                       s->seed.binding == BINDING_OTHER_MACHINE ? ansi_red() : "",
                       s->seed.binding == BINDING_THIS_MACHINE ? "bound to this machine" :
                       s->seed.binding == BINDING_OTHER_MACHINE ? "bound to ANOTHER machine" :
                       s->seed.binding == BINDING_UNBOUND ? "not bound to a machine" : "binding unknown",
                       s->seed.binding == BINDING_OTHER_MACHINE ? ansi_normal() : "",
                       format_age(age, sizeof(age), (uint64_t) MAX(s->seed.age_usec, 0)));

        print_seed_helper(s);
        print_gate(s);
        print_provenance(&s->prov, &s->prov_facts);
        print_units(s);
        print_daemons(s);
}

int verb_status(int argc, char *argv[], const CtlArgs *a) {
        Status s = {};
        int r, ret;

        r = status_gather(&s);
        if (r < 0) {
                status_done(&s);
                log_error_errno(r, "Failed to gather the status: %m");
                return CTL_EXIT_FAILURE;
        }
        if (a->json != JSON_FORMAT_OFF)
                print_json(&s, a->json);
        else if (!a->quiet)
                print_human(&s);
        ret = s.crng == 1 ? CTL_EXIT_OK : s.crng == 0 ? CTL_EXIT_NOT_READY : CTL_EXIT_FAILURE;
        status_done(&s);
        return ret;
}
