// SPDX-License-Identifier: LGPL-2.1-or-later
/* entropyctl metrics: every reason entropy-seed records maps onto one of
 * the fixed label values, and the exposition text has every series. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "macro.h"
#include "metrics.h"

static SeedVerdict classify(SeedAction action, const char *reason) {
        SeedRecord r = { .action = action };

        snprintf(r.reason, sizeof r.reason, "%s", reason);
        return seed_verdict_classify(&r);
}

static void test_classify(void **state) {
        /* The reasons as credit.c, the seed store and the load word them. */
        static const struct { const char *reason; SeedVerdict v; } t[] = {
                { "crediting disabled (--no-credit)", SEED_VERDICT_DISABLED },
                { "crediting disabled", SEED_VERDICT_DISABLED },
                { "no seed directory (--credential-only)", SEED_VERDICT_DISABLED },
                { "no seed file", SEED_VERDICT_NO_SEED },
                { "seed file does not parse: bad checksum", SEED_VERDICT_INVALID },
                { "the seed is a symbolic link, not followed", SEED_VERDICT_INVALID },
                { "the seed file is empty", SEED_VERDICT_INVALID },
                { "the seed is a directory", SEED_VERDICT_INVALID },
                { "seed was written before the CRNG was initialized", SEED_VERDICT_NOT_CREDITABLE },
                { "first boot (/etc/machine-id is uninitialized)", SEED_VERDICT_FIRST_BOOT },
                { "first boot (/run/systemd/first-boot exists)", SEED_VERDICT_FIRST_BOOT },
                { "seed is bound to another machine (machine-id changed: cloned image?)", SEED_VERDICT_OTHER_MACHINE },
                { "seed is bound to a machine-id, but this system has none (cloned image?)", SEED_VERDICT_OTHER_MACHINE },
                { "VM generation changed since this seed was saved: restored snapshot or clone",
                  SEED_VERDICT_VM_GENERATION_CHANGED },
                { "seed was saved in a VM generation, but none can be read now: restored snapshot or clone?",
                  SEED_VERDICT_VM_GENERATION_UNREADABLE },
                { "no machine-id to bind the seed to (CreditWithoutMachineId= is off)", SEED_VERDICT_NO_MACHINE_ID },
                { "/etc/machine-id is not a valid machine-id (32 hex digits, not all zero)", SEED_VERDICT_NO_MACHINE_ID },
                { "seed file is not a regular file", SEED_VERDICT_PERMISSIONS },
                { "seed file is owned by UID 1000, not root", SEED_VERDICT_PERMISSIONS },
                { "seed file is mode 0644, must be 0600 or stricter", SEED_VERDICT_PERMISSIONS },
                { "seed directory is mode 0755, must be 0700 or stricter", SEED_VERDICT_PERMISSIONS },
                { "replacement seed could not be written durably", SEED_VERDICT_NOT_DURABLE },
                { "cannot open and lock the seed directory: another process holds its lock", SEED_VERDICT_LOCKED },
                { "this load could not be recorded", SEED_VERDICT_ERROR },
                { "something new", SEED_VERDICT_OTHER },
        };
        for (size_t i = 0; i < ELEMENTSOF(t); i++)
                assert_int_equal(classify(SEED_ACTION_NOT_CREDITED, t[i].reason), t[i].v);
        assert_int_equal(classify(SEED_ACTION_CREDITED, ""), SEED_VERDICT_CREDITED);
        assert_int_equal(classify(SEED_ACTION_ERROR, "something new"), SEED_VERDICT_ERROR);
        assert_int_equal(classify(SEED_ACTION_ERROR, "cannot open and lock the seed directory: x"), SEED_VERDICT_LOCKED);
        assert_int_equal(classify(_SEED_ACTION_INVALID, ""), SEED_VERDICT_NOT_LOADED);
        assert_int_equal(seed_verdict_classify(NULL), SEED_VERDICT_NOT_LOADED);
        for (int v = 0; v < _SEED_VERDICT_MAX; v++)
                assert_non_null(seed_verdict_to_string(v));
}

static char *write_metrics(const MetricsFacts *m) {
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);

        assert_non_null(f);
        metrics_write(f, m);
        assert_int_equal(fclose(f), 0);
        return text;
}

static void test_write(void **state) {
        MetricsFacts m = {
                .version = "1.2",
                .pool_initialized = 1,
                .crng_found = true,
                .crng_usec = 3250000,
                .have_gate = true,
                .gate = { .outcome = RECORD_OUTCOME_READY, .end_usec = 3300000, .waited_usec = 1250000 },
                .have_seed = true,
                .seed = { .action = SEED_ACTION_NOT_CREDITED, .reason = "seed is bound to another machine (x)",
                          .credential = CREDENTIAL_CREDITED, .bits = 0 },
                .seed_file_age_usec = 2 * USEC_PER_SEC,
                .first_boot = 0,
                .ready_source = PROVENANCE_CREDENTIAL,
        };
        char *s = write_metrics(&m);

        assert_non_null(strstr(s, "entropy_gate_info{version=\"1.2\"} 1\n"));
        assert_non_null(strstr(s, "# TYPE entropy_gate_pool_initialized gauge\nentropy_gate_pool_initialized 1\n"));
        assert_non_null(strstr(s, "\nentropy_gate_pool_initialized_seconds 3.250000\n"));
        assert_non_null(strstr(s, "\nentropy_gate_gate_wait_seconds 1.250000\n"));
        assert_non_null(strstr(s, "\nentropy_gate_gate_released_seconds 3.300000\n"));
        assert_non_null(strstr(s, "\nentropy_gate_gate_outcome{outcome=\"ready\"} 1\n"));
        assert_non_null(strstr(s, "\nentropy_gate_gate_outcome{outcome=\"timeout-fail\"} 0\n"));
        assert_non_null(strstr(s, "\nentropy_gate_gate_outcome{outcome=\"none\"} 0\n"));
        assert_non_null(strstr(s, "\nentropy_gate_seed_loaded 1\n"));
        assert_non_null(strstr(s, "\nentropy_gate_seed_credited 0\n"));
        assert_non_null(strstr(s, "\nentropy_gate_seed_verdict{reason=\"other_machine\"} 1\n"));
        assert_non_null(strstr(s, "\nentropy_gate_seed_verdict{reason=\"credited\"} 0\n"));
        assert_non_null(strstr(s, "\nentropy_gate_credential_credited 1\n"));
        assert_non_null(strstr(s, "\nentropy_gate_seed_file_age_seconds 2.000000\n"));
        assert_non_null(strstr(s, "\nentropy_gate_first_boot 0\n"));
        assert_non_null(strstr(s, "\nentropy_gate_clone_suspected 1\n"));
        assert_non_null(strstr(s, "# TYPE entropy_gate_ready_source gauge\n"));
        assert_non_null(strstr(s, "\nentropy_gate_ready_source{source=\"credential\"} 1\n"));
        assert_non_null(strstr(s, "\nentropy_gate_ready_source{source=\"seed\"} 0\n"));
        assert_non_null(strstr(s, "\nentropy_gate_ready_source{source=\"jitter\"} 0\n"));
        free(s);

        /* Nothing recorded: every boolean and state set still there. */
        MetricsFacts none = { .version = "1.2", .pool_initialized = 0, .seed_file_age_usec = -1, .first_boot = -1 };
        s = write_metrics(&none);
        assert_non_null(strstr(s, "\nentropy_gate_gate_outcome{outcome=\"none\"} 1\n"));
        assert_non_null(strstr(s, "\nentropy_gate_seed_verdict{reason=\"not_loaded\"} 1\n"));
        assert_non_null(strstr(s, "\nentropy_gate_seed_loaded 0\n"));
        assert_null(strstr(s, "entropy_gate_gate_wait_seconds"));
        assert_null(strstr(s, "entropy_gate_pool_initialized_seconds"));
        assert_null(strstr(s, "entropy_gate_seed_file_age_seconds"));
        assert_null(strstr(s, "entropy_gate_first_boot"));
        /* Every source is there, exactly one of them 1. */
        for (int v = 0; v < _PROVENANCE_VERDICT_MAX; v++) {
                char line[128];

                snprintf(line, sizeof line, "\nentropy_gate_ready_source{source=\"%s\"} %d\n",
                         provenance_verdict_to_string(v), v == PROVENANCE_UNKNOWN);
                assert_non_null(strstr(s, line));
        }
        free(s);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_classify),
                cmocka_unit_test(test_write),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
