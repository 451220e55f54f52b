// SPDX-License-Identifier: LGPL-2.1-or-later
/* The facts of provenance.h, read inside the root (root.h), so that tests
 * hand over a constructed /proc, /sys, /boot and /dev. Every file is opened
 * through the resolver without following a last symlink, non-blocking and
 * close-on-exec, read once into a bounded buffer; its text is kept as bytes
 * and escaped by whoever prints it. What cannot be read stays unknown. */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "daemons.h"
#include "io-util.h"
#include "macro.h"
#include "metrics.h"
#include "proc-cmdline.h"
#include "provenance.h"
#include "root.h"

#define SYSFS_VALUE_MAX 4096
#define CPUINFO_MAX (64 * 1024)           /* the first CPU's lines are all we need */
#define KERNEL_CONFIG_MAX (4 * 1024 * 1024)

/* A small kernel file (sysfs, a module parameter) into @buf, one read,
 * cut to fit (a longer value is not the kernel's, and is shown cut),
 * trailing white space dropped. 0 or -errno. */
static int read_small(const char *path, char *buf, size_t size) {
        _cleanup_close_ int fd = -EBADF;
        ssize_t n;

        fd = root_open_regular(path, CHASE_NOFOLLOW, NULL);
        if (fd < 0)
                return fd;
        do
                n = read(fd, buf, size - 1);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return negative_errno();
        buf[n] = 0;
        buf[strcspn(buf, "\n")] = 0;   /* one line; a NUL inside ends it too */
        n = (ssize_t) strlen(buf);
        while (n > 0 && buf[n - 1] == ' ')
                buf[--n] = 0;
        return 0;
}

/* A small unsigned number, 0..max; -1 when not one. */
static int parse_small_uint(const char *s, int max) {
        char *end;
        unsigned long v;

        if (!s || *s < '0' || *s > '9')
                return -1;
        errno = 0;
        v = strtoul(s, &end, 10);
        if (errno != 0 || *end || v > (unsigned long) max)
                return -1;
        return (int) v;
}

/* Returns whether @key is on the command line at all: then the kernel
 * config's default does not apply, whatever the value. */
static bool trust_from_cmdline(const char *cmdline, const char *key, int *ret, TrustOrigin *ret_origin) {
        _cleanup_free_ char *v = NULL;
        int b;

        if (!cmdline || proc_cmdline_get_key(cmdline, key, &v) <= 0)
                return false;
        /* The kernel parses every occurrence in turn and keeps the value it
         * had where one does not parse: with the last one invalid, which
         * value holds is not ours to guess. */
        b = kernel_bool_parse(v);
        if (b >= 0) {
                *ret = b;
                *ret_origin = TRUST_ORIGIN_COMMAND_LINE;
        }
        return true;
}

/* /boot/config-RELEASE: the defaults the kernel was built with. */
static int kernel_config_read(char **ret) {
        _cleanup_close_ int dfd = -EBADF;
        struct utsname u;
        char name[sizeof(u.release) + 8];
        size_t size;

        if (uname(&u) < 0 || !*u.release || strchr(u.release, '/') || u.release[0] == '.')
                return -EINVAL;
        snprintf(name, sizeof name, "config-%s", u.release);
        dfd = root_open("/boot", CHASE_DIRECTORY);
        if (dfd < 0)
                return dfd;
        return read_file_at(dfd, name, KERNEL_CONFIG_MAX, READ_NUL_TERMINATE | READ_REFUSE_NUL, ret, &size, NULL);
}

static void trust_gather(ProvenanceFacts *f) {
        _cleanup_free_ char *cmdline = NULL, *config = NULL;
        bool cpu_given, bootloader_given;
        char buf[64];

        if (proc_cmdline_read(&cmdline) < 0)
                cmdline = NULL;
        cpu_given = trust_from_cmdline(cmdline, "random.trust_cpu", &f->trust_cpu, &f->trust_cpu_origin);
        bootloader_given = trust_from_cmdline(cmdline, "random.trust_bootloader", &f->trust_bootloader,
                                              &f->trust_bootloader_origin);

        if ((!cpu_given || !bootloader_given) && kernel_config_read(&config) >= 0) {
                int v;

                if (!cpu_given && (v = kconfig_bool(config, "CONFIG_RANDOM_TRUST_CPU")) >= 0) {
                        f->trust_cpu = v;
                        f->trust_cpu_origin = TRUST_ORIGIN_KERNEL_CONFIG;
                }
                if (!bootloader_given && (v = kconfig_bool(config, "CONFIG_RANDOM_TRUST_BOOTLOADER")) >= 0) {
                        f->trust_bootloader = v;
                        f->trust_bootloader_origin = TRUST_ORIGIN_KERNEL_CONFIG;
                }
        }

        /* The value in force (a module parameter, also for a built-in
         * rng_core), else what the command line asked for. */
        if (read_small("/sys/module/rng_core/parameters/default_quality", buf, sizeof buf) >= 0)
                f->default_quality = parse_small_uint(buf, 1024);
        else if (cmdline) {
                _cleanup_free_ char *v = NULL;

                if (proc_cmdline_get_key(cmdline, "rng_core.default_quality", &v) > 0)
                        f->default_quality = parse_small_uint(v, 1024);
        }
}

static void cpu_gather(ProvenanceFacts *f) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *buf = NULL;
        ssize_t n;

        fd = root_open_regular("/proc/cpuinfo", CHASE_NOFOLLOW, NULL);
        if (fd < 0)
                return;
        buf = malloc(CPUINFO_MAX + 1);
        if (!buf)
                return;
        n = loop_read(fd, buf, CPUINFO_MAX);
        if (n < 0)
                return;
        buf[n] = 0;
        if (memchr(buf, 0, (size_t) n))
                return;   /* not /proc/cpuinfo */
        f->cpu_rdrand = cpuinfo_has_flag(buf, "rdrand");
        f->cpu_rdseed = cpuinfo_has_flag(buf, "rdseed");
        if (f->cpu_rdrand < 0 || f->cpu_rdseed < 0)
                f->cpu_rdrand = f->cpu_rdseed = -1;
}

/* @src into @dst of @size bytes, cut to fit: the kernel's names are short,
 * a longer one is not the kernel's and is shown cut. */
static void copy_cut(char *dst, size_t size, const char *src) {
        size_t l = strnlen(src, size - 1);

        memcpy(dst, src, l);
        dst[l] = 0;
}

/* "none" is how the kernel says there is no current source. */
static void hwrng_gather(ProvenanceFacts *f) {
        char buf[SYSFS_VALUE_MAX];

        if (read_small("/sys/class/misc/hw_random/rng_current", buf, sizeof buf) >= 0) {
                hwrng_list_drop_none(buf);
                copy_cut(f->hwrng_current, sizeof f->hwrng_current, buf);
        }
        if (read_small("/sys/class/misc/hw_random/rng_available", buf, sizeof buf) >= 0) {
                hwrng_list_drop_none(buf);
                copy_cut(f->hwrng_available, sizeof f->hwrng_available, buf);
        }
        if (f->hwrng_current[0] && read_small("/sys/class/misc/hw_random/rng_quality", buf, sizeof buf) >= 0)
                f->hwrng_quality = parse_small_uint(buf, 1024);
}

/* The devices whose driver (vmgenid, vmclock) tells the kernel of a new VM
 * generation: their ACPI ids as QEMU, Hyper-V and others name them. */
static bool vmgenid_name(const char *n) {
        return startswith(n, "QEMUVGID") || startswith(n, "VMGENCTR") || startswith(n, "VM_GEN_COUNTER") ||
                startswith(n, "Hyper_V_Gen_Counter") || strstr(n, "VMGENID") || startswith(n, "AMZNC10C") ||
                startswith(n, "VMCLOCK");
}

static void vmgenid_gather(ProvenanceFacts *f) {
        _cleanup_close_ int dev = -EBADF, acpi = -EBADF;
        struct stat st;
        DIR *d;

        dev = root_open("/dev", CHASE_DIRECTORY);
        if (dev >= 0 && fstatat(dev, "vmclock0", &st, AT_SYMLINK_NOFOLLOW) >= 0) {
                f->vmgenid = 1;
                snprintf(f->vmgenid_device, sizeof f->vmgenid_device, "/dev/vmclock0");
                return;
        }
        acpi = root_open("/sys/bus/acpi/devices", CHASE_DIRECTORY);
        if (acpi < 0)
                return;   /* no ACPI, or no sysfs: unknown */
        d = fdopendir(acpi);
        if (!d)
                return;
        acpi = -EBADF;    /* the DIR owns it */
        for (struct dirent *de;;) {
                int r = dir_next(d, &de);

                if (r < 0)
                        break;    /* a listing cut short says nothing: unknown */
                if (r == 0) {
                        f->vmgenid = 0;
                        break;
                }
                if (vmgenid_name(de->d_name)) {
                        f->vmgenid = 1;
                        copy_cut(f->vmgenid_device, sizeof f->vmgenid_device, de->d_name);
                        break;
                }
        }
        closedir(d);
}

static int daemons_gather(ProvenanceFacts *f) {
        _cleanup_close_ int proc_fd = -EBADF;

        proc_fd = root_open("/proc", CHASE_DIRECTORY);
        if (proc_fd < 0)
                return 0;
        for (size_t i = 0; i < entropy_daemons_count; i++) {
                pid_t pids[1];
                size_t n = 0;
                int r;

                /* It saves and loads a seed, never credits by default, and exits. */
                if (streq(entropy_daemons[i].name, "systemd-random-seed"))
                        continue;
                r = process_find(proc_fd, entropy_daemons[i].process, pids, ELEMENTSOF(pids), &n);
                if (r == -ENOMEM)
                        return r;
                if (r >= 0 && n > 0) {
                        copy_cut(f->other_daemon, sizeof f->other_daemon, entropy_daemons[i].name);
                        break;
                }
        }
        return 0;
}

int provenance_facts_gather(ProvenanceFacts *ret, int crng_ready, const BootJournal *j,
                            const SeedRecord *seed, const GateRecord *gate) {
        ProvenanceFacts f;
        SeedVerdict v;
        int r;

        provenance_facts_init(&f);
        f.crng_ready = crng_ready < 0 ? -1 : crng_ready > 0;
        if (j) {
                f.crng_init_found = j->crng_init.found;
                f.crng_init_usec = j->crng_init.usec;
                f.userspace_found = j->init_run.found;
                f.userspace_usec = j->init_run.usec;
                if (j->efi_tables.found) {
                        bool rng;

                        (void) efi_tables_line(j->efi_tables.message, &rng);
                        f.bootloader_seed = rng;
                }
        }
        if (seed && seed->action >= 0) {
                f.load_recorded = true;
                f.seed_credited = seed->action == SEED_ACTION_CREDITED;
                f.seed_bits = seed->bits;
                /* Mixed in: a seed was there and written to the pool uncredited. */
                v = seed_verdict_classify(seed);
                f.seed_mixed = seed->action == SEED_ACTION_NOT_CREDITED && v != SEED_VERDICT_NO_SEED &&
                        v != SEED_VERDICT_LOCKED && v != SEED_VERDICT_ERROR &&
                        !startswith(seed->reason, "no seed directory");
                f.credential = seed->credential >= 0 ? seed->credential : CREDENTIAL_NONE;
                f.credential_bits = seed->credential_bits;
                f.load_usec = seed->boottime_usec == 0 ? RUNSTATE_UNKNOWN : seed->boottime_usec;
        }
        if (gate && gate->outcome >= 0) {
                f.gate_ran = true;
                f.gate_ready_at_start = gate->ready_at_start;
                f.gate_waited_usec = gate->waited_usec;
                /* A record that does not parse shows no samples. */
                (void) entropy_samples_parse(gate->entropy_avail, &f.gate_entropy_avail);
        }

        trust_gather(&f);
        cpu_gather(&f);
        hwrng_gather(&f);
        vmgenid_gather(&f);
        r = daemons_gather(&f);
        if (r < 0)
                return r;
        *ret = f;
        return 0;
}
