/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The kernel command line: /proc/cmdline inside the root (see root.h; an
 * image's tree normally has none, which reads as an empty command line).
 * Returns 0 and a NUL-terminated string in *ret, or -errno. */
int proc_cmdline_read(char **ret);

/* The same into the caller's @buf of @size bytes; -E2BIG when it does not
 * fit there (or is longer than the bound proc_cmdline_read() has). */
int proc_cmdline_read_into(char *buf, size_t size);

/* Pure: the kernel's isspace(), by which it splits the command line:
 * '\t' '\n' '\v' '\f' '\r' ' ' and 0xA0 (Latin-1 NBSP). Every reader of
 * the command line in this project splits by this, and nothing else. */
bool proc_cmdline_isspace(char c);

/* Pure: find "key=value" in @cmdline, split into words exactly as the
 * kernel's own parser (next_arg() in kernel/params.c) splits them: a word
 * runs to the next space outside double quotes; a word that starts with a
 * quote ("key=value") loses it and its closing quote; a value that starts
 * with a quote (key="a b") loses it and a quote ending the word; quotes
 * elsewhere stay. '-' and '_' match each other in the key, the last
 * occurrence wins, and a bare "--" ends the kernel's parameters (what
 * follows is init's). Returns 1 and a malloc'd value in *ret_value (NULL for
 * a bare "key"), 0 when absent (*ret_value NULL), -ENOMEM. */
int proc_cmdline_get_key(const char *cmdline, const char *key, char **ret_value);

/* Pure: may systemd import the credential @name from @cmdline
 * (systemd.set_credential=@name:..., systemd.set_credential_binary=)? As
 * systemd splits it, which is not as the kernel does: quotes anywhere in a
 * word are dropped, '-' and '_' match in the key, "rd." may precede it, and
 * "--" ends nothing. Errs towards yes: any occurrence, quotes skipped. */
bool proc_cmdline_may_set_credential(const char *cmdline, const char *name);
