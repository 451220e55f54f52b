/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

/* systemd's limit, including the terminating NUL. */
#define UNIT_NAME_MAX 256

/* Pure: is @name a unit name systemd would accept, plain ("ssh.service"),
 * instance ("getty@tty1.service") or template ("getty@.service")? The
 * rules are systemd's unit_name_is_valid(): shorter than UNIT_NAME_MAX,
 * only [A-Za-z0-9:_.\\-] (and one '@'), a non-empty prefix and a known
 * type suffix. Anything else, notably '/', never reaches a file name. */
bool unit_name_is_valid(const char *name);
