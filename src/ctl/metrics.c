// SPDX-License-Identifier: LGPL-2.1-or-later
/* Names follow Prometheus' conventions: one prefix (entropy_gate_), base
 * units in the name (_seconds, _bytes), booleans as 0/1 gauges, a state
 * as one series per label value of which exactly one is 1 (so that
 * "== 1" selects it and none of them goes missing), labels of static
 * facts in an _info series. */
#include <inttypes.h>

#include "macro.h"
#include "metrics.h"
#include "string-table.h"

static const char *const seed_verdict_table[_SEED_VERDICT_MAX] = {
        [SEED_VERDICT_CREDITED] = "credited",
        [SEED_VERDICT_NO_SEED] = "no_seed",
        [SEED_VERDICT_DISABLED] = "disabled",
        [SEED_VERDICT_INVALID] = "invalid",
        [SEED_VERDICT_NOT_CREDITABLE] = "not_creditable",
        [SEED_VERDICT_FIRST_BOOT] = "first_boot",
        [SEED_VERDICT_OTHER_MACHINE] = "other_machine",
        [SEED_VERDICT_VM_GENERATION_CHANGED] = "vm_generation_changed",
        [SEED_VERDICT_VM_GENERATION_UNREADABLE] = "vm_generation_unreadable",
        [SEED_VERDICT_NO_MACHINE_ID] = "no_machine_id",
        [SEED_VERDICT_PERMISSIONS] = "permissions",
        [SEED_VERDICT_NOT_DURABLE] = "not_durable",
        [SEED_VERDICT_LOCKED] = "locked",
        [SEED_VERDICT_ERROR] = "error",
        [SEED_VERDICT_NOT_LOADED] = "not_loaded",
        [SEED_VERDICT_ALREADY_CREDITED] = "already_credited",
        [SEED_VERDICT_OTHER] = "other",
};

DEFINE_STRING_TABLE_TO_STRING(seed_verdict, SeedVerdict)

/* The reasons entropy-seed records (credit.c's rules, the seed store's
 * problems, the load's own), by how they begin. */
static const struct {
        const char *prefix;
        SeedVerdict verdict;
} reasons[] = {
        { "crediting disabled",                        SEED_VERDICT_DISABLED },
        { "no seed directory (--credential-only)",     SEED_VERDICT_DISABLED },
        { "no seed file",                              SEED_VERDICT_NO_SEED },
        { "seed file does not parse",                  SEED_VERDICT_INVALID },
        { "the seed ",                                 SEED_VERDICT_INVALID },
        { "seed was written before",                   SEED_VERDICT_NOT_CREDITABLE },
        { "first boot",                                SEED_VERDICT_FIRST_BOOT },
        { "seed is bound to",                          SEED_VERDICT_OTHER_MACHINE },
        { "VM generation changed",                     SEED_VERDICT_VM_GENERATION_CHANGED },
        { "seed was saved in a VM generation",         SEED_VERDICT_VM_GENERATION_UNREADABLE },
        { "no machine-id",                             SEED_VERDICT_NO_MACHINE_ID },
        { "/etc/machine-id is not a valid",            SEED_VERDICT_NO_MACHINE_ID },
        { "seed file is ",                             SEED_VERDICT_PERMISSIONS },
        { "seed directory is ",                        SEED_VERDICT_PERMISSIONS },
        { "replacement seed could not be written",     SEED_VERDICT_NOT_DURABLE },
        { "cannot open and lock the seed directory",   SEED_VERDICT_LOCKED },
        { "crediting failed",                          SEED_VERDICT_ERROR },
        { "this load could not be recorded",           SEED_VERDICT_ERROR },
        { "cannot read this boot's id",                SEED_VERDICT_ERROR },
        { "seed file has ",                            SEED_VERDICT_PERMISSIONS },
        { "the runtime directory ",                    SEED_VERDICT_PERMISSIONS },
        { "cannot lock ",                              SEED_VERDICT_LOCKED },
        { "the record of what this boot credited",     SEED_VERDICT_ALREADY_CREDITED },
        { "this seed was credited already",            SEED_VERDICT_ALREADY_CREDITED },
};

SeedVerdict seed_verdict_classify(const SeedRecord *rec) {
        if (!rec || rec->action < 0)
                return SEED_VERDICT_NOT_LOADED;
        if (rec->action == SEED_ACTION_CREDITED)
                return SEED_VERDICT_CREDITED;
        for (size_t i = 0; i < ELEMENTSOF(reasons); i++)
                if (startswith(rec->reason, reasons[i].prefix))
                        return reasons[i].verdict;
        return rec->action == SEED_ACTION_ERROR ? SEED_VERDICT_ERROR : SEED_VERDICT_OTHER;
}

static void header(FILE *f, const char *name, const char *help) {
        fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

static void gauge_bool(FILE *f, const char *name, const char *help, bool v) {
        header(f, name, help);
        fprintf(f, "%s %d\n", name, v);
}

static void gauge_seconds(FILE *f, const char *name, const char *help, usec_t u) {
        header(f, name, help);
        fprintf(f, "%s %" PRIu64 ".%06" PRIu64 "\n", name, u / USEC_PER_SEC, u % USEC_PER_SEC);
}

static bool known(uint64_t v) {
        return v != RUNSTATE_UNKNOWN;
}

/* What both forms say beyond the facts themselves, decided once, so that
 * the text and the JSON never disagree. */
typedef struct Derived {
        SeedVerdict verdict;
        bool gate_ran;
        uint64_t credited_bytes;
        bool credential_present, credential_credited;
        int first_boot;                /* -1 unknown */
} Derived;

static void derive(const MetricsFacts *m, Derived *d) {
        d->verdict = seed_verdict_classify(m->have_seed ? &m->seed : NULL);
        d->gate_ran = m->have_gate && m->gate.outcome >= 0;
        d->credited_bytes = d->verdict == SEED_VERDICT_CREDITED && known(m->seed.bits) ? m->seed.bits / 8 : 0;
        d->credential_present = m->have_seed && m->seed.credential > CREDENTIAL_NONE;
        d->credential_credited = m->have_seed && m->seed.credential == CREDENTIAL_CREDITED;
        d->first_boot = m->first_boot < 0 ? -1 : m->first_boot > 0 || d->verdict == SEED_VERDICT_FIRST_BOOT;
}

/* Label values are ours (fixed tables and the version), never escaped text. */
void metrics_write(FILE *f, const MetricsFacts *m) {
        Derived d;

        derive(m, &d);

        header(f, "entropy_gate_info", "The entropyctl that wrote these metrics.");
        fprintf(f, "entropy_gate_info{version=\"%s\"} 1\n", m->version);

        if (m->pool_initialized >= 0)
                gauge_bool(f, "entropy_gate_pool_initialized",
                           "Whether the kernel's CRNG is initialized (getrandom() does not block).",
                           m->pool_initialized > 0);
        if (m->crng_found)
                gauge_seconds(f, "entropy_gate_pool_initialized_seconds",
                              "When the kernel said crng init done, in seconds since the kernel started.",
                              m->crng_usec);

        gauge_bool(f, "entropy_gate_gate_ran", "Whether entropy-gate recorded a result in this boot.", d.gate_ran);
        header(f, "entropy_gate_gate_outcome",
               "How entropy-gate ended in this boot: the outcome whose value is 1 (none: it did not run).");
        for (int o = 0; o < _RECORD_OUTCOME_MAX; o++)
                fprintf(f, "entropy_gate_gate_outcome{outcome=\"%s\"} %d\n",
                        record_outcome_to_string(o), d.gate_ran && m->gate.outcome == o);
        fprintf(f, "entropy_gate_gate_outcome{outcome=\"none\"} %d\n", !d.gate_ran);
        if (d.gate_ran && known(m->gate.waited_usec))
                gauge_seconds(f, "entropy_gate_gate_wait_seconds",
                              "How long entropy-gate waited for the CRNG in this boot.", m->gate.waited_usec);
        if (d.gate_ran && known(m->gate.end_usec))
                gauge_seconds(f, "entropy_gate_gate_released_seconds",
                              "When entropy-gate let the boot go on, in seconds since the kernel started.",
                              m->gate.end_usec);

        gauge_bool(f, "entropy_gate_seed_loaded", "Whether entropy-seed load ran in this boot.",
                   d.verdict != SEED_VERDICT_NOT_LOADED);
        gauge_bool(f, "entropy_gate_seed_credited", "Whether the saved seed was credited to the kernel in this boot.",
                   d.verdict == SEED_VERDICT_CREDITED);
        header(f, "entropy_gate_seed_credited_bytes", "How many bytes of saved seed were credited in this boot.");
        fprintf(f, "entropy_gate_seed_credited_bytes %" PRIu64 "\n", d.credited_bytes);
        header(f, "entropy_gate_seed_verdict",
               "Why the saved seed was or was not credited in this boot: the reason whose value is 1.");
        for (int v = 0; v < _SEED_VERDICT_MAX; v++)
                fprintf(f, "entropy_gate_seed_verdict{reason=\"%s\"} %d\n", seed_verdict_to_string(v), d.verdict == v);

        gauge_bool(f, "entropy_gate_credential_present",
                   "Whether a seed came as the system credential entropy-gate.seed in this boot.",
                   d.credential_present);
        gauge_bool(f, "entropy_gate_credential_credited",
                   "Whether the seed of the system credential was credited in this boot.",
                   d.credential_credited);

        if (m->seed_file_age_usec >= 0)
                gauge_seconds(f, "entropy_gate_seed_file_age_seconds",
                              "Age of the seed file on disk; older than this boot means this boot did not replace it.",
                              (usec_t) m->seed_file_age_usec);
        if (d.first_boot >= 0)
                gauge_bool(f, "entropy_gate_first_boot",
                           "Whether this is the machine's first boot (machine-id uninitialized, or systemd says so).",
                           d.first_boot > 0);
        /* An inference (provenance.h), named as such in its help. */
        header(f, "entropy_gate_ready_source",
               "How the pool most likely became ready in this boot, inferred from what the system shows: "
               "the source whose value is 1 (none: not ready).");
        for (int v = 0; v < _PROVENANCE_VERDICT_MAX; v++)
                fprintf(f, "entropy_gate_ready_source{source=\"%s\"} %d\n", provenance_verdict_to_string(v),
                        m->ready_source == v);

        gauge_bool(f, "entropy_gate_clone_suspected",
                   "Whether the saved seed is bound to another machine-id: this machine may be a clone.",
                   d.verdict == SEED_VERDICT_OTHER_MACHINE);
}

/* A duration, or null when it is not known. */
static void json_usec(JsonWriter *j, const char *key, bool have, uint64_t usec) {
        if (have && known(usec))
                json_uint(j, key, usec);
        else
                json_null(j, key);
}

void metrics_write_json(FILE *f, JsonFormat format, const MetricsFacts *m) {
        JsonWriter j;
        Derived d;

        derive(m, &d);
        json_init(&j, f, format);
        json_object_begin(&j, NULL);
        json_int(&j, "schema_version", 1);
        json_string(&j, "version", m->version);
        if (m->pool_initialized >= 0)
                json_bool(&j, "pool_initialized", m->pool_initialized > 0);
        else
                json_null(&j, "pool_initialized");
        json_usec(&j, "pool_initialized_usec", m->crng_found, m->crng_usec);

        json_object_begin(&j, "gate");
        json_bool(&j, "ran", d.gate_ran);
        json_string(&j, "outcome", d.gate_ran ? record_outcome_to_string(m->gate.outcome) : "none");
        json_usec(&j, "wait_usec", d.gate_ran, m->gate.waited_usec);
        json_usec(&j, "released_usec", d.gate_ran, m->gate.end_usec);
        json_object_end(&j);

        json_object_begin(&j, "seed");
        json_bool(&j, "loaded", d.verdict != SEED_VERDICT_NOT_LOADED);
        json_bool(&j, "credited", d.verdict == SEED_VERDICT_CREDITED);
        json_uint(&j, "credited_bytes", d.credited_bytes);
        json_string(&j, "verdict", seed_verdict_to_string(d.verdict));
        json_usec(&j, "file_age_usec", m->seed_file_age_usec >= 0, (uint64_t) m->seed_file_age_usec);
        json_object_end(&j);

        json_object_begin(&j, "credential");
        json_bool(&j, "present", d.credential_present);
        json_bool(&j, "credited", d.credential_credited);
        json_object_end(&j);

        if (d.first_boot >= 0)
                json_bool(&j, "first_boot", d.first_boot > 0);
        else
                json_null(&j, "first_boot");
        json_string(&j, "ready_source", provenance_verdict_to_string(m->ready_source));
        json_bool(&j, "clone_suspected", d.verdict == SEED_VERDICT_OTHER_MACHINE);
        json_object_end(&j);
}
