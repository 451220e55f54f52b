/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <systemd/sd-bus.h>

#include "time-util.h"

/* systemd's manager over D-Bus: what entropyctl asks it. */

#define SD_DEST "org.freedesktop.systemd1"
#define SD_PATH "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"
#define SD_UNIT "org.freedesktop.systemd1.Unit"

/* As root, systemd's private socket, as systemctl does: it works without a
 * D-Bus daemon (minimal images, early boot). Else the system bus. 0 or
 * -errno; *ret_error (when non-NULL) is then D-Bus's own message, if any. */
int bus_open_manager(sd_bus **ret, char **ret_error);

typedef struct UnitTimes {
        bool loaded;
        usec_t inactive_exit;        /* start began; 0 when never */
        usec_t active_enter;         /* active (for a oneshot: finished); 0 when never */
} UnitTimes;

/* When @unit started this boot (GetUnit: a unit systemd never loaded did
 * nothing this boot, and is not loaded for asking). 0 with ->loaded false
 * when systemd does not have it; -ENOMEM. */
int unit_times(sd_bus *bus, const char *unit, UnitTimes *ret);

/* The units ordered after @unit (its Before= list). 0 or -errno. */
int unit_before(sd_bus *bus, const char *unit, char ***ret);

typedef struct UnitState {
        char *load_state;            /* "loaded", "not-found", "masked", ...; NULL: unknown */
        char *active_state;          /* "active", "inactive", "failed", "activating", ... */
        char *sub_state;             /* "running", "exited", "dead", ... */
} UnitState;

/* @unit's states as systemctl shows them (LoadUnit, so that a unit that is
 * not installed says "not-found"). 0, or -errno with *ret empty. */
int unit_state(sd_bus *bus, const char *unit, UnitState *ret);
void unit_state_done(UnitState *s);
