/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* /etc/machine-id, the one place it is read and parsed. It decides whether a
 * seed is bound to this machine (rule 4) and whether this is a first boot
 * (rule 5), so every doubt counts against crediting: only a file that
 * exists and holds exactly 32 hex digits (and a newline) is an id; only a
 * file that does not exist at all is "no machine-id". */

#define MACHINE_ID_HEX_LEN 32
#define MACHINE_ID_FILE_MAX 64        /* the id, or "uninitialized", and a newline */

typedef enum MachineIdState {
        MACHINE_ID_ABSENT,            /* no such file (OpenWrt and other systems without systemd) */
        MACHINE_ID_VALID,             /* 32 hex digits */
        MACHINE_ID_UNINITIALIZED,     /* "uninitialized": systemd's first boot */
        MACHINE_ID_EMPTY,             /* empty: systemd makes a transient id at each boot */
        MACHINE_ID_INVALID,           /* exists but unreadable, or anything else */
} MachineIdState;

typedef struct MachineId {
        MachineIdState state;
        int error;                    /* MACHINE_ID_INVALID: -errno when unreadable, 0 when malformed */
        char id[MACHINE_ID_HEX_LEN + 1]; /* MACHINE_ID_VALID: lower case */
        size_t raw_size;
        char raw[MACHINE_ID_FILE_MAX];   /* the bytes read, for mixing into the pool */
} MachineId;

const char *machine_id_state_to_string(MachineIdState s);

/* Pure: what @n bytes of a machine-id file say. */
void machine_id_parse(const char *buf, size_t n, MachineId *ret);

/* Read /etc/machine-id inside the root (root.h), following symlinks as the
 * system does (inside the root). Never fails: problems are
 * MACHINE_ID_INVALID with ->error. */
void machine_id_read(MachineId *ret);

/* Pure: is @s 32 hex digits (either case), and nothing else? */
bool machine_id_is_valid(const char *s);

/* For a binding or a message: the id when valid, else NULL. */
static inline const char *machine_id_get(const MachineId *m) {
        return m->state == MACHINE_ID_VALID ? m->id : NULL;
}

/* This boot's id (/proc/sys/kernel/random/boot_id inside the root), as 32
 * lower-case hex digits: what keys "once per boot". 0 or -errno. */
int boot_id_read(char ret[static MACHINE_ID_HEX_LEN + 1]);
