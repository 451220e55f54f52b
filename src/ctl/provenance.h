/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot-journal.h"
#include "entropy-samples.h"
#include "json.h"
#include "runstate.h"
#include "time-util.h"

/* Provenance: how this boot's pool most likely became ready. The kernel
 * logs when the CRNG was initialized ("crng init done"), never by what, so
 * this is an inference from what the system shows after the fact: what
 * entropy-seed credited and when, what the kernel was told to trust, the
 * CPU's RNG instructions, a boot loader's seed, a hardware RNG, how long
 * the gate waited. provenance_decide() is pure (facts in, verdict and
 * reasons out); provenance_facts_gather() reads the facts. */

typedef enum ProvenanceVerdict {
        PROVENANCE_UNKNOWN,          /* ready, but the facts do not tell by what */
        PROVENANCE_SEED,             /* the saved seed entropy-seed credited */
        PROVENANCE_CREDENTIAL,       /* the seed credential entropy-seed credited */
        PROVENANCE_HWRNG,            /* a hardware RNG the kernel credits (virtio-rng, TPM, ...) */
        PROVENANCE_CPU,              /* RDSEED/RDRAND, trusted by the kernel */
        PROVENANCE_BOOTLOADER,       /* a boot loader's seed (EFI RNG table), trusted by the kernel */
        PROVENANCE_JITTER,           /* nothing else: the kernel's own collection, its jitter generator */
        PROVENANCE_NONE,             /* not ready (yet) */
        _PROVENANCE_VERDICT_MAX,
        _PROVENANCE_VERDICT_INVALID = -EINVAL,
} ProvenanceVerdict;

/* The stable machine names: "unknown", "seed", "credential", "hwrng",
 * "cpu", "bootloader", "jitter", "none". */
const char *provenance_verdict_to_string(ProvenanceVerdict v);
ProvenanceVerdict provenance_verdict_from_string(const char *s);

/* Where a trust setting came from. */
typedef enum TrustOrigin {
        TRUST_ORIGIN_UNKNOWN,        /* neither the command line nor a readable kernel config says */
        TRUST_ORIGIN_COMMAND_LINE,
        TRUST_ORIGIN_KERNEL_CONFIG,  /* no parameter: the kernel's built-in default */
        _TRUST_ORIGIN_MAX,
} TrustOrigin;

const char *trust_origin_to_string(TrustOrigin o);  /* NULL for unknown */

#define PROVENANCE_NAME_MAX 64

typedef struct ProvenanceFacts {
        int crng_ready;                  /* now: 1, 0; -1 unknown */
        bool crng_init_found;
        usec_t crng_init_usec;           /* "crng init done", since the kernel started */
        bool userspace_found;
        usec_t userspace_usec;           /* the kernel ran the first init */

        /* entropy-seed's record of this boot */
        bool load_recorded;
        bool seed_credited;
        uint64_t seed_bits;              /* RUNSTATE_UNKNOWN */
        bool seed_mixed;                 /* loaded, not credited */
        CredentialResult credential;
        uint64_t credential_bits;        /* RUNSTATE_UNKNOWN */
        uint64_t load_usec;              /* CLOCK_BOOTTIME just before crediting; RUNSTATE_UNKNOWN */

        /* what the kernel was told to trust: 1, 0, -1 unknown */
        int trust_cpu, trust_bootloader;
        TrustOrigin trust_cpu_origin, trust_bootloader_origin;
        int cpu_rdrand, cpu_rdseed;      /* -1: no x86 flags line */
        int bootloader_seed;             /* RNG= in the kernel's efi: line; 0: a tables line without; -1 unknown */

        /* hw_random */
        char hwrng_current[PROVENANCE_NAME_MAX];    /* "": none */
        char hwrng_available[4 * PROVENANCE_NAME_MAX];
        int hwrng_quality;               /* rng_quality; -1 unknown */
        int default_quality;             /* rng_core.default_quality; -1 unknown */

        int vmgenid;                     /* a VM generation device: 1, 0, -1 unknown */
        char vmgenid_device[PROVENANCE_NAME_MAX];
        char other_daemon[32];           /* a running program that may credit the pool; "" none */

        /* the gate's record */
        bool gate_ran;
        int gate_ready_at_start;         /* -1 unknown */
        uint64_t gate_waited_usec;       /* RUNSTATE_UNKNOWN */
        EntropySamples gate_entropy_avail; /* sampled while it waited; none: n == 0 */
} ProvenanceFacts;

/* Facts none of which is known, with no load and no gate recorded. */
void provenance_facts_init(ProvenanceFacts *f);

/* What the verdict rests on; each is one short phrase. */
typedef enum ProvenanceReason {
        PROVENANCE_REASON_CREDIT_AT_INIT,        /* crng init done when entropy-seed credited */
        PROVENANCE_REASON_CREDIT_TOO_LATE,       /* crng init done before entropy-seed credited */
        PROVENANCE_REASON_GATE_NO_WAIT,          /* the gate found the pool ready */
        PROVENANCE_REASON_SEED_CREDITED,
        PROVENANCE_REASON_CREDENTIAL_CREDITED,
        PROVENANCE_REASON_NOTHING_CREDITED,
        PROVENANCE_REASON_NO_LOAD,               /* entropy-seed recorded nothing this boot */
        PROVENANCE_REASON_SEED_MIXED,
        PROVENANCE_REASON_CREDENTIAL_MIXED,
        PROVENANCE_REASON_HWRNG,                 /* a hardware RNG the kernel credits */
        PROVENANCE_REASON_HWRNG_QUALITY_UNKNOWN,
        PROVENANCE_REASON_HWRNG_NOT_CREDITED,    /* quality 0 */
        PROVENANCE_REASON_NO_HWRNG,
        PROVENANCE_REASON_CPU_TRUSTED,
        PROVENANCE_REASON_CPU_NOT_TRUSTED,
        PROVENANCE_REASON_CPU_TRUST_UNKNOWN,
        PROVENANCE_REASON_NO_CPU_RNG,
        PROVENANCE_REASON_BOOTLOADER_TRUSTED,
        PROVENANCE_REASON_BOOTLOADER_NOT_TRUSTED,
        PROVENANCE_REASON_BOOTLOADER_TRUST_UNKNOWN,
        PROVENANCE_REASON_BEFORE_USERSPACE,      /* crng init done before user space started */
        PROVENANCE_REASON_GATE_WAITED,           /* the gate had to wait: nothing early did it */
        PROVENANCE_REASON_OTHER_DAEMON,          /* another program may have credited */
        PROVENANCE_REASON_NOT_READY,
        _PROVENANCE_REASON_MAX,
} ProvenanceReason;

/* "nothing-credited", "cpu-not-trusted", ...: stable, for --json. */
const char *provenance_reason_to_string(ProvenanceReason r);
/* "nothing credited", "CPU RNG not trusted", ...: for people. */
const char *provenance_reason_to_text(ProvenanceReason r);

#define PROVENANCE_LINE_MAX 512

typedef struct Provenance {
        ProvenanceVerdict verdict;
        ProvenanceReason reasons[_PROVENANCE_REASON_MAX];  /* in the order they are told */
        unsigned n_reasons;
        /* The one line for people, e.g. "most likely ready by the kernel's
         * jitter generator after 0.960s of waiting: nothing credited, no
         * hardware RNG, CPU RNG not trusted". Holds the hardware RNG's name
         * as the kernel gave it: escape it for a terminal. */
        char line[PROVENANCE_LINE_MAX];
        /* When the wait was long: what would shorten it; "" otherwise. */
        char advice[PROVENANCE_LINE_MAX];
} Provenance;

/* Above this, a wait is worth shortening. */
#define PROVENANCE_LONG_WAIT_USEC (1 * USEC_PER_SEC)

/* Pure: the verdict on @f. */
void provenance_decide(const ProvenanceFacts *f, Provenance *ret);

/* Pure: a kernel boolean parameter's value as the kernel's kstrtobool()
 * reads it: 1, 0, or -EINVAL (the kernel then keeps its default). */
int kernel_bool_parse(const char *s);

/* Pure: "CONFIG_X=y" in a kernel's .config text: 1; "=n", "=m" or "# CONFIG_X
 * is not set": 0; not there: -ENOENT. */
int kconfig_bool(const char *text, const char *option);

/* Pure: @flag on the first "flags" line of /proc/cpuinfo's text: 1 or 0;
 * -ENOENT without such a line (not x86). */
int cpuinfo_has_flag(const char *text, const char *flag);

/* Pure: a hw_random list ("rng_available", "rng_current") without the
 * kernel's "none" pseudo-choice and without empty words, in place. */
void hwrng_list_drop_none(char *list);

/* Pure: is an efi: line of the kernel ("efi: ACPI=0x... RNG=0x... ") one
 * that lists the configuration tables (1, 0 not), and does it list the
 * boot loader's random seed (*ret_rng)? */
bool efi_tables_line(const char *message, bool *ret_rng);

/* Read the facts: @crng_ready as probed, @j this boot's journal, @seed and
 * @gate this boot's records (NULL: none). Everything else is read inside
 * the root (root.h): /proc/cmdline, /proc/cpuinfo, /boot/config-RELEASE,
 * /sys/class/misc/hw_random, /sys/module/rng_core, /sys/bus/acpi/devices,
 * /dev/vmclock0, /proc for other entropy daemons. What cannot be read is
 * unknown. 0, or -ENOMEM. */
int provenance_facts_gather(ProvenanceFacts *ret, int crng_ready, const BootJournal *j,
                            const SeedRecord *seed, const GateRecord *gate);

/* Pure: the gate's samples of entropy_avail for people, e.g.
 * "12 bits when the wait began, 256 at its end 1.204s later (3 samples)";
 * "" when there are none. */
void provenance_entropy_text(const EntropySamples *s, char *buf, size_t size);

/* The samples as a JSON array of {"msec", "bits"} under @key, as status
 * and timeline write them. */
void provenance_entropy_json(JsonWriter *j, const char *key, const EntropySamples *s);
