/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* A pager for long output, started the way systemd's tools start one, and
 * only when it is needed: standard output is a terminal (not TERM=dumb)
 * and what the command printed does not fit on its screen. Until then the
 * output is collected; output that fits goes to the terminal as it is, with
 * no pager and none of a pager's escape sequences.
 *
 * The pager: $SYSTEMD_PAGER, else $PAGER, where "" or "cat" turns paging
 * off; else "pager", "less", "more". less gets LESS=$SYSTEMD_LESS or "FRXMK"
 * (exit when the text fits after all, keep colours, leave the screen alone)
 * and LESSCHARSET=utf-8 in a UTF-8 locale. When someone else's session runs
 * us (sudo, su: the session's owner is not our effective user, or there is
 * no session) the pager runs in secure mode, as systemd's: LESSSECURE=1 and
 * only less, unless $SYSTEMD_PAGERSECURE says otherwise. If no pager can be
 * started, the output goes to the terminal directly. Error messages are
 * never collected: they reach the terminal at once. */

/* Returns 1 when standard output is now collected for a possible pager, 0
 * when it goes where it went. Never fails: a pager is a convenience. */
int pager_open(bool disabled);

/* Show what was collected: directly when it fits, else through the pager,
 * waiting for the pager to exit. Does nothing after pager_open() returned 0. */
void pager_close(void);

/* Pure: split @command into at most @max - 1 words at white space, into
 * @buf (a copy the words point into); the list ends with NULL. Returns the
 * number of words, or -E2BIG. */
int pager_split(const char *command, char *buf, size_t size, char **argv, size_t max);

/* Pure: how many rows of a terminal @columns wide @n bytes of text take:
 * long lines wrap; colour sequences take no room, nor do the continuation
 * bytes of UTF-8. */
size_t text_rows(const char *text, size_t n, unsigned columns);
