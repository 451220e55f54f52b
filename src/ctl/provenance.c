// SPDX-License-Identifier: LGPL-2.1-or-later
/* The provenance verdict: a pure function of the facts provenance-gather.c
 * reads. The kernel says when its CRNG became ready, never by what; what
 * follows is the reasoning from the facts it does show:
 *
 *   - entropy-seed records the CLOCK_BOOTTIME just before it credits (the
 *     credential first, then the seed). A credit of 256 bits or more
 *     initializes the pool at once, so "crng init done" at or after that
 *     time, and not before user space started, points at our credit.
 *   - A trusted CPU RNG and a trusted boot loader seed initialize the pool
 *     before user space; a gate that had to wait rules both out.
 *   - A hardware RNG of nonzero quality is credited by the kernel's hwrng
 *     thread as soon as its driver loads.
 *   - Otherwise only the kernel's own collection is left: its jitter
 *     generator, which runs while someone blocks in getrandom() (the gate),
 *     and interrupt timing. Another entropy daemon crediting the pool
 *     (rngd, haveged, ...) makes that unknowable.
 * Every line says "most likely" or names the facts it rests on. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "macro.h"
#include "provenance.h"
#include "string-table.h"

/* The kernel's printk clock and CLOCK_BOOTTIME are read at different
 * moments and from different clocks: a "crng init done" this much before
 * our record's time still counts as caused by the credit that followed it. */
#define CLOCK_SLACK_USEC (50 * USEC_PER_MSEC)

static const char *const provenance_verdict_table[_PROVENANCE_VERDICT_MAX] = {
        [PROVENANCE_UNKNOWN] = "unknown",
        [PROVENANCE_SEED] = "seed",
        [PROVENANCE_CREDENTIAL] = "credential",
        [PROVENANCE_HWRNG] = "hwrng",
        [PROVENANCE_CPU] = "cpu",
        [PROVENANCE_BOOTLOADER] = "bootloader",
        [PROVENANCE_JITTER] = "jitter",
        [PROVENANCE_NONE] = "none",
};

DEFINE_STRING_TABLE(provenance_verdict, ProvenanceVerdict)

static const char *const trust_origin_table[_TRUST_ORIGIN_MAX] = {
        [TRUST_ORIGIN_UNKNOWN] = NULL,
        [TRUST_ORIGIN_COMMAND_LINE] = "command-line",
        [TRUST_ORIGIN_KERNEL_CONFIG] = "kernel-config",
};

DEFINE_STRING_TABLE_TO_STRING(trust_origin, TrustOrigin)

static const struct {
        const char *name, *text;
} reason_table[_PROVENANCE_REASON_MAX] = {
        [PROVENANCE_REASON_CREDIT_AT_INIT] = { "credit-at-init", "crng init done when entropy-seed credited" },
        [PROVENANCE_REASON_CREDIT_TOO_LATE] = { "credit-after-init", "crng init done before entropy-seed credited" },
        [PROVENANCE_REASON_GATE_NO_WAIT] = { "gate-did-not-wait", "the gate found the pool ready" },
        [PROVENANCE_REASON_SEED_CREDITED] = { "seed-credited", "saved seed credited" },
        [PROVENANCE_REASON_CREDENTIAL_CREDITED] = { "credential-credited", "seed credential credited" },
        [PROVENANCE_REASON_NOTHING_CREDITED] = { "nothing-credited", "nothing credited" },
        [PROVENANCE_REASON_NO_LOAD] = { "no-load", "nothing credited (entropy-seed recorded no load)" },
        [PROVENANCE_REASON_SEED_MIXED] = { "seed-mixed", "saved seed only mixed in" },
        [PROVENANCE_REASON_CREDENTIAL_MIXED] = { "credential-mixed", "seed credential only mixed in" },
        [PROVENANCE_REASON_HWRNG] = { "hwrng-credited", "a hardware RNG the kernel credits" },
        [PROVENANCE_REASON_HWRNG_QUALITY_UNKNOWN] = { "hwrng-quality-unknown",
                                                      "a hardware RNG of unknown quality" },
        [PROVENANCE_REASON_HWRNG_NOT_CREDITED] = { "hwrng-quality-zero",
                                                   "a hardware RNG of quality 0 (not credited)" },
        [PROVENANCE_REASON_NO_HWRNG] = { "no-hwrng", "no hardware RNG" },
        [PROVENANCE_REASON_CPU_TRUSTED] = { "cpu-trusted", "CPU RNG trusted" },
        [PROVENANCE_REASON_CPU_NOT_TRUSTED] = { "cpu-not-trusted", "CPU RNG not trusted" },
        [PROVENANCE_REASON_CPU_TRUST_UNKNOWN] = { "cpu-trust-unknown", "whether the CPU RNG is trusted is unknown" },
        [PROVENANCE_REASON_NO_CPU_RNG] = { "no-cpu-rng", "no CPU RNG" },
        [PROVENANCE_REASON_BOOTLOADER_TRUSTED] = { "bootloader-seed-trusted", "boot loader seed trusted" },
        [PROVENANCE_REASON_BOOTLOADER_NOT_TRUSTED] = { "bootloader-seed-not-trusted",
                                                       "boot loader seed not trusted" },
        [PROVENANCE_REASON_BOOTLOADER_TRUST_UNKNOWN] = { "bootloader-trust-unknown",
                                                         "whether the boot loader seed is trusted is unknown" },
        [PROVENANCE_REASON_BEFORE_USERSPACE] = { "before-userspace", "ready before user space started" },
        [PROVENANCE_REASON_GATE_WAITED] = { "gate-waited", "the gate had to wait" },
        [PROVENANCE_REASON_OTHER_DAEMON] = { "other-daemon", "another entropy daemon runs" },
        [PROVENANCE_REASON_NOT_READY] = { "not-ready", "getrandom() would block" },
};

const char *provenance_reason_to_string(ProvenanceReason r) {
        return r >= 0 && r < _PROVENANCE_REASON_MAX ? reason_table[r].name : NULL;
}

const char *provenance_reason_to_text(ProvenanceReason r) {
        return r >= 0 && r < _PROVENANCE_REASON_MAX ? reason_table[r].text : NULL;
}

void provenance_facts_init(ProvenanceFacts *f) {
        *f = (ProvenanceFacts) {
                .crng_ready = -1,
                .seed_bits = RUNSTATE_UNKNOWN,
                .credential = CREDENTIAL_NONE,
                .credential_bits = RUNSTATE_UNKNOWN,
                .load_usec = RUNSTATE_UNKNOWN,
                .trust_cpu = -1,
                .trust_bootloader = -1,
                .cpu_rdrand = -1,
                .cpu_rdseed = -1,
                .bootloader_seed = -1,
                .hwrng_quality = -1,
                .default_quality = -1,
                .vmgenid = -1,
                .gate_ready_at_start = -1,
                .gate_waited_usec = RUNSTATE_UNKNOWN,
        };
}

/* ---- Small parsers of what the kernel shows ---- */

int kernel_bool_parse(const char *s) {
        /* lib/kstrtox.c: the first character decides, "on"/"off" the second. */
        if (!s)
                return -EINVAL;
        switch (s[0]) {
        case 'y': case 'Y': case 't': case 'T': case '1':
                return 1;
        case 'n': case 'N': case 'f': case 'F': case '0':
                return 0;
        case 'o': case 'O':
                if (s[1] == 'n' || s[1] == 'N')
                        return 1;
                if (s[1] == 'f' || s[1] == 'F')
                        return 0;
                return -EINVAL;
        default:
                return -EINVAL;
        }
}

/* The line of @text that starts at @p, as [p, end). */
static const char *line_end(const char *p) {
        const char *e = strchr(p, '\n');

        return e ?: p + strlen(p);
}

int kconfig_bool(const char *text, const char *option) {
        size_t l = strlen(option);

        for (const char *p = text; *p; ) {
                const char *e = line_end(p), *v;

                if ((size_t) (e - p) > l && memcmp(p, option, l) == 0 && p[l] == '=') {
                        v = p + l + 1;
                        return e - v == 1 && *v == 'y';
                }
                if ((v = startswith(p, "# ")) && (size_t) (e - v) > l && memcmp(v, option, l) == 0 &&
                    (size_t) (e - v - l) == strlen(" is not set") && memcmp(v + l, " is not set", e - v - l) == 0)
                        return 0;
                p = *e ? e + 1 : e;
        }
        return -ENOENT;
}

int cpuinfo_has_flag(const char *text, const char *flag) {
        size_t l = strlen(flag);

        for (const char *p = text; *p; ) {
                const char *e = line_end(p), *q = p;

                /* "flags\t\t: fpu vme de ..." */
                if ((size_t) (e - p) > 5 && memcmp(p, "flags", 5) == 0) {
                        for (q = p + 5; q < e && (*q == ' ' || *q == '\t'); q++)
                                ;
                        if (q < e && *q == ':') {
                                for (q++; q < e; ) {
                                        const char *w;

                                        while (q < e && *q == ' ')
                                                q++;
                                        for (w = q; q < e && *q != ' '; q++)
                                                ;
                                        if ((size_t) (q - w) == l && memcmp(w, flag, l) == 0)
                                                return 1;
                                }
                                return 0;
                        }
                }
                p = *e ? e + 1 : e;
        }
        return -ENOENT;
}

void hwrng_list_drop_none(char *list) {
        char *p = list, *o = list;

        for (char *w = strsep(&p, " "); w; w = strsep(&p, " ")) {
                size_t l = strlen(w);

                if (!*w || streq(w, "none"))
                        continue;
                if (o != list)
                        *o++ = ' ';
                memmove(o, w, l);
                o += l;
        }
        *o = 0;
}

bool efi_tables_line(const char *message, bool *ret_rng) {
        const char *p = startswith(message, "efi: ");
        bool tables = false, rng = false;

        /* "efi: ACPI=0x7fb7e000 ACPI 2.0=0x7fb7e014 SMBIOS=0x7f9a6000 RNG=0x7f96c018 ..."; the
         * other efi: lines ("efi: EFI v2.7 by EDK II") have no NAME=0xADDRESS. */
        while (p && *p) {
                const char *w = p, *eq;

                while (*p && *p != ' ')
                        p++;
                eq = memchr(w, '=', p - w);
                if (eq && eq + 2 < p && eq[1] == '0' && eq[2] == 'x') {
                        tables = true;
                        if (eq - w == 3 && memcmp(w, "RNG", 3) == 0)
                                rng = true;
                }
                while (*p == ' ')
                        p++;
        }
        if (ret_rng)
                *ret_rng = tables && rng;
        return tables;
}

/* ---- The verdict ---- */

static void reason_add(Provenance *p, ProvenanceReason r) {
        for (unsigned i = 0; i < p->n_reasons; i++)
                if (p->reasons[i] == r)
                        return;
        if (p->n_reasons < ELEMENTSOF(p->reasons))
                p->reasons[p->n_reasons++] = r;
}

static void append(char *buf, size_t size, const char *fmt, ...) _printf_(3, 4);
static void append(char *buf, size_t size, const char *fmt, ...) {
        size_t l = strnlen(buf, size);
        va_list ap;

        if (l + 1 >= size)
                return;
        va_start(ap, fmt);
        (void) vsnprintf(buf + l, size - l, fmt, ap);
        va_end(ap);
}

static bool cpu_rng(const ProvenanceFacts *f) {
        return f->cpu_rdrand > 0 || f->cpu_rdseed > 0;
}

static int hwrng_quality(const ProvenanceFacts *f) {
        if (!f->hwrng_current[0])
                return 0;
        /* rng_quality is the device's (the driver's, capped by default_quality). */
        return f->hwrng_quality >= 0 ? f->hwrng_quality : f->default_quality;
}

/* What was absent or only mixed, for every verdict that is not ours. */
static void reasons_absent(const ProvenanceFacts *f, Provenance *p, bool credited) {
        if (!credited)
                reason_add(p, f->load_recorded ? PROVENANCE_REASON_NOTHING_CREDITED : PROVENANCE_REASON_NO_LOAD);
        if (f->seed_mixed)
                reason_add(p, PROVENANCE_REASON_SEED_MIXED);
        if (f->credential == CREDENTIAL_MIXED)
                reason_add(p, PROVENANCE_REASON_CREDENTIAL_MIXED);
        if (!f->hwrng_current[0])
                reason_add(p, PROVENANCE_REASON_NO_HWRNG);
        else if (hwrng_quality(f) == 0)
                reason_add(p, PROVENANCE_REASON_HWRNG_NOT_CREDITED);
        if (f->cpu_rdrand == 0 && f->cpu_rdseed == 0)
                reason_add(p, PROVENANCE_REASON_NO_CPU_RNG);
        else if (f->trust_cpu == 0)
                reason_add(p, PROVENANCE_REASON_CPU_NOT_TRUSTED);
        else if (f->trust_cpu < 0 && cpu_rng(f))
                reason_add(p, PROVENANCE_REASON_CPU_TRUST_UNKNOWN);
        if (f->bootloader_seed > 0) {
                if (f->trust_bootloader == 0)
                        reason_add(p, PROVENANCE_REASON_BOOTLOADER_NOT_TRUSTED);
                else if (f->trust_bootloader < 0)
                        reason_add(p, PROVENANCE_REASON_BOOTLOADER_TRUST_UNKNOWN);
        }
        if (f->other_daemon[0])
                reason_add(p, PROVENANCE_REASON_OTHER_DAEMON);
}

static ProvenanceVerdict decide(const ProvenanceFacts *f, Provenance *p) {
        bool waited = f->gate_ran && f->gate_ready_at_start == 0;
        bool before_userspace = f->crng_init_found && f->userspace_found && f->crng_init_usec < f->userspace_usec;
        bool credited = f->seed_credited || f->credential == CREDENTIAL_CREDITED;
        bool early_possible;
        int q;

        if (f->crng_ready == 0) {
                reason_add(p, PROVENANCE_REASON_NOT_READY);
                reasons_absent(f, p, credited);
                return PROVENANCE_NONE;
        }
        if (f->crng_ready < 0 && !f->crng_init_found && !f->gate_ran) {
                reasons_absent(f, p, credited);
                return PROVENANCE_UNKNOWN;
        }

        if (credited) {
                bool too_late = before_userspace ||
                        (f->crng_init_found && f->load_usec != RUNSTATE_UNKNOWN &&
                         f->crng_init_usec + CLOCK_SLACK_USEC < f->load_usec);

                if (!too_late) {
                        if (f->crng_init_found && f->load_usec != RUNSTATE_UNKNOWN)
                                reason_add(p, PROVENANCE_REASON_CREDIT_AT_INIT);
                        if (f->gate_ran && f->gate_ready_at_start > 0)
                                reason_add(p, PROVENANCE_REASON_GATE_NO_WAIT);
                        /* The credential is credited first: it completes the pool. */
                        if (f->credential == CREDENTIAL_CREDITED)
                                reason_add(p, PROVENANCE_REASON_CREDENTIAL_CREDITED);
                        if (f->seed_credited)
                                reason_add(p, PROVENANCE_REASON_SEED_CREDITED);
                        if (f->seed_mixed)
                                reason_add(p, PROVENANCE_REASON_SEED_MIXED);
                        return f->credential == CREDENTIAL_CREDITED ? PROVENANCE_CREDENTIAL : PROVENANCE_SEED;
                }
                reason_add(p, PROVENANCE_REASON_CREDIT_TOO_LATE);
        }
        if (before_userspace)
                reason_add(p, PROVENANCE_REASON_BEFORE_USERSPACE);

        /* The CPU and a boot loader seed act before user space: not when the
         * gate had to wait, nor when the pool became ready later. */
        early_possible = !waited && (!f->crng_init_found || !f->userspace_found || before_userspace);
        if (early_possible && f->trust_bootloader > 0 && f->bootloader_seed > 0) {
                reason_add(p, PROVENANCE_REASON_BOOTLOADER_TRUSTED);
                if (f->trust_cpu > 0 && cpu_rng(f))
                        reason_add(p, PROVENANCE_REASON_CPU_TRUSTED);
                return PROVENANCE_BOOTLOADER;
        }
        if (early_possible && f->trust_cpu > 0 && cpu_rng(f)) {
                reason_add(p, PROVENANCE_REASON_CPU_TRUSTED);
                return PROVENANCE_CPU;
        }
        if (waited)
                reason_add(p, PROVENANCE_REASON_GATE_WAITED);

        q = hwrng_quality(f);
        if (q != 0) {
                reason_add(p, q > 0 ? PROVENANCE_REASON_HWRNG : PROVENANCE_REASON_HWRNG_QUALITY_UNKNOWN);
                reasons_absent(f, p, credited);
                return PROVENANCE_HWRNG;
        }

        reasons_absent(f, p, credited);
        if (f->other_daemon[0])
                return PROVENANCE_UNKNOWN;
        /* Something early that may have been trusted, and nothing that rules it out. */
        if (early_possible &&
            ((f->trust_cpu < 0 && cpu_rng(f)) || (f->trust_bootloader < 0 && f->bootloader_seed > 0)))
                return PROVENANCE_UNKNOWN;
        return PROVENANCE_JITTER;
}

static void when(char *buf, size_t size, const ProvenanceFacts *f) {
        if (f->crng_init_found)
                append(buf, size, " %s after boot", FORMAT_DURATION(f->crng_init_usec));
}

static uint64_t bits_or_zero(uint64_t b) {
        return b == RUNSTATE_UNKNOWN ? 0 : b;
}

void provenance_decide(const ProvenanceFacts *f, Provenance *ret) {
        Provenance p = {};
        bool waited = f->gate_ran && f->gate_ready_at_start == 0;
        const char *sep = ": ";

        p.verdict = decide(f, &p);
        switch (p.verdict) {
        case PROVENANCE_SEED:
                append(p.line, sizeof p.line, "most likely ready by the saved seed entropy-seed credited (%" PRIu64 " bits)",
                       bits_or_zero(f->seed_bits));
                when(p.line, sizeof p.line, f);
                break;
        case PROVENANCE_CREDENTIAL:
                append(p.line, sizeof p.line,
                       "most likely ready by the seed credential entropy-seed credited (%" PRIu64 " bits)",
                       bits_or_zero(f->credential_bits));
                when(p.line, sizeof p.line, f);
                break;
        case PROVENANCE_HWRNG:
                append(p.line, sizeof p.line, "most likely ready by the hardware RNG %s", f->hwrng_current);
                if (hwrng_quality(f) > 0)
                        append(p.line, sizeof p.line, " (quality %d)", hwrng_quality(f));
                when(p.line, sizeof p.line, f);
                break;
        case PROVENANCE_CPU:
                append(p.line, sizeof p.line, "most likely ready by the CPU's RNG instructions (trusted by the kernel)");
                when(p.line, sizeof p.line, f);
                break;
        case PROVENANCE_BOOTLOADER:
                append(p.line, sizeof p.line, "most likely ready by the boot loader's seed (trusted by the kernel)");
                when(p.line, sizeof p.line, f);
                break;
        case PROVENANCE_JITTER:
                if (waited && f->gate_waited_usec != RUNSTATE_UNKNOWN)
                        append(p.line, sizeof p.line, "most likely ready by the kernel's jitter generator after %s of waiting",
                               FORMAT_DURATION(f->gate_waited_usec));
                else {
                        append(p.line, sizeof p.line,
                               "most likely ready by the kernel's own entropy collection (interrupts, jitter)");
                        when(p.line, sizeof p.line, f);
                }
                break;
        case PROVENANCE_NONE:
                append(p.line, sizeof p.line, "not ready: the kernel's pool is not initialized yet");
                sep = "; ";
                break;
        default:
                if (f->crng_ready < 0 && !f->crng_init_found)
                        append(p.line, sizeof p.line, "unknown whether the pool is ready, and by what");
                else {
                        append(p.line, sizeof p.line, "ready");
                        when(p.line, sizeof p.line, f);
                        append(p.line, sizeof p.line, ", by what the facts cannot tell");
                }
                break;
        }
        for (unsigned i = 0; i < p.n_reasons; i++) {
                /* What the head of the line says already. */
                if (p.reasons[i] == PROVENANCE_REASON_NOT_READY ||
                    (p.reasons[i] == PROVENANCE_REASON_GATE_WAITED && p.verdict == PROVENANCE_JITTER))
                        continue;
                append(p.line, sizeof p.line, "%s%s", sep, provenance_reason_to_text(p.reasons[i]));
                if (p.reasons[i] == PROVENANCE_REASON_OTHER_DAEMON)
                        append(p.line, sizeof p.line, " (%s)", f->other_daemon);
                sep = ", ";
        }

        /* A long wait, or none over yet: what would have made it short. */
        if (p.verdict == PROVENANCE_NONE ||
            (waited && f->gate_waited_usec != RUNSTATE_UNKNOWN && f->gate_waited_usec > PROVENANCE_LONG_WAIT_USEC)) {
                sep = "";
                append(p.advice, sizeof p.advice, "to shorten the wait: ");
                if (f->credential != CREDENTIAL_CREDITED) {
                        append(p.advice, sizeof p.advice, "a seed credential from the hypervisor (entropyctl credential)");
                        sep = ", ";
                }
                if (hwrng_quality(f) == 0) {
                        append(p.advice, sizeof p.advice, "%sa hardware RNG such as virtio-rng", sep);
                        sep = ", ";
                }
                if (!f->seed_credited) {
                        append(p.advice, sizeof p.advice,
                               "%sa saved seed (entropy-seed saves one at shutdown, credits it at the next boot)", sep);
                        sep = ", ";
                }
                if (!*sep)
                        p.advice[0] = 0;   /* every remedy is there already */
        }
        *ret = p;
}

void provenance_entropy_text(const EntropySamples *s, char *buf, size_t size) {
        const EntropySample *first = s->s, *last = s->s + s->n - 1;

        if (size == 0)
                return;
        if (s->n == 0)
                buf[0] = 0;
        else if (s->n == 1)
                snprintf(buf, size, "%" PRIu32 " bits when the wait began (1 sample)", first->bits);
        else
                snprintf(buf, size, "%" PRIu32 " bits when the wait began, %" PRIu32 " at its end %s later (%u samples)",
                         first->bits, last->bits,
                         FORMAT_DURATION((usec_t) (last->msec - first->msec) * USEC_PER_MSEC), s->n);
}

void provenance_entropy_json(JsonWriter *j, const char *key, const EntropySamples *s) {
        json_array_begin(j, key);
        for (unsigned i = 0; i < s->n; i++) {
                json_object_begin(j, NULL);
                json_uint(j, "msec", s->s[i].msec);
                json_uint(j, "bits", s->s[i].bits);
                json_object_end(j);
        }
        json_array_end(j);
}
