/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io-util.h"
#include "root.h"
#include "seed-file.h"
#include "time-util.h"

/* The seed on disk, and everything else this project knows about seeds on
 * disk: the file's name and directory, how it is locked, read and replaced,
 * the credentials already credited, and the seeds other tools keep. One
 * module, asked by entropy-seed, entropyctl status and check-image alike.
 *
 * Operations on the seed directory are relative to its fd (openat,
 * renameat, fsync of the directory), so that a path swapped under us between
 * two calls cannot redirect a read or a write, and tests can hand in any
 * directory. None of these functions logs. */

#define SEED_FILE_NAME "seed"
/* Keyed hashes of the system credentials already credited (never twice). */
#define SEED_CREDENTIALS_NAME "credentials"

/* How long load and save wait for another holder of the directory lock: a
 * lock held by someone else must not hang the boot. */
#define SEED_LOCK_TIMEOUT_USEC (3 * USEC_PER_SEC)

/* Seeds other tools keep. check-image reports each as something every
 * clone would share; entropy-seed load mixes those marked @mixed (never
 * credits, never modifies: whether they are secret, or shared by every clone
 * of an image, it cannot know). Paths are absolute, taken inside the root. */
typedef struct LegacySeed {
        const char *path;
        const char *what;
        const char *why;             /* why an image must not ship it */
        bool mixed;                  /* entropy-seed load mixes it */
} LegacySeed;

extern const LegacySeed legacy_seeds[];
extern const size_t legacy_seeds_count;
#define LEGACY_SEED_MAX 4096     /* systemd's and SeedRNG's seeds are at most 512 bytes */

/* Open @path (inside the root, resolved by root_open() with @flags) as a
 * directory, creating the last component (mode 0700) when
 * missing, and take an exclusive flock on it, waiting at most @timeout
 * (-ETIMEDOUT). Two entropy-seed processes (a load racing a save, an admin's
 * manual run) then never both read the same seed before either replaced it.
 * The lock is held until the fd is closed. Returns the fd, or -errno, and
 * the directory's owner and mode in *ret_stat. -EDEADLK, before any lock is
 * taken, when the directory is the runtime directory (runstate.h), however
 * it is named: its lock is the ledger's, and its records' names are the
 * seed's. -EBUSY, likewise, when it is the root directory itself. */
int seed_dir_open_locked(const char *path, ChaseFlags flags, usec_t timeout, FileStat *ret_stat);

/* What is under the seed's name in the directory @dfd. Holds a secret:
 * stored_seed_done() wipes it. */
typedef struct StoredSeed {
        bool exists;                 /* something is there, of whatever type */
        FileStat stat;
        char *raw;                   /* the bytes read, when a regular file of sane size: raw_buf */
        size_t raw_size;
        char raw_buf[SEED_FILE_SIZE_MAX + 1];
        bool parsed;
        SeedFile file;
        char problem[128];           /* why it is not a usable seed, when !parsed */
} StoredSeed;

void stored_seed_read(int dfd, StoredSeed *ret);
void stored_seed_done(StoredSeed *s);

/* The bytes to carry into the next seed or to mix: the seed when it
 * parsed, else whatever the file held. */
static inline const uint8_t *stored_seed_bytes(const StoredSeed *s, size_t *ret_size) {
        *ret_size = s->parsed ? s->file.seed_size : s->raw_size;
        return s->parsed ? s->file.seed : (const uint8_t *) s->raw;
}

/* Serialize @f and replace the seed with it atomically and durably (see
 * write_file_atomic_at()): once this returns 0 the new seed survives a
 * power cut, and only then may the old one be credited. Call it with the
 * directory lock held. */
int stored_seed_write(int dfd, const SeedFile *f);

/* The system credentials already credited, remembered in the seed
 * directory (seed-store.c says how: a Bloom filter that never forgets). */
#define CREDENTIAL_HASH_SIZE 32
#define CREDENTIAL_MEMORY_BYTES (64U * 1024U)
#define CREDENTIAL_MEMORY_BITS (CREDENTIAL_MEMORY_BYTES * 8U)
#define CREDENTIAL_MEMORY_K 8U

typedef struct CredentialMemory {
        bool exists;
        FileStat stat;
        uint8_t bits[CREDENTIAL_MEMORY_BYTES];
} CredentialMemory;

/* The keyed hash the memory holds for a credential's canonical bytes. */
void credential_hash(const void *buf, size_t size, uint8_t ret[static CREDENTIAL_HASH_SIZE]);

bool credential_memory_has(const CredentialMemory *m, const uint8_t hash[static CREDENTIAL_HASH_SIZE]);
void credential_memory_add(CredentialMemory *m, const uint8_t hash[static CREDENTIAL_HASH_SIZE]);

/* Pure: the file's bytes into @m. -EBADMSG when they are neither format. */
int credential_memory_parse(const uint8_t *buf, size_t size, CredentialMemory *m);

/* Whether the file may be believed: rule 6 (a regular file of root's, 0600
 * or stricter, one link). */
bool credential_memory_file_ok(const FileStat *st);

/* Read the memory in the directory @dfd: 0 (an absent file is an empty
 * memory), -EPERM when the file breaks rule 6 (a symlink, another owner,
 * a loose mode, a hard link), -EBADMSG when it does not parse, -errno. A
 * memory that cannot be read or believed credits nothing: absent entries
 * could be an attacker's doing. */
int credential_memory_read(int dfd, CredentialMemory *m);

/* Replace the memory with @m, durably, before the credential is credited.
 * Under the directory lock. */
int credential_memory_write(int dfd, const CredentialMemory *m);
