// SPDX-License-Identifier: LGPL-2.1-or-later
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io-util.h"
#include "macro.h"
#include "vm-generation.h"

/* An SSDT is a few hundred bytes to a few dozen KiB; the VMGENID one is
 * about 200. Anything larger is not read whole. */
#define SSDT_MAX (256U * 1024U)
#define VMCLOCK_READ_MAX 4096U
#define VMCLOCK_TRIES 4

/* The reason, then ": " and what -@r means. Returns @r. */
_printf_(3, 4)
static int why(char ret_why[static VM_GENERATION_WHY_MAX], int r, const char *format, ...) {
        va_list ap;
        size_t n;

        va_start(ap, format);
        (void) vsnprintf(ret_why, VM_GENERATION_WHY_MAX, format, ap);
        va_end(ap);
        n = strlen(ret_why);
        (void) snprintf(ret_why + n, VM_GENERATION_WHY_MAX - n, ": %s", strerror(-r));
        return r;
}

/* 1 and *ret, 0 no device or one without a generation counter, -errno. */
static int vmclock_read(const char *path, VmGeneration *ret, char ret_why[static VM_GENERATION_WHY_MAX]) {
        _cleanup_close_ int fd = -EBADF;
        uint8_t buf[VMCLOCK_READ_MAX];
        int r = -EAGAIN;

        fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
                if (errno == ENOENT || errno == ENODEV || errno == ENXIO)
                        return 0;
                return why(ret_why, -errno, "cannot open %s", path);
        }
        /* The driver copies the structure under its sequence lock; an odd
         * count means the hypervisor was updating it: read again. */
        for (int i = 0; i < VMCLOCK_TRIES && r == -EAGAIN; i++) {
                ssize_t n = pread(fd, buf, sizeof(buf), 0);

                if (n < 0)
                        return why(ret_why, -errno, "cannot read %s", path);
                r = vmclock_abi_parse(buf, (size_t) n, ret);
        }
        if (r == -EOPNOTSUPP)
                return 0;
        if (r < 0)
                return why(ret_why, r, "%s does not hold a usable vmclock structure", path);
        return 1;
}

/* 0 and the VGIA address, -ENOENT when no table is the VMGENID one. */
static int vmgenid_address_find(const char *dir, uint64_t *ret, char ret_why[static VM_GENERATION_WHY_MAX]) {
        _cleanup_close_ int dfd = -EBADF;
        DIR *d;
        int r = -ENOENT;

        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dfd < 0)
                return errno == ENOENT ? -ENOENT : why(ret_why, -errno, "cannot open %s", dir);
        d = fdopendir(dfd);
        if (!d)
                return why(ret_why, -errno, "cannot list %s", dir);
        dfd = -EBADF;    /* now d's */

        while (r == -ENOENT) {
                _cleanup_close_ int fd = -EBADF;
                uint8_t header[ACPI_TABLE_HEADER_SIZE];
                struct dirent *de;
                uint8_t *buf;
                ssize_t n;

                n = dir_next(d, &de);
                if (n == 0)
                        break;
                if (n < 0) {
                        /* Not "no VMGENID table": one may be in what we
                         * could not list. */
                        r = why(ret_why, (int) n, "cannot list %s", dir);
                        break;
                }

                /* SSDT, SSDT1, SSDT2, ... (sysfs numbers the second and later). */
                if (strncmp(de->d_name, "SSDT", 4) != 0)
                        continue;
                fd = open_nofollow_at(dirfd(d), de->d_name, NULL);
                if (fd < 0) {
                        r = why(ret_why, fd, "cannot open the ACPI table %s", de->d_name);
                        break;
                }
                /* The header says whether it is the one: a large table of
                 * something else is never read whole. */
                n = loop_read(fd, header, sizeof(header));
                if (n < 0) {
                        r = why(ret_why, (int) n, "cannot read the ACPI table %s", de->d_name);
                        break;
                }
                r = vmgenid_ssdt_parse(header, (size_t) n, &(uint64_t) {0});
                if (r == -ENOENT)
                        continue;
                buf = malloc(SSDT_MAX + 1);
                if (!buf) {
                        r = why(ret_why, -ENOMEM, "cannot read the ACPI table %s", de->d_name);
                        break;
                }
                memcpy(buf, header, (size_t) n);
                n = loop_read(fd, buf + n, SSDT_MAX + 1 - (size_t) n);
                if (n < 0)
                        r = why(ret_why, (int) n, "cannot read the ACPI table %s", de->d_name);
                else if ((size_t) n + sizeof(header) > SSDT_MAX)
                        r = why(ret_why, -EFBIG, "the ACPI table %s names itself VMGENID but is larger than %u bytes",
                                de->d_name, SSDT_MAX);
                else {
                        r = vmgenid_ssdt_parse(buf, (size_t) n + sizeof(header), ret);
                        if (r == -EBADMSG)
                                (void) why(ret_why, r, "the ACPI table %s names itself VMGENID but holds no usable "
                                           "VGIA", de->d_name);
                        else if (r == -EADDRNOTAVAIL)
                                (void) why(ret_why, r, "the ACPI table %s holds no VGIA address", de->d_name);
                }
                free(buf);
        }
        closedir(d);
        return r;
}

/* The GUID at @address: mmap() of the page, as read() of /dev/mem refuses
 * (EFAULT) the firmware's reserved memory the GUID lives in. */
static int vmgenid_guid_read(const char *mem, uint64_t address, VmGeneration *ret,
                             char ret_why[static VM_GENERATION_WHY_MAX]) {
        _cleanup_close_ int fd = -EBADF;
        uint64_t at = address + VMGENID_GUID_OFFSET;
        long page = sysconf(_SC_PAGESIZE);
        uint8_t guid[VM_GENERATION_ID_SIZE];
        struct stat st;
        void *p;
        int r;

        if (page <= 0)
                page = 4096;
        fd = open(mem, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return why(ret_why, -errno, "cannot open %s to read the VM generation ID", mem);
        if (fstat(fd, &st) < 0)
                return why(ret_why, -errno, "cannot stat %s", mem);
        if (!S_ISCHR(st.st_mode) && !S_ISREG(st.st_mode))
                return why(ret_why, -EBADFD, "%s is neither a device nor a file", mem);

        uint64_t base = at & ~((uint64_t) page - 1), len = at - base + VM_GENERATION_ID_SIZE;
        if (base > (uint64_t) INT64_MAX)
                return why(ret_why, -EOVERFLOW, "the VM generation ID address is out of range for %s", mem);
        p = mmap(NULL, (size_t) len, PROT_READ, MAP_SHARED, fd, (off_t) base);
        if (p == MAP_FAILED)
                return why(ret_why, -errno, "cannot map the VM generation ID from %s", mem);
        /* A copy of the bytes the hypervisor may rewrite at any time:
         * byte by byte, never as one wider load the compiler may split. */
        for (size_t i = 0; i < VM_GENERATION_ID_SIZE; i++)
                guid[i] = ((const volatile uint8_t *) p)[at - base + i];
        (void) munmap(p, (size_t) len);

        r = vmgenid_guid_parse(guid, sizeof(guid), ret);
        if (r < 0)
                return why(ret_why, r, "the VM generation ID in %s is not usable", mem);
        return 1;
}

int vm_generation_read_at(const VmGenerationPaths *paths, VmGeneration *ret,
                          char ret_why[static VM_GENERATION_WHY_MAX]) {
        VmGeneration g = { .source = VM_GENERATION_NONE };
        uint64_t address;
        int r;

        ret_why[0] = 0;
        if (paths->vmclock) {
                r = vmclock_read(paths->vmclock, &g, ret_why);
                if (r != 0) {
                        if (r > 0)
                                *ret = g;
                        return r;
                }
        }
        if (!paths->acpi_tables || !paths->mem) {
                *ret = (VmGeneration) { .source = VM_GENERATION_NONE };
                return 0;
        }
        r = vmgenid_address_find(paths->acpi_tables, &address, ret_why);
        if (r == -ENOENT) {
                *ret = (VmGeneration) { .source = VM_GENERATION_NONE };
                return 0;
        }
        if (r < 0)
                return r;
        r = vmgenid_guid_read(paths->mem, address, &g, ret_why);
        if (r > 0)
                *ret = g;
        return r;
}
