// SPDX-License-Identifier: LGPL-2.1-or-later
#include <string.h>

#include "macro.h"
#include "unit-name.h"

static const char *const unit_types[] = {
        "service", "socket", "target", "device", "mount", "automount",
        "swap", "timer", "path", "slice", "scope",
};

static bool char_ok(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == ':' || c == '-' || c == '_' || c == '.' || c == '\\';
}

bool unit_name_is_valid(const char *name) {
        const char *dot, *at = NULL;
        bool type_ok = false;

        if (!name || !*name || strlen(name) >= UNIT_NAME_MAX)
                return false;

        dot = strrchr(name, '.');
        if (!dot || dot == name)
                return false;
        for (size_t i = 0; i < ELEMENTSOF(unit_types); i++)
                if (streq(dot + 1, unit_types[i]))
                        type_ok = true;
        if (!type_ok)
                return false;

        for (const char *p = name; p < dot; p++) {
                if (*p == '@') {
                        if (at)
                                return false;
                        at = p;
                } else if (!char_ok(*p))
                        return false;
        }
        /* "@.service" has no prefix; "foo@.service" is a template, "foo@bar.service" an instance. */
        if (at == name)
                return false;
        return true;
}

static bool has_suffix(const char *s, const char *suffix) {
        size_t l = strlen(s), k = strlen(suffix);
        return l >= k && streq(s + l - k, suffix);
}

typedef struct RefusalPattern {
        const char *pattern;    /* a trailing '*' matches any rest */
        const char *why;
} RefusalPattern;

static const char *pattern_refusal(const char *name, const RefusalPattern *table, size_t n) {
        for (size_t i = 0; i < n; i++) {
                const char *p = table[i].pattern;
                size_t l = strlen(p);

                if (p[l - 1] == '*' ? strncmp(name, p, l - 1) == 0 : streq(name, p))
                        return table[i].why;
        }
        return NULL;
}

const char *unit_name_gate_refusal(const char *name) {
        static const struct {
                const char *suffix;
                const char *why;
        } classes[] = {
                { ".mount",     "a mount: the seed directory's file systems come before the gate" },
                { ".automount", "an automount: file systems come before the gate" },
                { ".swap",      "a swap: part of setting up local storage, which comes before the gate" },
                { ".device",    "a device: devices appear before anything can be ordered" },
                { ".slice",     "a slice: the gate runs inside one" },
                { ".scope",     "a scope: not started by systemd, nothing to order" },
                { ".target",    "a target: gate the units that need randomness, not synchronization points "
                                "the gate itself may be ordered after" },
        };
        /* Services the seed helper or the gate are ordered after, directly
         * or through the file systems the seed lives on. A trailing '*'
         * matches any rest (templates and their instances, socket and
         * service siblings). */
        static const RefusalPattern early[] = {
                { "entropy-*",                    "one of entropy-gate's own units" },
                { "systemd-journald*",            "the journal: every service logs to it" },
                { "systemd-udev*",                "udev: block devices and file systems wait for it" },
                { "udev*",                        "udev: block devices and file systems wait for it" },
                { "systemd-remount-fs.service",   "it makes the root file system writable, which the seed needs" },
                { "systemd-fsck*",                "file system checks come before the seed's file system is mounted" },
                { "systemd-growfs*",              "it grows file systems before they are used" },
                { "systemd-makefs*",              "it makes file systems before they are mounted" },
                { "systemd-quotacheck*",          "part of mounting local file systems" },
                { "quotaon*",                     "part of mounting local file systems" },
                { "systemd-cryptsetup*",          "it unlocks block devices the seed's file system may be on "
                                                  "(gate it in the initrd instead, see entropy-gate-initrd(7))" },
                { "systemd-tpm2-setup*",          "it prepares the TPM that unlocking the seed's "
                                                  "block devices may need" },
                { "systemd-veritysetup*",         "it sets up block devices the seed's file system may be on" },
                { "systemd-integritysetup*",      "it sets up block devices the seed's file system may be on" },
                { "systemd-hibernate-resume*",    "it runs before local file systems are mounted" },
                { "systemd-tmpfiles-setup-dev*",  "it creates device nodes early boot needs, before "
                                                  "local file systems are mounted" },
                { "kmod-static-nodes.service",    "it creates the static device nodes that "
                                                  "systemd-tmpfiles-setup-dev needs, before local "
                                                  "file systems are mounted" },
                { "systemd-sysusers.service",     "it creates the system users that "
                                                  "systemd-tmpfiles-setup-dev needs, before local "
                                                  "file systems are mounted" },
                { "systemd-firstboot.service",    "it runs before the system users and device nodes "
                                                  "that local file systems wait for" },
                { "blk-availability.service",     "part of block device set-up" },
                { "lvm2-*",                       "it activates volumes the seed's file system may be on" },
                { "dm-event*",                    "device mapper monitoring, part of block device set-up" },
                { "mdadm*",                       "it assembles RAID devices the seed's file system may be on" },
                { "mdmonitor*",                   "RAID monitoring, part of block device set-up" },
                { "multipathd*",                  "it sets up block devices the seed's file system may be on" },
                { "iscsid*",                      "network storage the seed's file system may be on" },
                { "open-iscsi*",                  "network storage the seed's file system may be on" },
                { "zfs-*",                        "it imports pools the seed's file system may be on" },
        };

        for (size_t i = 0; i < ELEMENTSOF(classes); i++)
                if (has_suffix(name, classes[i].suffix))
                        return classes[i].why;
        return pattern_refusal(name, early, ELEMENTSOF(early));
}

const char *unit_name_network_refusal(const char *name) {
        /* What brings the network up (network-pre.target, network.target,
         * network-online.target are after it), what those services are
         * ordered after themselves, and the helpers network file systems
         * are mounted with (before remote-fs-pre.target). Found with
         * systemd-analyze verify on Debian 12 (tests/hostile/generator-cycles.py)
         * and from the units of the other network stacks Debian ships. */
        static const RefusalPattern network[] = {
                { "systemd-networkd*",            "it brings the network up" },
                { "systemd-network-generator*",   "it configures the network before it comes up" },
                { "systemd-resolved*",            "name resolution, which network.target is ordered after" },
                { "NetworkManager*",              "it brings the network up" },
                { "networking.service",           "it brings the network up (ifupdown)" },
                { "ifup@*",                       "it brings the network up (ifupdown)" },
                { "ifupdown*",                    "it brings the network up (ifupdown)" },
                { "wpa_supplicant*",              "it brings wireless networks up" },
                { "iwd.service",                  "it brings wireless networks up" },
                { "connman*",                     "it brings the network up" },
                { "dhcpcd*",                      "it brings the network up" },
                { "netplan*",                     "it configures the network before it comes up" },
                { "openvswitch*",                 "it brings virtual networks up" },
                { "ovs-*",                        "it brings virtual networks up" },
                { "ovsdb-server*",                "it brings virtual networks up" },
                { "cloud-init*",                  "it configures the network before it comes up" },
                { "nftables.service",             "a firewall, set up before the network comes up" },
                { "netfilter-persistent.service", "a firewall, set up before the network comes up" },
                { "iptables.service",             "a firewall, set up before the network comes up" },
                { "ip6tables.service",            "a firewall, set up before the network comes up" },
                { "ebtables.service",             "a firewall, set up before the network comes up" },
                { "firewalld.service",            "a firewall, set up before the network comes up" },
                { "ufw.service",                  "a firewall, set up before the network comes up" },
                { "apparmor.service",             "ifupdown's networking.service is ordered after it" },
                { "systemd-sysctl.service",       "the network services are ordered after kernel settings" },
                { "procps.service",               "the network services are ordered after kernel settings "
                                                  "(an alias of systemd-sysctl.service)" },
                { "systemd-modules-load.service", "the network services are ordered after kernel modules" },
                { "kmod.service",                 "the network services are ordered after kernel modules "
                                                  "(an alias of systemd-modules-load.service)" },
                { "rpcbind*",                     "network file systems are mounted with it" },
                { "rpc-*",                        "network file systems are mounted with it" },
                { "nfs-*",                        "network file systems are mounted with it" },
                { "gssproxy*",                    "network file systems are mounted with it" },
                { "rbdmap*",                      "network block devices are mapped before remote file systems" },
        };

        return pattern_refusal(name, network, ELEMENTSOF(network));
}
