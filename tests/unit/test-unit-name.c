// SPDX-License-Identifier: LGPL-2.1-or-later
/* unit_name_is_valid(): the generator turns every accepted name into a
 * directory name, so nothing with '/' or without a unit type may pass. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "macro.h"
#include "unit-name.h"

static void test_valid(void **state) {
        static const char *const good[] = {
                "ssh.service", "a.socket", "multi-user.target", "var-lib.mount", "proc-sys.automount",
                "dev-sda2.swap", "fstrim.timer", "x.path", "user.slice", "session-1.scope", "dev-hwrng.device",
                "getty@tty1.service", "cert@.service", "systemd-fsck@dev-disk-by\\x2duuid-1234.service",
                "a:b_c.d-e.service",
        };
        for (size_t i = 0; i < ELEMENTSOF(good); i++)
                if (!unit_name_is_valid(good[i]))
                        fail_msg("rejected %s", good[i]);
}

static void test_invalid(void **state) {
        static const char *const bad[] = {
                "", ".service", "ssh", "ssh.", "ssh.bogus", "ssh.Service", "a/b.service", "../x.service",
                "@.service", "@x.service", "a@b@c.service", "a b.service", "a,b.service",
                "caf\xc3\xa9.service", "a\n.service", "ssh.service/", "ssh.service.d",
        };
        char longname[UNIT_NAME_MAX + 16];

        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                if (unit_name_is_valid(bad[i]))
                        fail_msg("accepted '%s'", bad[i]);
        assert_false(unit_name_is_valid(NULL));

        /* UNIT_NAME_MAX counts the NUL: 255 characters pass, 256 do not. */
        memset(longname, 'a', sizeof(longname));
        strcpy(longname + UNIT_NAME_MAX - 1 - strlen(".service"), ".service");
        assert_int_equal(strlen(longname), UNIT_NAME_MAX - 1);
        assert_true(unit_name_is_valid(longname));
        memset(longname, 'a', sizeof(longname));
        strcpy(longname + UNIT_NAME_MAX - strlen(".service"), ".service");
        assert_false(unit_name_is_valid(longname));
}

/* What can never be gated, by class and by name; what can. */
static void test_gate_refusal(void **state) {
        static const char *const refused[] = {
                "var-lib.mount", "proc-sys.automount", "dev-sda2.swap", "dev-hwrng.device", "user.slice",
                "session-1.scope", "multi-user.target", "local-fs.target", "cryptsetup-pre.target",
                "entropy-gate.service", "entropy-seed.service", "entropy-ready.target",
                "systemd-journald.service", "systemd-journald.socket", "systemd-journald-dev-log.socket",
                "systemd-udevd.service", "systemd-udev-trigger.service", "systemd-udevd-kernel.socket",
                "systemd-remount-fs.service", "systemd-fsck-root.service",
                "systemd-fsck@dev-disk-by\\x2duuid-1234.service", "systemd-cryptsetup@luks.service",
                "systemd-growfs@-.service", "systemd-tmpfiles-setup-dev.service",
                "systemd-tmpfiles-setup-dev-early.service", "lvm2-monitor.service", "lvm2-pvscan@8:1.service",
                "mdadm-last-resort@md0.service", "iscsid.service",
                /* Before local-fs-pre.target, so before a separate /var
                 * (tests/hostile/generator-cycles.py found them). */
                "systemd-sysusers.service", "kmod-static-nodes.service", "systemd-firstboot.service",
                "systemd-fsckd.socket", "dm-event.socket", "quotaon-root.service",
                /* Before systemd-cryptsetup@.service on Debian 13 (/var on LUKS). */
                "systemd-tpm2-setup-early.service",
        };
        static const char *const allowed[] = {
                "ssh.service", "sshd.service", "getty@tty1.service", "cert@.service", "fstrim.timer",
                "nginx.socket", "x.path", "systemd-random-seed.service", "systemd-tmpfiles-setup.service",
                "systemd-networkd.service", "dbus.service", "cloud-init.service", "clevis-luks-askpass.path",
                "systemd-timesyncd.service", "systemd-resolved.service", "chrony.service", "cron.service",
                "nginx.service", "kmod.service",
        };

        for (size_t i = 0; i < ELEMENTSOF(refused); i++) {
                const char *why = unit_name_gate_refusal(refused[i]);
                if (!why)
                        fail_msg("%s can be gated?", refused[i]);
                print_message("%s: %s\n", refused[i], why);
        }
        for (size_t i = 0; i < ELEMENTSOF(allowed); i++)
                if (unit_name_gate_refusal(allowed[i]))
                        fail_msg("%s refused: %s", allowed[i], unit_name_gate_refusal(allowed[i]));
}

/* With the seed directory on a network file system: what brings the
 * network up, and what it is ordered after (tests/hostile/generator-cycles.py
 * found those on Debian 12 with /var on NFS). Ordinary services stay
 * allowed, and none of these is refused on a local seed directory. */
static void test_network_refusal(void **state) {
        static const char *const refused[] = {
                "systemd-networkd.service", "systemd-networkd.socket", "systemd-networkd-wait-online.service",
                "systemd-networkd-wait-online@eth0.service", "systemd-network-generator.service",
                "systemd-resolved.service", "NetworkManager.service", "NetworkManager-wait-online.service",
                "networking.service", "ifup@eth0.service", "ifupdown-pre.service", "ifupdown-wait-online.service",
                "wpa_supplicant.service", "wpa_supplicant@wlan0.service", "iwd.service", "connman.service",
                "dhcpcd.service", "nftables.service", "cloud-init-local.service", "systemd-sysctl.service",
                "procps.service", "systemd-modules-load.service", "kmod.service", "rpcbind.service",
                "rpc-statd.service", "nfs-client.target", "gssproxy.service",
        };
        static const char *const allowed[] = {
                "ssh.service", "sshd.service", "cron.service", "nginx.service", "chrony.service",
                "dbus.service", "systemd-timesyncd.service", "getty@tty1.service", "apt-daily.service",
                "systemd-logind.service", "networkd-dispatcher.service",
        };

        for (size_t i = 0; i < ELEMENTSOF(refused); i++) {
                const char *why = unit_name_network_refusal(refused[i]);
                if (!why)
                        fail_msg("%s can be gated with the seed on the network?", refused[i]);
                print_message("%s: %s\n", refused[i], why);
                if (!strstr(refused[i], ".target") && unit_name_gate_refusal(refused[i]))
                        fail_msg("%s refused on a local seed directory: %s", refused[i],
                                 unit_name_gate_refusal(refused[i]));
        }
        for (size_t i = 0; i < ELEMENTSOF(allowed); i++)
                if (unit_name_network_refusal(allowed[i]))
                        fail_msg("%s refused: %s", allowed[i], unit_name_network_refusal(allowed[i]));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_valid),
                cmocka_unit_test(test_invalid),
                cmocka_unit_test(test_gate_refusal),
                cmocka_unit_test(test_network_refusal),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
