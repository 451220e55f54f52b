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

/* Pure: why @name can never be ordered after entropy-ready.target, or NULL
 * when it can. The gate and the seed helper run early (no default
 * dependencies) and are themselves ordered after some units: the file
 * systems the seed lives on and what makes them available (mounts, fsck,
 * remounting the root writable, unlocking and assembling block devices),
 * the journal's sockets, udev, and the slices they run in. Ordering any of
 * those after the target closes a cycle, which systemd breaks by deleting a
 * job at random: the root file system left read-only, or the gate itself
 * skipped and consumers started unseeded. Whole classes are refused (mounts,
 * automounts, swaps, devices, slices, scopes, targets), and the early-boot
 * services by name or prefix; valid names only. */
const char *unit_name_gate_refusal(const char *name);

/* Pure: why @name can never be ordered after entropy-ready.target when the
 * seed directory is on a network file system, or NULL when it can (as far
 * as the network is concerned: unit_name_gate_refusal() still applies).
 * Such a mount is ordered after network-online.target, so the seed helper
 * is too: the services that bring the network up, those they are ordered
 * after, and the helpers network file systems are mounted with all run
 * before the gate. A network stack whose services keep systemd's default
 * dependencies (NetworkManager, wpa_supplicant) is also after basic.target,
 * and so after every unit before it, which no list of names can hold:
 * entropy-gate-generator(8) says so. Valid names only. */
const char *unit_name_network_refusal(const char *name);
