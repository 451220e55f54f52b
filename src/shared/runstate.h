/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the boot-path binaries did this boot, for entropyctl: small
 * KEY=VALUE files (one per line, shell/env-file syntax, values without
 * newlines) in the runtime directory, $ENTROPY_GATE_RUN_DIR or
 * RUN_DIR_DEFAULT (/run/entropy-gate).
 *
 *   gate:  OUTCOME=ready|timeout-proceed|timeout-fail|interrupted|error
 *          READY_AT_START=yes|no
 *          START_BOOTTIME_USEC=N   (CLOCK_BOOTTIME when the gate started)
 *          END_BOOTTIME_USEC=N     (when it was released or gave up)
 *          WAITED_USEC=N
 *   seed:  ACTION=credited|not-credited|error
 *          BITS=N                  (bits credited from the seed file, 0 if none)
 *          SEED_PATH=PATH
 *          REASON=TEXT             (why not credited; empty when credited)
 *          CREDENTIAL=credited|mixed|none
 *          CREDENTIAL_BITS=N
 *          LEGACY_MIXED=N          (legacy seed files mixed in, uncredited)
 *          REPLACEMENT_CREDITABLE=yes|no
 *          BOOTTIME_USEC=N
 */

const char *runstate_dir(void);

/* Atomically replace RUN_DIR/@name with @content (temp file + rename),
 * creating the directory (0755) if needed. Returns 0 or -errno. */
int runstate_write(const char *name, const char *content);

/* Read RUN_DIR/@name (or @path when non-NULL) and return the value of @key
 * in *ret (malloc'd). 1 found, 0 key absent, -ENOENT no file, -errno. */
int runstate_read_key(const char *name, const char *key, char **ret);
