/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The VM generation: a value the hypervisor changes whenever a VM is
 * restored from a snapshot or started as a copy of another, while its disk,
 * and so its machine-id and our seed, stay the same. A seed saved in one
 * generation and found in another was saved by a sibling too: it is not a
 * secret this VM alone holds (entropy-seed(8), "VM GENERATION").
 *
 * Two sources, as pure parsers of bytes (no I/O here; vm-generation-read.c
 * does the reading, and the fuzz target and unit tests feed these):
 *
 * - The vmclock device (Linux >= 6.13, /dev/vmclock0): struct vmclock_abi of
 *   <linux/vmclock-abi.h>, whose vm_generation_counter (a later addition,
 *   flagged by VMCLOCK_FLAG_VM_GEN_COUNTER_PRESENT) changes on every
 *   restore. Preferred: the kernel hands it over without /dev/mem.
 * - The VM Generation ID of QEMU (-device vmgenid) and Hyper-V: a 128-bit
 *   GUID in guest memory, whose address the firmware patches into an SSDT
 *   with OEM table id "VMGENID" as the AML object Name (VGIA, DWordConst)
 *   (QEMU's hw/acpi/vmgenid.c: build_append_named_dword(ssdt, "VGIA")). The
 *   GUID lies VMGENID_GUID_OFFSET bytes past that address (room QEMU leaves
 *   for OVMF's table probe). Linux >= 5.18 reads it too, but only hands it
 *   to the pool, so user space maps it from /dev/mem. */

#define VM_GENERATION_ID_SIZE 16U
#define VMGENID_GUID_OFFSET 40U
#define ACPI_TABLE_HEADER_SIZE 36U

#define VMCLOCK_MAGIC 0x4b4c4356U                      /* "VCLK" */
#define VMCLOCK_FLAG_VM_GEN_COUNTER_PRESENT (UINT64_C(1) << 8)
#define VMCLOCK_ABI_SIZE_WITH_GENERATION 112U          /* up to vm_generation_counter */

typedef enum VmGenerationSource {
        VM_GENERATION_NONE,          /* no device: not a VM, or a hypervisor without one */
        VM_GENERATION_VMCLOCK,
        VM_GENERATION_VMGENID,
        _VM_GENERATION_SOURCE_MAX,
        _VM_GENERATION_SOURCE_INVALID = -EINVAL,
} VmGenerationSource;

typedef struct VmGeneration {
        VmGenerationSource source;
        uint8_t id[VM_GENERATION_ID_SIZE];   /* the GUID as it lies in memory; a counter as le64, zero padded */
} VmGeneration;

const char *vm_generation_source_to_string(VmGenerationSource s);
VmGenerationSource vm_generation_source_from_string(const char *s);

/* An ACPI table (as /sys/firmware/acpi/tables/SSDT* holds it): when it is
 * the VMGENID SSDT, the VGIA address it holds. 0 and *ret_address; -ENOENT
 * when it is another table; -EBADMSG when it claims to be the VMGENID table
 * but does not hold a well-formed Name (VGIA, DWordConst); -EADDRNOTAVAIL
 * when the address is zero (the firmware did not patch it in). Reads only
 * within @size and within the table's own length. */
int vmgenid_ssdt_parse(const uint8_t *buf, size_t size, uint64_t *ret_address);

/* The GUID at VGIA + VMGENID_GUID_OFFSET, given the 16 bytes there. An all
 * zero GUID is no generation (-ENODATA): nothing a hypervisor hands out. */
int vmgenid_guid_parse(const uint8_t *buf, size_t size, VmGeneration *ret);

/* struct vmclock_abi as read from /dev/vmclock0. 0 and the generation;
 * -EBADMSG (not a vmclock structure, or truncated), -EAGAIN (an update in
 * progress: seq_count odd), -EOPNOTSUPP (a vmclock without the generation
 * counter). */
int vmclock_abi_parse(const uint8_t *buf, size_t size, VmGeneration *ret);

/* What a seed file stores: BLAKE2s-256 keyed with "entropy-gate vm
 * generation v1" over the source and the id, so that the file does not
 * disclose the id (which Hyper-V's guests treat as a secret of sorts), and
 * two sources never compare equal. NULL or VM_GENERATION_NONE: all zero. */
#define VM_GENERATION_BINDING_SIZE 32U
void vm_generation_binding(const VmGeneration *g, uint8_t ret[static VM_GENERATION_BINDING_SIZE]);
bool vm_generation_binding_is_none(const uint8_t b[static VM_GENERATION_BINDING_SIZE]);

/* ---- Reading it (vm-generation-read.c) ---- */

/* Where the running system exposes the sources. The paths are the running
 * system's own, never taken inside --root=: the generation is a property of
 * the VM this process runs in, not of a tree. */
typedef struct VmGenerationPaths {
        const char *vmclock;         /* "/dev/vmclock0" */
        const char *acpi_tables;     /* "/sys/firmware/acpi/tables" */
        const char *mem;             /* "/dev/mem" */
} VmGenerationPaths;

/* Room for a whole path and the words around it. */
#define VM_GENERATION_WHY_MAX (PATH_MAX + 160)

/* Read the generation from @paths: vmclock's counter when the device has
 * one, else the VM Generation ID. 1 and *ret when readable; 0 when there is
 * no source at all (*ret then VM_GENERATION_NONE); -errno when a source is
 * there but cannot be read (no CAP_SYS_RAWIO for /dev/mem, a kernel in
 * lockdown, a damaged table), with the reason in @ret_why. Never logs. */
int vm_generation_read_at(const VmGenerationPaths *paths, VmGeneration *ret, char ret_why[static VM_GENERATION_WHY_MAX]);

/* The running system's generation: vm_generation_read_at() with the
 * system's paths. A link-time seam like pool.h: vm-generation-linux.c in
 * the binaries, tests/fake/vm-generation-fake.c in their test twins. */
int vm_generation_read(VmGeneration *ret, char ret_why[static VM_GENERATION_WHY_MAX]);
