// SPDX-License-Identifier: LGPL-2.1-or-later
/* The provenance verdict: a table of boots, each a set of facts and the
 * verdict, reasons and words it must give; the small parsers of what the
 * kernel shows (kstrtobool, .config, /proc/cpuinfo, the efi: line). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "macro.h"
#include "provenance.h"

/* A cold VM: nothing credited, no hardware RNG, no trusted CPU RNG; the gate waited. */
static ProvenanceFacts cold(void) {
        ProvenanceFacts f;

        provenance_facts_init(&f);
        f.crng_ready = 1;
        f.crng_init_found = true;
        f.crng_init_usec = 3410000;
        f.userspace_found = true;
        f.userspace_usec = 1200000;
        f.load_recorded = true;
        f.seed_credited = false;
        f.seed_bits = 0;
        f.credential = CREDENTIAL_NONE;
        f.credential_bits = 0;
        f.load_usec = 2400000;
        f.trust_cpu = 0;
        f.trust_cpu_origin = TRUST_ORIGIN_COMMAND_LINE;
        f.trust_bootloader = 0;
        f.trust_bootloader_origin = TRUST_ORIGIN_COMMAND_LINE;
        f.cpu_rdrand = 1;
        f.cpu_rdseed = 0;
        f.bootloader_seed = -1;
        f.vmgenid = 0;
        f.gate_ran = true;
        f.gate_ready_at_start = 0;
        f.gate_waited_usec = 960000;
        return f;
}

typedef struct Case {
        const char *name;
        void (*tweak)(ProvenanceFacts *f);
        ProvenanceVerdict verdict;
        const char *line;            /* the whole line, or NULL */
        const char *contains;        /* a part of it, or NULL */
        ProvenanceReason reasons[6]; /* the first reasons, in order, up to a _PROVENANCE_REASON_MAX */
        bool advice;
} Case;

static void t_cold(ProvenanceFacts *f) { (void) f; }
static void t_cold_long(ProvenanceFacts *f) { f->gate_waited_usec = 2500000; }
static void t_no_cpu_rng(ProvenanceFacts *f) { f->cpu_rdrand = 0; f->trust_cpu = 0; }
static void t_seed(ProvenanceFacts *f) {
        f->seed_credited = true;
        f->seed_bits = 512;
        f->load_usec = 812000;
        f->crng_init_usec = 812400;
        f->userspace_usec = 400000;
        f->gate_ready_at_start = 1;
        f->gate_waited_usec = 0;
}
static void t_credential(ProvenanceFacts *f) {
        t_seed(f);
        f->seed_credited = false;
        f->seed_bits = 0;
        f->seed_mixed = true;
        f->credential = CREDENTIAL_CREDITED;
        f->credential_bits = 256;
}
static void t_both(ProvenanceFacts *f) {
        t_seed(f);
        f->credential = CREDENTIAL_CREDITED;
        f->credential_bits = 384;
}
static void t_seed_no_times(ProvenanceFacts *f) {
        t_seed(f);
        f->crng_init_found = false;
        f->load_usec = RUNSTATE_UNKNOWN;
}
/* Our credit came after the pool was ready: not ours. */
static void t_seed_late(ProvenanceFacts *f) {
        t_seed(f);
        f->crng_init_usec = 300000;
        f->userspace_usec = 100000;
        f->hwrng_current[0] = 0;
}
/* Within the clocks' slack: still ours. */
static void t_seed_slack(ProvenanceFacts *f) {
        t_seed(f);
        f->crng_init_usec = f->load_usec - 20000;
}
static void t_virtio(ProvenanceFacts *f) {
        snprintf(f->hwrng_current, sizeof f->hwrng_current, "virtio_rng.0");
        f->hwrng_quality = 1000;
        f->crng_init_usec = 1350000;
        f->gate_waited_usec = 150000;
}
static void t_virtio_quality_unknown(ProvenanceFacts *f) {
        t_virtio(f);
        f->hwrng_quality = -1;
}
static void t_hwrng_zero(ProvenanceFacts *f) {
        t_virtio(f);
        f->hwrng_quality = 0;
}
static void t_hwrng_default_quality(ProvenanceFacts *f) {
        t_virtio(f);
        f->hwrng_quality = -1;
        f->default_quality = 0;
}
static void t_cpu(ProvenanceFacts *f) {
        f->trust_cpu = 1;
        f->trust_cpu_origin = TRUST_ORIGIN_KERNEL_CONFIG;
        f->crng_init_usec = 128000;
        f->gate_ready_at_start = 1;
        f->gate_waited_usec = 0;
}
/* Trusted and present, but the gate had to wait: the CPU did not do it. */
static void t_cpu_but_waited(ProvenanceFacts *f) { f->trust_cpu = 1; }
static void t_cpu_trust_unknown(ProvenanceFacts *f) {
        t_cpu(f);
        f->trust_cpu = -1;
        f->trust_cpu_origin = TRUST_ORIGIN_UNKNOWN;
}
static void t_bootloader(ProvenanceFacts *f) {
        f->trust_bootloader = 1;
        f->bootloader_seed = 1;
        f->crng_init_usec = 50000;
        f->gate_ready_at_start = 1;
        f->gate_waited_usec = 0;
}
static void t_bootloader_untrusted(ProvenanceFacts *f) {
        f->bootloader_seed = 1;
        f->trust_bootloader = 0;
}
static void t_daemon(ProvenanceFacts *f) {
        snprintf(f->other_daemon, sizeof f->other_daemon, "haveged");
        f->gate_ready_at_start = 1;
        f->gate_waited_usec = 0;
}
static void t_not_ready(ProvenanceFacts *f) {
        f->crng_ready = 0;
        f->crng_init_found = false;
        f->gate_ran = false;
}
static void t_nothing_known(ProvenanceFacts *f) {
        provenance_facts_init(f);
}
static void t_no_load(ProvenanceFacts *f) {
        f->load_recorded = false;
        f->seed_bits = f->credential_bits = f->load_usec = RUNSTATE_UNKNOWN;
}
static void t_no_gate(ProvenanceFacts *f) {
        f->gate_ran = false;
        f->gate_ready_at_start = -1;
        f->gate_waited_usec = RUNSTATE_UNKNOWN;
}
static void t_all_remedies(ProvenanceFacts *f) {
        t_virtio(f);
        f->gate_waited_usec = 3000000;
        f->seed_credited = true;
        f->credential = CREDENTIAL_CREDITED;
        f->load_usec = 9000000;     /* after the pool was ready: not the cause */
}

#define END _PROVENANCE_REASON_MAX

static const Case cases[] = {
        { "cold", t_cold, PROVENANCE_JITTER,
          "most likely ready by the kernel's jitter generator after 0.960s of waiting: "
          "nothing credited, no hardware RNG, CPU RNG not trusted", NULL,
          { PROVENANCE_REASON_GATE_WAITED, PROVENANCE_REASON_NOTHING_CREDITED, PROVENANCE_REASON_NO_HWRNG,
            PROVENANCE_REASON_CPU_NOT_TRUSTED, END }, false },
        { "cold, long", t_cold_long, PROVENANCE_JITTER, NULL,
          "most likely ready by the kernel's jitter generator after 2.500s of waiting", { END }, true },
        { "cold, no CPU RNG", t_no_cpu_rng, PROVENANCE_JITTER, NULL, "no hardware RNG, no CPU RNG",
          { PROVENANCE_REASON_GATE_WAITED, PROVENANCE_REASON_NOTHING_CREDITED, PROVENANCE_REASON_NO_HWRNG,
            PROVENANCE_REASON_NO_CPU_RNG, END }, false },
        { "seed", t_seed, PROVENANCE_SEED,
          "most likely ready by the saved seed entropy-seed credited (512 bits) 0.812s after boot: "
          "crng init done when entropy-seed credited, the gate found the pool ready, saved seed credited", NULL,
          { PROVENANCE_REASON_CREDIT_AT_INIT, PROVENANCE_REASON_GATE_NO_WAIT, PROVENANCE_REASON_SEED_CREDITED, END },
          false },
        { "credential", t_credential, PROVENANCE_CREDENTIAL, NULL,
          "most likely ready by the seed credential entropy-seed credited (256 bits) 0.812s after boot",
          { PROVENANCE_REASON_CREDIT_AT_INIT, PROVENANCE_REASON_GATE_NO_WAIT,
            PROVENANCE_REASON_CREDENTIAL_CREDITED, PROVENANCE_REASON_SEED_MIXED, END }, false },
        { "credential and seed", t_both, PROVENANCE_CREDENTIAL, NULL, "(384 bits)",
          { PROVENANCE_REASON_CREDIT_AT_INIT, PROVENANCE_REASON_GATE_NO_WAIT,
            PROVENANCE_REASON_CREDENTIAL_CREDITED, PROVENANCE_REASON_SEED_CREDITED, END }, false },
        { "seed, no times", t_seed_no_times, PROVENANCE_SEED,
          "most likely ready by the saved seed entropy-seed credited (512 bits): the gate found the pool ready, "
          "saved seed credited", NULL, { PROVENANCE_REASON_GATE_NO_WAIT, PROVENANCE_REASON_SEED_CREDITED, END }, false },
        { "seed after the pool was ready", t_seed_late, PROVENANCE_JITTER, NULL,
          "most likely ready by the kernel's own entropy collection (interrupts, jitter) 0.300s after boot: "
          "crng init done before entropy-seed credited",
          { PROVENANCE_REASON_CREDIT_TOO_LATE, END }, false },
        { "seed within the clocks' slack", t_seed_slack, PROVENANCE_SEED, NULL, NULL,
          { PROVENANCE_REASON_CREDIT_AT_INIT, END }, false },
        { "virtio-rng", t_virtio, PROVENANCE_HWRNG,
          "most likely ready by the hardware RNG virtio_rng.0 (quality 1000) 1.350s after boot: the gate had to wait, "
          "a hardware RNG the kernel credits, nothing credited, CPU RNG not trusted", NULL,
          { PROVENANCE_REASON_GATE_WAITED, PROVENANCE_REASON_HWRNG, PROVENANCE_REASON_NOTHING_CREDITED,
            PROVENANCE_REASON_CPU_NOT_TRUSTED, END }, false },
        { "virtio-rng, quality unknown", t_virtio_quality_unknown, PROVENANCE_HWRNG,
          NULL, "most likely ready by the hardware RNG virtio_rng.0 1.350s after boot",
          { PROVENANCE_REASON_GATE_WAITED, PROVENANCE_REASON_HWRNG_QUALITY_UNKNOWN, END }, false },
        { "hwrng of quality 0", t_hwrng_zero, PROVENANCE_JITTER, NULL, "a hardware RNG of quality 0 (not credited)",
          { PROVENANCE_REASON_GATE_WAITED, PROVENANCE_REASON_NOTHING_CREDITED,
            PROVENANCE_REASON_HWRNG_NOT_CREDITED, END }, false },
        { "hwrng, default quality 0", t_hwrng_default_quality, PROVENANCE_JITTER, NULL, NULL,
          { PROVENANCE_REASON_GATE_WAITED, PROVENANCE_REASON_NOTHING_CREDITED,
            PROVENANCE_REASON_HWRNG_NOT_CREDITED, END }, false },
        { "trusted CPU", t_cpu, PROVENANCE_CPU,
          "most likely ready by the CPU's RNG instructions (trusted by the kernel) 0.128s after boot: "
          "ready before user space started, CPU RNG trusted", NULL,
          { PROVENANCE_REASON_BEFORE_USERSPACE, PROVENANCE_REASON_CPU_TRUSTED, END }, false },
        { "trusted CPU, but the gate waited", t_cpu_but_waited, PROVENANCE_JITTER, NULL, NULL,
          { PROVENANCE_REASON_GATE_WAITED, END }, false },
        { "CPU trust unknown", t_cpu_trust_unknown, PROVENANCE_UNKNOWN, NULL,
          "ready 0.128s after boot, by what the facts cannot tell: ready before user space started, "
          "nothing credited, no hardware RNG, whether the CPU RNG is trusted is unknown",
          { PROVENANCE_REASON_BEFORE_USERSPACE, PROVENANCE_REASON_NOTHING_CREDITED, PROVENANCE_REASON_NO_HWRNG,
            PROVENANCE_REASON_CPU_TRUST_UNKNOWN, END }, false },
        { "boot loader seed", t_bootloader, PROVENANCE_BOOTLOADER,
          NULL, "most likely ready by the boot loader's seed (trusted by the kernel) 0.050s after boot",
          { PROVENANCE_REASON_BEFORE_USERSPACE, PROVENANCE_REASON_BOOTLOADER_TRUSTED, END }, false },
        { "boot loader seed not trusted", t_bootloader_untrusted, PROVENANCE_JITTER, NULL,
          "boot loader seed not trusted", { PROVENANCE_REASON_GATE_WAITED, END }, false },
        { "another daemon", t_daemon, PROVENANCE_UNKNOWN, NULL, "another entropy daemon runs (haveged)",
          { PROVENANCE_REASON_NOTHING_CREDITED, END }, false },
        { "not ready", t_not_ready, PROVENANCE_NONE,
          NULL, "not ready: the kernel's pool is not initialized yet; nothing credited, no hardware RNG",
          { PROVENANCE_REASON_NOT_READY, PROVENANCE_REASON_NOTHING_CREDITED, END }, true },
        { "nothing known", t_nothing_known, PROVENANCE_UNKNOWN,
          "unknown whether the pool is ready, and by what: nothing credited (entropy-seed recorded no load), "
          "no hardware RNG", NULL,
          { PROVENANCE_REASON_NO_LOAD, END }, false },
        { "no load recorded", t_no_load, PROVENANCE_JITTER, NULL,
          "nothing credited (entropy-seed recorded no load)", { PROVENANCE_REASON_GATE_WAITED,
            PROVENANCE_REASON_NO_LOAD, END }, false },
        { "no gate record", t_no_gate, PROVENANCE_JITTER,
          "most likely ready by the kernel's own entropy collection (interrupts, jitter) 3.410s after boot: "
          "nothing credited, no hardware RNG, CPU RNG not trusted", NULL, { PROVENANCE_REASON_NOTHING_CREDITED, END },
          false },
        { "every remedy there", t_all_remedies, PROVENANCE_HWRNG, NULL, NULL,
          { PROVENANCE_REASON_CREDIT_TOO_LATE, END }, false },
};

static void test_table(void **state) {
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const Case *c = cases + i;
                ProvenanceFacts f = cold();
                Provenance p;

                c->tweak(&f);
                provenance_decide(&f, &p);
                print_message("%s: %s [%s]\n", c->name, p.line, p.advice);
                assert_int_equal(p.verdict, c->verdict);
                if (c->line)
                        assert_string_equal(p.line, c->line);
                if (c->contains)
                        assert_non_null(strstr(p.line, c->contains));
                for (size_t k = 0; k < ELEMENTSOF(c->reasons) && c->reasons[k] != END; k++) {
                        assert_true(k < p.n_reasons);
                        assert_int_equal(p.reasons[k], c->reasons[k]);
                }
                assert_int_equal(p.advice[0] != 0, c->advice);
                /* Honest wording: an inference says so, or names the facts. */
                assert_true(startswith(p.line, "most likely ready by ") || startswith(p.line, "ready") ||
                            startswith(p.line, "not ready") || startswith(p.line, "unknown"));
                for (unsigned k = 0; k < p.n_reasons; k++) {
                        assert_non_null(provenance_reason_to_string(p.reasons[k]));
                        assert_non_null(provenance_reason_to_text(p.reasons[k]));
                }
        }
}

static void test_advice(void **state) {
        ProvenanceFacts f = cold();
        Provenance p;

        t_cold_long(&f);
        provenance_decide(&f, &p);
        assert_string_equal(p.advice, "to shorten the wait: a seed credential from the hypervisor (entropyctl credential), "
                            "a hardware RNG such as virtio-rng, a saved seed (entropy-seed saves one at shutdown, "
                            "credits it at the next boot)");
        /* What is there already is not suggested. */
        snprintf(f.hwrng_current, sizeof f.hwrng_current, "tpm-rng-0");
        f.hwrng_quality = 0;
        f.credential = CREDENTIAL_MIXED;
        provenance_decide(&f, &p);
        assert_non_null(strstr(p.advice, "virtio-rng"));
        f.hwrng_quality = 512;
        provenance_decide(&f, &p);
        assert_null(strstr(p.advice, "virtio-rng"));
        assert_non_null(strstr(p.advice, "seed credential"));
}

/* A hardware RNG's name is the kernel's text: kept as bytes, cut to fit,
 * escaped by whoever prints it; the line never overflows. */
static void test_long_names(void **state) {
        ProvenanceFacts f = cold();
        Provenance p;

        memset(f.hwrng_current, 'x', sizeof f.hwrng_current - 1);
        f.hwrng_current[sizeof f.hwrng_current - 1] = 0;
        f.hwrng_quality = 1024;
        memset(f.other_daemon, 'y', sizeof f.other_daemon - 1);
        f.other_daemon[sizeof f.other_daemon - 1] = 0;
        provenance_decide(&f, &p);
        assert_int_equal(p.verdict, PROVENANCE_HWRNG);
        assert_true(strlen(p.line) < sizeof p.line);
}

static void test_strings(void **state) {
        for (int v = 0; v < _PROVENANCE_VERDICT_MAX; v++) {
                assert_non_null(provenance_verdict_to_string(v));
                assert_int_equal(provenance_verdict_from_string(provenance_verdict_to_string(v)), v);
        }
        assert_string_equal(provenance_verdict_to_string(PROVENANCE_JITTER), "jitter");
        assert_string_equal(provenance_verdict_to_string(PROVENANCE_SEED), "seed");
        assert_string_equal(provenance_verdict_to_string(PROVENANCE_CREDENTIAL), "credential");
        assert_string_equal(provenance_verdict_to_string(PROVENANCE_HWRNG), "hwrng");
        assert_int_equal(provenance_verdict_from_string("rdrand"), _PROVENANCE_VERDICT_INVALID);
        for (int r = 0; r < _PROVENANCE_REASON_MAX; r++) {
                assert_non_null(provenance_reason_to_string(r));
                assert_non_null(provenance_reason_to_text(r));
        }
        assert_null(provenance_reason_to_string(_PROVENANCE_REASON_MAX));
        assert_null(trust_origin_to_string(TRUST_ORIGIN_UNKNOWN));
        assert_string_equal(trust_origin_to_string(TRUST_ORIGIN_COMMAND_LINE), "command-line");
}

static void test_kernel_bool(void **state) {
        static const struct { const char *s; int v; } t[] = {
                { "1", 1 }, { "y", 1 }, { "Y", 1 }, { "yes", 1 }, { "true", 1 }, { "on", 1 }, { "ON", 1 },
                { "0", 0 }, { "n", 0 }, { "no", 0 }, { "false", 0 }, { "off", 0 }, { "Off", 0 },
                { "", -EINVAL }, { "o", -EINVAL }, { "2", -EINVAL }, { "maybe", -EINVAL }, { "\"on\"", -EINVAL },
        };
        for (size_t i = 0; i < ELEMENTSOF(t); i++)
                assert_int_equal(kernel_bool_parse(t[i].s), t[i].v);
        assert_int_equal(kernel_bool_parse(NULL), -EINVAL);
}

static void test_kconfig(void **state) {
        const char *c = "#\n# Automatically generated file; DO NOT EDIT.\n"
                "CONFIG_RANDOM_TRUST_CPU_EXTRA=n\n"
                "CONFIG_RANDOM_TRUST_CPU=y\n"
                "# CONFIG_RANDOM_TRUST_BOOTLOADER is not set\n"
                "CONFIG_HW_RANDOM=m\n"
                "# CONFIG_X is not set really\n"
                "CONFIG_LAST=y";
        assert_int_equal(kconfig_bool(c, "CONFIG_RANDOM_TRUST_CPU"), 1);
        assert_int_equal(kconfig_bool(c, "CONFIG_RANDOM_TRUST_BOOTLOADER"), 0);
        assert_int_equal(kconfig_bool(c, "CONFIG_HW_RANDOM"), 0);
        assert_int_equal(kconfig_bool(c, "CONFIG_RANDOM"), -ENOENT);
        assert_int_equal(kconfig_bool(c, "CONFIG_X"), -ENOENT);
        assert_int_equal(kconfig_bool(c, "CONFIG_LAST"), 1);
        assert_int_equal(kconfig_bool("", "CONFIG_RANDOM_TRUST_CPU"), -ENOENT);
        assert_int_equal(kconfig_bool("CONFIG_RANDOM_TRUST_CPU=yy\n", "CONFIG_RANDOM_TRUST_CPU"), 0);
}

static void test_cpuinfo(void **state) {
        const char *x86 = "processor\t: 0\nvendor_id\t: GenuineIntel\n"
                "flags\t\t: fpu vme de pse rdrand hypervisor lahf_lm\n"
                "bugs\t\t: spectre_v1\n\nprocessor\t: 1\nflags\t\t: fpu rdseed\n";
        assert_int_equal(cpuinfo_has_flag(x86, "rdrand"), 1);
        assert_int_equal(cpuinfo_has_flag(x86, "rdseed"), 0);   /* the first CPU's line */
        assert_int_equal(cpuinfo_has_flag(x86, "rdran"), 0);
        assert_int_equal(cpuinfo_has_flag(x86, "lahf_lm"), 1);
        assert_int_equal(cpuinfo_has_flag(x86, "fpu"), 1);
        assert_int_equal(cpuinfo_has_flag("processor\t: 0\nFeatures\t: fp asimd rng\n", "rdrand"), -ENOENT);
        assert_int_equal(cpuinfo_has_flag("flagsx: rdrand\n", "rdrand"), -ENOENT);
        assert_int_equal(cpuinfo_has_flag("flags: rdrand", "rdrand"), 1);
        assert_int_equal(cpuinfo_has_flag("", "rdrand"), -ENOENT);
}

static void test_hwrng_list(void **state) {
        static const struct {
                const char *in, *out;
        } t[] = {
                { "virtio_rng.0 none", "virtio_rng.0" },
                { "none", "" },
                { "none tpm-rng-0  virtio_rng.0 ", "tpm-rng-0 virtio_rng.0" },
                { "", "" },
                { "nonesuch none", "nonesuch" },
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                char buf[64];

                snprintf(buf, sizeof buf, "%s", t[i].in);
                hwrng_list_drop_none(buf);
                assert_string_equal(buf, t[i].out);
        }
}

static void test_efi(void **state) {
        bool rng;

        assert_true(efi_tables_line("efi: ACPI=0x7fb7e000 ACPI 2.0=0x7fb7e014 SMBIOS=0x7f9a6000 RNG=0x7f96c018 "
                                    "MEMATTR=0x7e4a3018 ", &rng));
        assert_true(rng);
        assert_true(efi_tables_line("efi: SMBIOS=0x7f9a6000 ACPI=0x7fb7e000 ", &rng));
        assert_false(rng);
        assert_false(efi_tables_line("efi: EFI v2.7 by EDK II", &rng));
        assert_false(rng);
        assert_false(efi_tables_line("efi: RNG=", &rng));
        assert_false(efi_tables_line("something: RNG=0x1", &rng));
        assert_true(efi_tables_line("efi: XRNG=0x1 ACPI=0x2", &rng));
        assert_false(rng);
        assert_false(efi_tables_line("efi: ", NULL));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_table),
                cmocka_unit_test(test_advice),
                cmocka_unit_test(test_long_names),
                cmocka_unit_test(test_strings),
                cmocka_unit_test(test_kernel_bool),
                cmocka_unit_test(test_kconfig),
                cmocka_unit_test(test_cpuinfo),
                cmocka_unit_test(test_hwrng_list),
                cmocka_unit_test(test_efi),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
