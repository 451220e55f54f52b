/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <sys/stat.h>

#include "entropy-samples.h"
#include "time-util.h"

/* What the boot-path binaries did this boot, for entropyctl and for the
 * next run of themselves: one small KEY=VALUE file each (one per line,
 * shell/env-file syntax, values without newlines) in RUN_DIR_DEFAULT
 * (/run/entropy-gate) inside the root. Each record is a type with one pure
 * formatter and one pure parser; a parser ignores unknown keys and leaves
 * missing fields at their "unknown" value, so either side may grow.
 *
 *   gate:  OUTCOME=ready|timeout-proceed|timeout-fail|interrupted|error
 *          READY_AT_START=yes|no
 *          START_BOOTTIME_USEC=N   (CLOCK_BOOTTIME when the gate started)
 *          END_BOOTTIME_USEC=N     (when it was released or gave up)
 *          WAITED_USEC=N
 *          ENTROPY_AVAIL=MSEC:BITS ...  (entropy-samples.h: the kernel's
 *                                  entropy_avail while it waited; absent
 *                                  when it did not wait)
 *   seed:  BOOT_ID=32 hex digits   (the boot in which this load consumed the seed
 *                                   directory; absent when it could not)
 *          ACTION=credited|not-credited|error
 *          BITS=N                  (bits credited from the seed file, 0 if none)
 *          SEED_PATH=PATH
 *          REASON=TEXT             (why not credited; empty when credited)
 *          CREDENTIAL=credited|mixed|none
 *          CREDENTIAL_BITS=N
 *          CREDENTIAL_HASH=64 hex digits (the keyed hash of the credential credited,
 *                                   so that a later load in the same boot, after
 *                                   the initrd's, does not credit it again)
 *          LEGACY_MIXED=N          (legacy seed files mixed in, uncredited)
 *          REPLACEMENT_CREDITABLE=yes|no
 *          VM_GENERATION=none|vmclock|vmgenid|unreadable
 *                                  (this boot's VM generation: its source, or none)
 *          SEED_GENERATION=unbound|same|changed|unverifiable
 *                                  (the seed's VM generation against this boot's:
 *                                   saved in none, in this one, in another, or
 *                                   in one while none can be read now)
 *          BOOTTIME_USEC=N
 *
 * Text values are written in ASCII, with a backslash, control bytes and
 * bytes past ASCII as \xHH: a path may hold any byte but NUL, and the
 * parser gets back exactly those bytes (or an empty, unknown field).
 *
 * One more, the ledger ("consumed"), is what decides "once per boot":
 *
 *   BOOT_ID=32 hex digits        (first; the boot the entries belong to)
 *   DIRECTORY=DEV:INO            (a seed directory a load consumed)
 *   SEED=64 hex digits           (the keyed hash of a seed credited)
 *   NEXT=64 hex digits           (the keyed hash of a replacement a load wrote)
 *   CREDENTIAL=64 hex digits     (the keyed hash of a credential credited)
 *
 * by identity, never by name: the same directory reached by another
 * spelling, a symlink or a bind mount has the same device and inode, and
 * the same seed copied or linked elsewhere has the same hash. Entries only
 * accumulate in a boot. Its parser is strict: a ledger that is there but
 * does not parse whole means "a load may have run", and credits nothing.
 */

#define RUNSTATE_GATE "gate"
#define RUNSTATE_SEED "seed"
#define RUNSTATE_MAX 32768

#define RUNSTATE_UNKNOWN UINT64_MAX   /* a number the record did not hold */

typedef enum RecordOutcome {
        RECORD_OUTCOME_READY,
        RECORD_OUTCOME_TIMEOUT_PROCEED,
        RECORD_OUTCOME_TIMEOUT_FAIL,
        RECORD_OUTCOME_INTERRUPTED,
        RECORD_OUTCOME_ERROR,
        _RECORD_OUTCOME_MAX,
        _RECORD_OUTCOME_INVALID = -EINVAL,
} RecordOutcome;

typedef struct GateRecord {
        RecordOutcome outcome;
        int ready_at_start;          /* -1: unknown */
        uint64_t start_usec, end_usec, waited_usec;
        /* entropy-samples.h's text while it waited; "" none (or not waited) */
        char entropy_avail[ENTROPY_SAMPLES_TEXT_MAX];
} GateRecord;

typedef enum SeedAction {
        SEED_ACTION_CREDITED,
        SEED_ACTION_NOT_CREDITED,
        SEED_ACTION_ERROR,
        _SEED_ACTION_MAX,
        _SEED_ACTION_INVALID = -EINVAL,
} SeedAction;

typedef enum CredentialResult {
        CREDENTIAL_NONE,
        CREDENTIAL_MIXED,
        CREDENTIAL_CREDITED,
        _CREDENTIAL_MAX,
        _CREDENTIAL_INVALID = -EINVAL,
} CredentialResult;

typedef enum RecordVmGeneration {
        RECORD_VM_GENERATION_NONE,
        RECORD_VM_GENERATION_VMCLOCK,
        RECORD_VM_GENERATION_VMGENID,
        RECORD_VM_GENERATION_UNREADABLE,
        _RECORD_VM_GENERATION_MAX,
        _RECORD_VM_GENERATION_INVALID = -EINVAL,
} RecordVmGeneration;

typedef enum SeedGeneration {
        SEED_GENERATION_UNBOUND,
        SEED_GENERATION_SAME,
        SEED_GENERATION_CHANGED,
        SEED_GENERATION_UNVERIFIABLE,
        _SEED_GENERATION_MAX,
        _SEED_GENERATION_INVALID = -EINVAL,
} SeedGeneration;

/* A reason as the seed load gives it (CREDIT_REASON_MAX), whole. */
#define RUNSTATE_TEXT_MAX (PATH_MAX + 512)

typedef struct SeedRecord {
        char boot_id[33];            /* "" unknown */
        SeedAction action;
        uint64_t bits;
        char seed_path[PATH_MAX + 8];
        char reason[RUNSTATE_TEXT_MAX];
        CredentialResult credential;
        uint64_t credential_bits;
        char credential_hash[65];    /* "" none */
        uint64_t legacy_mixed;
        int replacement_creditable;  /* -1: unknown */
        RecordVmGeneration vm_generation;
        SeedGeneration seed_generation;   /* unknown when no seed parsed */
        uint64_t boottime_usec;
} SeedRecord;

const char *record_outcome_to_string(RecordOutcome o);
RecordOutcome record_outcome_from_string(const char *s);
const char *seed_action_to_string(SeedAction a);
SeedAction seed_action_from_string(const char *s);
const char *credential_result_to_string(CredentialResult c);
CredentialResult credential_result_from_string(const char *s);
const char *record_vm_generation_to_string(RecordVmGeneration g);
RecordVmGeneration record_vm_generation_from_string(const char *s);
const char *seed_generation_to_string(SeedGeneration g);
SeedGeneration seed_generation_from_string(const char *s);

/* Pure: the text of a record, into @buf. Returns its length, or -ENOBUFS. */
int gate_record_format(const GateRecord *r, char *buf, size_t size);
int seed_record_format(const SeedRecord *r, char *buf, size_t size);

/* Pure: a record from its text; every field not found is unknown. */
void gate_record_parse(const char *text, GateRecord *ret);
void seed_record_parse(const char *text, SeedRecord *ret);

/* RUN_DIR_DEFAULT inside the root, for messages. */
const char *runstate_dir(void);

/* Is the directory @st (its device and inode) the runtime directory, which
 * exists? For the seed directory, which must never be it: the lock on one
 * would wait for the lock on the other, and a record would be renamed over
 * the seed of the same name. */
bool runstate_dir_is(const struct stat *st);

/* Replace the record @name with @text, atomically (temporary file + rename;
 * no fsync: /run is about this boot only), creating the directory (0755)
 * if needed. Returns 0 or -errno. */
int runstate_write(const char *name, const char *text);

/* Read the record @name (bounded, not following symlinks) into a new
 * NUL-terminated string. -ENOENT when there is none. */
int runstate_read(const char *name, char **ret);

/* runstate_read() and the parser: 1 and the record, 0 when there is none
 * (*ret then all unknown), -errno when it cannot be read. */
int gate_record_read(GateRecord *ret);
int seed_record_read(SeedRecord *ret);

#define RUNSTATE_LEDGER "consumed"
#define LEDGER_ENTRIES_MAX 256
#define LEDGER_ID_MAX 65

typedef enum LedgerKind {
        LEDGER_DIRECTORY,
        LEDGER_SEED,
        LEDGER_CREDENTIAL,
        LEDGER_NEXT,
        _LEDGER_KIND_MAX,
} LedgerKind;

typedef struct LedgerEntry {
        LedgerKind kind;
        char id[LEDGER_ID_MAX];
} LedgerEntry;

typedef struct Ledger {
        char boot_id[33];
        size_t n;
        LedgerEntry entries[LEDGER_ENTRIES_MAX];
} Ledger;

/* A directory's identity, as the ledger holds it. */
void ledger_directory_id(uint64_t dev, uint64_t ino, char ret[static LEDGER_ID_MAX]);

bool ledger_has(const Ledger *l, LedgerKind kind, const char *id);
/* 1 added, 0 already there, -EINVAL a malformed id, -ENOSPC full. */
int ledger_add(Ledger *l, LedgerKind kind, const char *id);

/* Pure. ledger_parse() is -EBADMSG for anything short of a whole, valid
 * ledger. */
int ledger_format(const Ledger *l, char *buf, size_t size);
int ledger_parse(const char *text, Ledger *ret);

/* Open the runtime directory (creating it), say who owns it, and take its
 * lock, waiting at most @timeout_usec: a load holds it from its first look
 * at the ledger until its entries are written, so that two loads (of two
 * directories holding copies of one seed, say) cannot both find a seed
 * new. Returns the directory fd, which holds the lock until closed. */
int ledger_lock(uint64_t timeout_usec, struct stat *ret_dir_stat);

/* 1 and the ledger, 0 when there is none, -EPERM when it is not root's or
 * writable by others, -EBADMSG when damaged, -errno. */
int ledger_read(int dfd, Ledger *ret);
int ledger_write(int dfd, const Ledger *l);
