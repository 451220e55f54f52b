// SPDX-License-Identifier: LGPL-2.1-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "test-util.h"
#include "vm-generation.h"

/* The SSDT QEMU builds for -device vmgenid (hw/acpi/vmgenid.c): the header,
 * then Name (VGIA, DWordConst) first in the AML, then the device. */
static size_t make_ssdt(uint8_t *buf, size_t size, const char *oem_table_id, uint32_t vgia) {
        static const uint8_t rest[] = { 0x10, 0x20, '\\', '_', 'S', 'B', '_', 0x5b, 0x82, 'V', 'G', 'E', 'N' };
        size_t n = ACPI_TABLE_HEADER_SIZE;

        assert_true(size >= n + 10 + sizeof(rest));
        memset(buf, 0, size);
        memcpy(buf, "SSDT", 4);
        buf[8] = 1;
        memcpy(buf + 10, "BOCHS ", 6);
        memcpy(buf + 16, oem_table_id, strlen(oem_table_id));
        buf[n++] = 0x08;
        memcpy(buf + n, "VGIA", 4);
        n += 4;
        buf[n++] = 0x0C;
        for (int i = 0; i < 4; i++)
                buf[n++] = (uint8_t) (vgia >> (8 * i));
        memcpy(buf + n, rest, sizeof(rest));
        n += sizeof(rest);
        buf[4] = (uint8_t) n;
        buf[5] = (uint8_t) (n >> 8);
        return n;
}

static void test_ssdt(void **state) {
        uint8_t buf[256];
        uint64_t a = 0;
        size_t n;

        n = make_ssdt(buf, sizeof(buf), "VMGENID", 0x7ffdf000);
        assert_int_equal(vmgenid_ssdt_parse(buf, n, &a), 0);
        assert_int_equal(a, 0x7ffdf000);
        /* Bytes past the table's own length are not the table. */
        assert_int_equal(vmgenid_ssdt_parse(buf, sizeof(buf), &a), 0);

        /* Every truncation: refused, never read past. */
        for (size_t k = 0; k < n; k++) {
                a = 42;
                assert_true(vmgenid_ssdt_parse(buf, k, &a) < 0);
                assert_int_equal(a, 42);
        }

        /* Another table. */
        n = make_ssdt(buf, sizeof(buf), "CPUSSDT", 0x1000);
        assert_int_equal(vmgenid_ssdt_parse(buf, n, &a), -ENOENT);
        n = make_ssdt(buf, sizeof(buf), "VMGENIDX", 0x1000);
        assert_int_equal(vmgenid_ssdt_parse(buf, n, &a), -ENOENT);
        n = make_ssdt(buf, sizeof(buf), "VMGENID", 0x1000);
        memcpy(buf, "DSDT", 4);
        assert_int_equal(vmgenid_ssdt_parse(buf, n, &a), -ENOENT);

        /* Not patched by the firmware. */
        n = make_ssdt(buf, sizeof(buf), "VMGENID", 0);
        assert_int_equal(vmgenid_ssdt_parse(buf, n, &a), -EADDRNOTAVAIL);

        /* A length that lies, in either direction. */
        n = make_ssdt(buf, sizeof(buf), "VMGENID", 0x1000);
        buf[4] = 20;
        assert_int_equal(vmgenid_ssdt_parse(buf, n, &a), -EBADMSG);
        buf[4] = (uint8_t) n;
        buf[5] = 1;
        assert_int_equal(vmgenid_ssdt_parse(buf, n, &a), -EBADMSG);

        /* Not a DWordConst, or two candidates. */
        n = make_ssdt(buf, sizeof(buf), "VMGENID", 0x1000);
        buf[ACPI_TABLE_HEADER_SIZE + 5] = 0x0A;
        assert_int_equal(vmgenid_ssdt_parse(buf, n, &a), -EBADMSG);
        n = make_ssdt(buf, sizeof(buf), "VMGENID", 0x1000);
        memcpy(buf + n, buf + ACPI_TABLE_HEADER_SIZE, 10);
        n += 10;
        buf[4] = (uint8_t) n;
        assert_int_equal(vmgenid_ssdt_parse(buf, n, &a), -EBADMSG);
}

static size_t make_vmclock(uint8_t *buf, uint64_t generation, uint64_t flags, uint32_t seq) {
        memset(buf, 0, 4096);
        memcpy(buf, "VCLK", 4);
        buf[4] = 0x00; buf[5] = 0x10;                 /* size 4096 */
        buf[8] = 1;                                    /* version */
        for (int i = 0; i < 4; i++)
                buf[12 + i] = (uint8_t) (seq >> (8 * i));
        for (int i = 0; i < 8; i++) {
                buf[24 + i] = (uint8_t) (flags >> (8 * i));
                buf[104 + i] = (uint8_t) (generation >> (8 * i));
        }
        return VMCLOCK_ABI_SIZE_WITH_GENERATION;
}

static void test_vmclock(void **state) {
        uint8_t buf[4096];
        VmGeneration g, h;
        size_t n;

        n = make_vmclock(buf, 7, VMCLOCK_FLAG_VM_GEN_COUNTER_PRESENT, 2);
        assert_int_equal(vmclock_abi_parse(buf, n, &g), 0);
        assert_int_equal(g.source, VM_GENERATION_VMCLOCK);
        assert_int_equal(g.id[0], 7);
        for (size_t k = 0; k < n; k++)
                assert_true(vmclock_abi_parse(buf, k, &h) < 0);

        make_vmclock(buf, 7, 0, 2);
        assert_int_equal(vmclock_abi_parse(buf, n, &g), -EOPNOTSUPP);
        make_vmclock(buf, 7, VMCLOCK_FLAG_VM_GEN_COUNTER_PRESENT, 3);
        assert_int_equal(vmclock_abi_parse(buf, n, &g), -EAGAIN);
        make_vmclock(buf, 7, VMCLOCK_FLAG_VM_GEN_COUNTER_PRESENT, 2);
        buf[0] = 'X';
        assert_int_equal(vmclock_abi_parse(buf, n, &g), -EBADMSG);
        make_vmclock(buf, 7, VMCLOCK_FLAG_VM_GEN_COUNTER_PRESENT, 2);
        buf[4] = 64; buf[5] = 0;                       /* a structure too small for the counter */
        assert_int_equal(vmclock_abi_parse(buf, n, &g), -EBADMSG);
}

static void test_guid_and_binding(void **state) {
        uint8_t zero[16] = {}, one[16] = { 1 }, b1[32], b2[32], b3[32];
        VmGeneration g, c = { .source = VM_GENERATION_VMCLOCK, .id = { 1 } };

        assert_int_equal(vmgenid_guid_parse(zero, 16, &g), -ENODATA);
        assert_int_equal(vmgenid_guid_parse(one, 15, &g), -EBADMSG);
        assert_int_equal(vmgenid_guid_parse(one, 16, &g), 0);
        assert_int_equal(g.source, VM_GENERATION_VMGENID);

        vm_generation_binding(NULL, b1);
        assert_true(vm_generation_binding_is_none(b1));
        vm_generation_binding(&g, b1);
        vm_generation_binding(&c, b2);
        assert_false(vm_generation_binding_is_none(b1));
        /* The same id from two sources never compares equal. */
        assert_memory_not_equal(b1, b2, 32);
        g.id[15] = 9;
        vm_generation_binding(&g, b3);
        assert_memory_not_equal(b1, b3, 32);

        assert_string_equal(vm_generation_source_to_string(VM_GENERATION_VMGENID), "vmgenid");
        assert_int_equal(vm_generation_source_from_string("vmclock"), VM_GENERATION_VMCLOCK);
}

static void write_file(const char *path, const void *buf, size_t size) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        assert_int_equal(loop_write(fd, buf, size), 0);
        close(fd);
}

/* The reader over stand-ins: tables and a sparse file for /dev/mem. */
static void test_read_at(void **state) {
        char dir[PATH_MAX], tables[PATH_MAX + 16], mem[PATH_MAX + 16], clock[PATH_MAX + 16], p[PATH_MAX + 32];
        char why[VM_GENERATION_WHY_MAX];
        uint8_t buf[4096], guid[16] = { 0xaa, 0xbb, 0xcc };
        VmGeneration g;
        size_t n;
        int fd;

        test_tmpdir(dir, "test-vm-generation");
        snprintf(tables, sizeof(tables), "%s/tables", dir);
        snprintf(mem, sizeof(mem), "%s/mem", dir);
        snprintf(clock, sizeof(clock), "%s/vmclock0", dir);
        assert_int_equal(mkdir(tables, 0755), 0);
        VmGenerationPaths paths = { .vmclock = clock, .acpi_tables = tables, .mem = mem };

        /* Nothing there. */
        assert_int_equal(vm_generation_read_at(&paths, &g, why), 0);
        assert_int_equal(g.source, VM_GENERATION_NONE);

        /* Another SSDT, then the VMGENID one, but no memory to read. */
        n = make_ssdt(buf, sizeof(buf), "CPUSSDT", 0);
        snprintf(p, sizeof(p), "%s/SSDT", tables);
        write_file(p, buf, n);
        assert_int_equal(vm_generation_read_at(&paths, &g, why), 0);
        n = make_ssdt(buf, sizeof(buf), "VMGENID", 0x12345);
        snprintf(p, sizeof(p), "%s/SSDT2", tables);
        write_file(p, buf, n);
        assert_int_equal(vm_generation_read_at(&paths, &g, why), -ENOENT);
        assert_non_null(strstr(why, "cannot open"));

        /* The GUID at VGIA + 40, across a page boundary of the stand-in. */
        fd = open(mem, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        assert_int_equal(ftruncate(fd, 0x20000), 0);
        assert_int_equal(pwrite(fd, guid, 16, 0x12345 + 40), 16);
        close(fd);
        assert_int_equal(vm_generation_read_at(&paths, &g, why), 1);
        assert_int_equal(g.source, VM_GENERATION_VMGENID);
        assert_memory_equal(g.id, guid, 16);

        /* A vmclock with a counter wins; one without defers to vmgenid. */
        make_vmclock(buf, 0, 0, 0);
        write_file(clock, buf, 4096);
        assert_int_equal(vm_generation_read_at(&paths, &g, why), 1);
        assert_int_equal(g.source, VM_GENERATION_VMGENID);
        make_vmclock(buf, 5, VMCLOCK_FLAG_VM_GEN_COUNTER_PRESENT, 0);
        write_file(clock, buf, 4096);
        assert_int_equal(vm_generation_read_at(&paths, &g, why), 1);
        assert_int_equal(g.source, VM_GENERATION_VMCLOCK);
        assert_int_equal(g.id[0], 5);

        /* A symlink for the device is not followed. */
        assert_int_equal(unlink(clock), 0);
        assert_int_equal(symlink(mem, clock), 0);
        assert_int_equal(vm_generation_read_at(&paths, &g, why), -ELOOP);

        test_rm_rf(dir);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_ssdt),
                cmocka_unit_test(test_vmclock),
                cmocka_unit_test(test_guid_and_binding),
                cmocka_unit_test(test_read_at),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
