// SPDX-License-Identifier: LGPL-2.1-or-later
/* fstab_find_network_mount(): which network mount, if any, the seed
 * directory waits for, from an fstab as people and installers write them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "fstab.h"
#include "macro.h"

#define SEED "/var/lib/entropy-gate"

static void test_fstype(void **state) {
        static const char *const network[] = {
                "nfs", "nfs4", "cifs", "smb3", "smbfs", "ceph", "glusterfs", "sshfs", "fuse.sshfs",
                "davfs", "fuse.davfs", "afs", "ncpfs", "ncp", "gfs2", "ocfs2", "lustre", "pvfs2",
        };
        static const char *const local[] = {
                "ext4", "xfs", "btrfs", "tmpfs", "9p", "virtiofs", "fuse", "fuse.", "nfsd", "auto", "", "NFS",
        };

        for (size_t i = 0; i < ELEMENTSOF(network); i++)
                if (!fstype_is_network(network[i]))
                        fail_msg("%s is not a network file system?", network[i]);
        for (size_t i = 0; i < ELEMENTSOF(local); i++)
                if (fstype_is_network(local[i]))
                        fail_msg("%s is a network file system?", local[i]);
        assert_false(fstype_is_network(NULL));
}

static void test_find(void **state) {
        static const struct {
                const char *fstab;
                const char *where;      /* NULL: none */
                const char *fstype;
                bool netdev;
        } cases[] = {
                { "", NULL, NULL, false },
                { "/dev/vda1 / ext4 errors=remount-ro 0 1\n", NULL, NULL, false },
                /* The attack's layout. */
                { "/dev/vda1 / ext4 defaults 0 1\nsrv:/export/var /var nfs defaults 0 0\n", "/var", "nfs", false },
                { "srv:/export/var\t/var\tnfs4\trw,hard\t0\t0", "/var", "nfs4", false },
                { "//srv/share /var/lib cifs credentials=/etc/c 0 0\n", "/var/lib", "cifs", false },
                { "u@h:/d /var fuse.sshfs defaults 0 0\n", "/var", "fuse.sshfs", false },
                /* iSCSI and other network block devices say _netdev. */
                { "/dev/sdb1 /var ext4 defaults,_netdev 0 2\n", "/var", "ext4", true },
                { "/dev/sdb1 /var ext4 _netdev=1,noatime 0 2\n", "/var", "ext4", true },
                { "/dev/sdb1 /var ext4 x_netdev,_netdevx 0 2\n", NULL, NULL, false },
                { "/dev/sdb1 /var ext4 defaults 0 2\n", NULL, NULL, false },
                /* A block device put after the network by its options. */
                { "LABEL=data /var ext4 x-systemd.requires=network-online.target 0 2\n", "/var", "ext4", true },
                { "LABEL=data /var ext4 defaults,x-systemd.after=network.target 0 2\n", "/var", "ext4", true },
                { "LABEL=data /var ext4 x-systemd.requires-mounts-for=/srv/nfs 0 2\n", "/var", "ext4", true },
                { "LABEL=data /var ext4 x-systemd.device-timeout=10s 0 2\n", NULL, NULL, false },
                /* Every mount on the way counts, the nearest is named. */
                { "srv:/v /var nfs defaults 0 0\n/dev/vda3 /var/lib ext4 defaults 0 2\n", "/var", "nfs", false },
                { "srv:/v /var nfs defaults 0 0\nsrv:/l /var/lib nfs4 defaults 0 0\n", "/var/lib", "nfs4", false },
                { "srv:/l /var/lib nfs4 defaults 0 0\nsrv:/v /var nfs defaults 0 0\n", "/var/lib", "nfs4", false },
                { "srv:/s " SEED " nfs defaults 0 0\n", SEED, "nfs", false },
                /* Not on the way. */
                { "srv:/h /home nfs defaults 0 0\nsrv:/v /variable nfs defaults 0 0\n"
                  "srv:/x /var/lib/entropy-gate-other nfs defaults 0 0\n"
                  "srv:/y /var/lib/entropy-gate/sub nfs defaults 0 0\n", NULL, NULL, false },
                /* The root is mounted before systemd starts. */
                { "srv:/root / nfs defaults 0 0\n", NULL, NULL, false },
                /* Escapes, as libmount undoes them; names normalized. */
                { "srv:/v /va\\162 nfs defaults 0 0\n", "/var", "nfs", false },
                { "srv:/v /var\\040lib nfs defaults 0 0\n", NULL, NULL, false },
                { "srv:/v //var/ nfs defaults 0 0\n", "/var", "nfs", false },
                { "srv:/v /./var/. nfs defaults 0 0\n", "/var", "nfs", false },
                { "srv:/v /var\\000 nfs defaults 0 0\n", NULL, NULL, false },
                { "srv:/v /tmp/../var nfs defaults 0 0\n", NULL, NULL, false },
                /* Comments, blank lines, broken lines: ignored, the rest read. */
                { "# srv:/v /var nfs defaults 0 0\n\n   \t\n", NULL, NULL, false },
                { "  # srv:/v /var nfs\n", NULL, NULL, false },
                { "srv:/v /var\n", NULL, NULL, false },
                { "srv:/v var nfs defaults 0 0\n", NULL, NULL, false },
                { "none swap sw 0 0\n/dev/x none swap sw\n", NULL, NULL, false },
                { "garbage\n\x01\x02 \xff\nsrv:/v /var nfs\n", "/var", "nfs", false },
                { "srv:/v /var nfs defaults 0 0", "/var", "nfs", false },
                /* CR LF line ends: libmount drops the CR, systemd mounts
                 * these after the network. */
                { "srv:/v /var nfs\r\n", "/var", "nfs", false },
                { "srv:/v /var nfs\r", "/var", "nfs", false },
                { "/dev/sdb1 /var ext4 defaults,_netdev\r\n", "/var", "ext4", true },
                { "LABEL=data /var ext4 x-systemd.after\r\n", "/var", "ext4", true },
                { "srv:/v /var nfs\r\r\n", NULL, NULL, false },
                { "srv:/v /var verylongfilesystemtypenamethatdoesnotfitthebufferatallreallynotevenclose defaults\n"
                  "srv:/w /var nfs\n", "/var", "nfs", false },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                FstabMount m = { .where = "untouched" };
                int r = fstab_find_network_mount(cases[i].fstab, SEED, &m);

                if (!cases[i].where) {
                        if (r != 0)
                                fail_msg("case %zu: found %s (%s)", i, m.where, m.fstype);
                        assert_string_equal(m.where, "untouched");
                        continue;
                }
                if (r != 1)
                        fail_msg("case %zu: no network mount found, expected %s", i, cases[i].where);
                assert_string_equal(m.where, cases[i].where);
                assert_string_equal(m.fstype, cases[i].fstype);
                assert_int_equal(m.netdev, cases[i].netdev);
        }
}

/* A field longer than the buffers: the line is ignored, nothing overflows. */
static void test_long_fields(void **state) {
        size_t n = 3 * PATH_MAX + 64;
        char *text = malloc(n + 128);
        FstabMount m;

        assert_non_null(text);
        memset(text, 'a', n);
        text[0] = '/';
        strcpy(text + n, " /var nfs defaults 0 0\nsrv:/v /var/lib nfs\n");
        assert_int_equal(fstab_find_network_mount(text, SEED, &m), 1);
        assert_string_equal(m.where, "/var/lib");

        memcpy(text, "srv:/v /", 8);
        strcpy(text + n, " nfs defaults 0 0\n");
        assert_int_equal(fstab_find_network_mount(text, SEED, &m), 0);

        /* Options too long to read, on a mount on the way: they may say
         * _netdev, and systemd reads them: a network mount. */
        strcpy(text, "LABEL=data /var ext4 ");
        memset(text + strlen(text), 'o', 5000);
        strcpy(text + strlen("LABEL=data /var ext4 ") + 5000, " 0 2\n");
        assert_int_equal(fstab_find_network_mount(text, SEED, &m), 1);
        assert_string_equal(m.where, "/var");
        assert_true(m.netdev);
        assert_string_equal(m.by, "options too long to read");
        free(text);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fstype),
                cmocka_unit_test(test_find),
                cmocka_unit_test(test_long_fields),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
