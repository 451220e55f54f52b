/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>

#include "credit.h"
#include "macro.h"

_printf_(3, 4)
static CreditDecision refuse(CreditDecision *d, unsigned rule, const char *format, ...) {
        va_list ap;

        d->credit = false;
        d->rule = rule;
        va_start(ap, format);
        (void) vsnprintf(d->reason, sizeof(d->reason), format, ap);
        va_end(ap);
        return *d;
}

/* Rule 4. Without a machine-id (OpenWrt and other systems without systemd)
 * there is nothing to bind to: crediting then needs an explicit opt-in, and
 * the file must be unbound too (binding_matches compares it with the all-zero
 * binding), since a file bound to an id that has since vanished is what an
 * image builder leaves behind after wiping /etc/machine-id from a used
 * system. */
static bool rule4_holds(const struct seed_facts *f) {
        if (!f->machine_id_present && !f->credit_without_machine_id)
                return false;
        /* An id that exists but cannot be read or parsed is never "no id":
         * that would let a broken or planted file stand in for an opt-in. */
        if (f->machine_id_invalid)
                return false;
        if (f->seed_generation_bound && !(f->generation_readable && f->generation_matches))
                return false;
        return f->binding_matches;
}

/* Rule 5. The "machine-id exists" half of the rule only applies where there
 * is a machine-id to speak of: with none, rule 4 already required the opt-in. */
static bool rule5_holds(const struct seed_facts *f) {
        return !f->machine_id_uninitialized && !f->first_boot_flag_present;
}

static bool file_mode_ok(mode_t m) {
        /* 0600 or stricter: no bit outside owner read/write (which also
         * excludes setuid, setgid, sticky and execute). */
        return (m & 07777 & ~(mode_t) 0600) == 0;
}

static bool dir_mode_ok(mode_t m) {
        /* 0700 or stricter: another user who could even open the directory
         * could hold its lock, or learn the seed's size and age. */
        return (m & 077) == 0;
}

static bool rule6_holds(const struct seed_facts *f) {
        return f->file_regular && f->file_uid == 0 && file_mode_ok(f->file_mode) && f->file_nlink == 1 &&
                f->dir_uid == 0 && dir_mode_ok(f->dir_mode);
}

bool seed_credit_rules_2_to_6_hold(const struct seed_facts *f) {
        return f->file_parsed && f->creditable_flag && rule4_holds(f) && rule5_holds(f) && rule6_holds(f);
}

/* A seed is credited only if all seven rules hold. Crediting tells the kernel
 * "these bytes are secret and unpredictable"; the kernel then releases
 * getrandom() and every key made afterwards rests on that claim. Each rule
 * removes one way the claim can be false:
 *
 * 1. Crediting is enabled. The administrator may know better (an image being
 *    prepared, a distrusted disk) and must be able to say no, from the
 *    command line, the kernel command line or the configuration.
 * 2. The file parses and its checksum is correct. A torn, truncated or
 *    corrupted file is not the secret that was written; it is still mixed in
 *    (never harmful), but claims nothing.
 * 3. It was written while the CRNG was initialized (the creditable flag). A
 *    seed made from an uninitialized pool may be guessable; storing it does
 *    not make it less so.
 * 4. It is bound to this machine. A seed inside an image is shared by every
 *    clone booted from it: crediting it on each would give them all the same
 *    "secret". A changed machine-id is the sign of a clone. A VM restored
 *    from a snapshot, or copied with its disk, keeps its machine-id: where
 *    the hypervisor says which VM generation this is, a seed saved in one
 *    generation is credited only in that same generation, and a seed that
 *    names a generation is not credited where none can be read (the copy
 *    may run where the device is missing). A seed saved where there was no
 *    generation to read keeps the machine-id rule alone.
 * 5. Not a first boot. A freshly installed or freshly cloned system
 *    (machine-id "uninitialized", /run/systemd/first-boot) carries whatever
 *    seed the image carried, which every clone shares.
 * 6. A regular file owned by root, mode 0600 or stricter, with one link,
 *    in a root-owned directory of mode 0700 or stricter. Anyone else who
 *    could read it knows the secret; anyone who could write it, or swap it
 *    through the directory, chooses it; anyone who could open the directory
 *    could hold its lock; a second link is a second name under which the
 *    same seed would be loaded (and credited) again.
 * 7. The replacement was written durably first. Crediting the old seed and
 *    then crashing before the new one is on disk would credit the same bytes
 *    again on the next boot: a secret used twice is no longer unpredictable.
 */
CreditDecision seed_credit_decide(const struct seed_facts *f) {
        CreditDecision d = {};

        if (!f->credit_enabled)
                return f->credit_disabled_by ?
                        refuse(&d, 1, "crediting disabled (%s)", f->credit_disabled_by) :
                        refuse(&d, 1, "crediting disabled");

        if (!f->file_parsed)
                return refuse(&d, 2, "seed file does not parse: %s", f->parse_error ?: "invalid");

        if (!f->creditable_flag)
                return refuse(&d, 3, "seed was written before the CRNG was initialized, or under no valid machine-id");

        /* A first boot is named as such, whatever the binding says: an
         * image's seed is bound to the machine that made the image. */
        if (f->machine_id_uninitialized)
                return refuse(&d, 5, "first boot (/etc/machine-id is uninitialized)");

        if (!f->machine_id_present && !f->credit_without_machine_id)
                return refuse(&d, 4, "no machine-id to bind the seed to (CreditWithoutMachineId= is off)");
        if (f->machine_id_invalid)
                return refuse(&d, 4, "/etc/machine-id is not a valid machine-id (32 hex digits, not all zero)");
        if (!f->binding_matches)
                return f->machine_id_present ?
                        refuse(&d, 4, "seed is bound to another machine (machine-id changed: cloned image?)") :
                        refuse(&d, 4, "seed is bound to a machine-id, but this system has none (cloned image?)");
        if (f->seed_generation_bound && !f->generation_readable)
                return refuse(&d, 4, "seed was saved in a VM generation, but none can be read now: restored "
                              "snapshot or clone?");
        if (f->seed_generation_bound && !f->generation_matches)
                return refuse(&d, 4, "VM generation changed since this seed was saved: restored snapshot or clone");

        if (f->first_boot_flag_present)
                return refuse(&d, 5, "first boot (/run/systemd/first-boot exists)");

        if (!f->file_regular)
                return refuse(&d, 6, "seed file is not a regular file");
        if (f->file_uid != 0)
                return refuse(&d, 6, "seed file is owned by UID %u, not root", (unsigned) f->file_uid);
        if (!file_mode_ok(f->file_mode))
                return refuse(&d, 6, "seed file is mode %04o, must be 0600 or stricter",
                              (unsigned) (f->file_mode & 07777));
        if (f->file_nlink != 1)
                return refuse(&d, 6, "seed file has %lu links, must have exactly one (a hard link is "
                              "another name for the same seed)", f->file_nlink);
        if (f->dir_uid != 0)
                return refuse(&d, 6, "seed directory is owned by UID %u, not root", (unsigned) f->dir_uid);
        if (!dir_mode_ok(f->dir_mode))
                return refuse(&d, 6, "seed directory is mode %04o, must be 0700 or stricter",
                              (unsigned) (f->dir_mode & 07777));

        if (!f->replacement_durable)
                return refuse(&d, 7, "replacement seed could not be written durably");

        d.credit = true;
        d.rule = 0;
        (void) snprintf(d.reason, sizeof(d.reason), "all rules hold");
        return d;
}

bool seed_replacement_creditable(bool old_seed_passed_rules_2_to_6, bool fresh_from_initialized_crng) {
        return old_seed_passed_rules_2_to_6 || fresh_from_initialized_crng;
}
