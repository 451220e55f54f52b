/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* systemd takes kernel command line options from its SystemdOptions EFI
 * variable too: proc_cmdline_parse() parses them before /proc/cmdline
 * (unless Secure Boot is on), from the copy PID 1 keeps in /run. Both the
 * copy and the variable itself are readable by every user, as the command
 * line is. */
typedef enum EfiOptionsSource {
        EFI_OPTIONS_CACHE,           /* systemd's copy: the options as a line of UTF-8 text */
        EFI_OPTIONS_VARIABLE,        /* efivarfs: 4 bytes of attributes, then the options in UTF-16LE */
        _EFI_OPTIONS_SOURCE_MAX,
} EfiOptionsSource;

/* The absolute path of @source on a running system ("/run/systemd/...",
 * "/sys/firmware/efi/efivars/..."). */
const char *efi_options_path(EfiOptionsSource source);

/* Read @source inside the root (resolved as every path there; a regular
 * file only, bounded) as a NUL-terminated string in *ret: the copy's bytes,
 * or the variable's UTF-16LE as efi_options_variable_to_text() makes it.
 * NUL bytes inside become '?', so a matcher sees every byte. -ENOENT when
 * absent, and always in a tree tool's tree (an image's EFI variables are
 * its firmware's, as its command line is its boot loader's); -EFBIG when
 * larger than any command line; -errno. */
int efi_options_read(EfiOptionsSource source, char **ret);

/* Pure: the efivarfs bytes @p of @size (attributes, then UTF-16LE) as
 * ASCII text in @ret, which needs size / 2 + 1 bytes and may be @p itself:
 * each unit that is ASCII as itself, every other unit (NUL, anything past
 * U+007F) as '?', which matches nothing a key or a name spells. An odd last
 * byte, and a variable shorter than its attributes, carry no option.
 * Returns the length, without the terminating NUL. */
size_t efi_options_variable_to_text(const uint8_t *p, size_t size, char *ret);
