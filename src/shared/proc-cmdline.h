/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The kernel command line. $ENTROPY_GATE_PROC_CMDLINE, when set, is used
 * instead of /proc/cmdline (tests, and trying options without a reboot).
 * Returns 0 and a NUL-terminated string in *ret, or -errno. */
int proc_cmdline_read(char **ret);

/* Pure: find "key=value" in @cmdline. Double quotes group words
 * (key="a b"), '-' and '_' match each other in the key, and the last
 * occurrence wins, as with the kernel's own parameters. Returns 1 and a
 * malloc'd value in *ret_value (NULL for a bare "key"), 0 when absent,
 * -ENOMEM. */
int proc_cmdline_get_key(const char *cmdline, const char *key, char **ret_value);
