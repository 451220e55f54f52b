// SPDX-License-Identifier: LGPL-2.1-or-later
/* entropyctl credential [--format=FORMAT] [--bits=N] [--output=FILE]
 * [--json=]: a fresh seed for one machine, as the system credential
 * entropy-gate.seed in the form its hypervisor or tool takes; entropy-seed
 * credits it on that machine's boot, once. With --json= that text is the
 * "credential" member of an object that names the format and size. */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "credential.h"
#include "credential-format.h"
#include "ctl.h"
#include "io-util.h"
#include "log.h"
#include "macro.h"
#include "pool.h"

/* A new file only root can read: never over an existing file or through
 * a symlink someone else left there (O_EXCL), and on the disk before the
 * hypervisor that is started next reads it. Made, and on failure removed,
 * in the one directory opened first: a directory on the way swapped for a
 * symlink meanwhile cannot make the removal take a file elsewhere. */
static int write_new_file(const char *path, const void *buf, size_t size) {
        _cleanup_close_ int dfd = -EBADF, fd = -EBADF;
        const char *slash = strrchr(path, '/'), *name = path;
        int r;

        /* "dir/" names no file: open() below says so. */
        if (slash && slash[1]) {
                _cleanup_free_ char *dir = strndup(path, (size_t) (slash - path) + 1);

                if (!dir)
                        return -ENOMEM;
                dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
                if (dfd < 0)
                        return negative_errno();
                name = slash + 1;
        }
        fd = openat(dfd >= 0 ? dfd : AT_FDCWD, name,
                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
        if (fd < 0)
                return negative_errno();
        r = loop_write(fd, buf, size);
        if (r >= 0)
                r = RET_NERRNO(fsync(fd));
        if (r >= 0)
                r = RET_NERRNO(close(TAKE_FD(fd)));
        if (r < 0)
                (void) unlinkat(dfd >= 0 ? dfd : AT_FDCWD, name, 0);
        return r;
}

/* The object --json= prints, into @buf of @size bytes: no stdio buffer or
 * heap copy of the seed is left behind (the caller erases @buf). Its
 * length, or -ENOBUFS. */
static ssize_t format_json(char *buf, size_t size, JsonFormat format, CredentialFormat f, size_t bits,
                           const char *text) {
        JsonWriter j;
        FILE *m;
        long n;

        m = fmemopen(buf, size, "w");
        if (!m)
                return negative_errno();
        (void) setvbuf(m, NULL, _IONBF, 0);
        json_init(&j, m, format);
        json_object_begin(&j, NULL);
        json_int(&j, "schema_version", 1);
        json_string(&j, "name", CREDENTIAL_NAME);
        json_string(&j, "format", credential_format_to_string(f));
        json_uint(&j, "bits", bits);
        json_string(&j, "credential", text);
        json_object_end(&j);
        n = ferror(m) ? -1 : ftell(m);
        /* fmemopen() keeps a NUL after what was written: room for it too. */
        if (fclose(m) != 0 || n < 0 || (size_t) n >= size)
                return -ENOBUFS;
        return (ssize_t) n;
}

int verb_credential(int argc, char *argv[], const CtlArgs *a) {
        CredentialFormat f = a->format >= 0 ? a->format : CREDENTIAL_FORMAT_QEMU_SMBIOS;
        size_t size = (a->bits ?: CREDENTIAL_BITS_DEFAULT) / 8;
        uint8_t seed[CREDENTIAL_BITS_MAX / 8];
        char text[CREDENTIAL_TEXT_MAX], json[2 * CREDENTIAL_TEXT_MAX];
        const char *out = text;
        struct stat st;
        ssize_t n;
        int r, ret = CTL_EXIT_FAILURE;

        if (f == CREDENTIAL_FORMAT_CLOUD_INIT) {
                log_error("cloud-init cannot deliver the seed: it runs after entropy-seed.service, so a first boot "
                          "would never see it. Pass the SMBIOS string (--format=libvirt, virt-install or qemu-smbios) "
                          "beside cloud-init's data source instead; see entropyctl(1).");
                return CTL_EXIT_USAGE;
        }
        /* A JSON string holds text; the seed's bytes would be sometimes a
         * string, sometimes an array of numbers. */
        if (f == CREDENTIAL_FORMAT_RAW && a->json != JSON_FORMAT_OFF) {
                log_error("--format=raw is the seed's bytes, not text for JSON: use --format=hex with --json.");
                return CTL_EXIT_USAGE;
        }
        /* Bytes on a terminal are lost, or taken as its controls. */
        if (f == CREDENTIAL_FORMAT_RAW && !a->output && isatty(STDOUT_FILENO)) {
                log_error("Refusing to write the seed's bytes to a terminal: redirect standard output to a file, "
                          "or use --output=FILE.");
                return CTL_EXIT_USAGE;
        }

        /* Hex is read back whole whatever the bytes; raw bytes are not
         * always (credential_seed_survives()). 16 unlucky draws in a row
         * (p < 2^-100) mean a broken generator. */
        for (unsigned i = 0; i < 16; i++) {
                r = pool_random_bytes_initialized(seed, size);
                if (r < 0 || f != CREDENTIAL_FORMAT_RAW || credential_seed_survives(seed, size))
                        break;
                r = -EIO;
        }
        if (r == -EAGAIN) {
                log_error("This host's random pool is not initialized: no seed, its bytes could be predicted. "
                          "Ask again once 'entropyctl status' says it is.");
                goto out;
        }
        if (r < 0) {
                log_error_errno(r, "Failed to get random bytes from the kernel: %m");
                goto out;
        }

        n = credential_format(f, seed, size, text, sizeof(text));
        if (n < 0) {
                log_error_errno((int) n, "Failed to format the seed as %s: %m", credential_format_to_string(f));
                goto out;
        }
        if (a->json != JSON_FORMAT_OFF) {
                /* The text without its last newline: JSON ends its own line. */
                if (n > 0 && text[n - 1] == '\n')
                        text[n - 1] = 0;
                n = format_json(json, sizeof(json), a->json, f, size * 8, text);
                if (n < 0) {
                        log_error_errno((int) n, "Failed to write the seed as JSON: %m");
                        goto out;
                }
                out = json;
        }

        /* -q: nothing on standard output, the exit status says whether a
         * seed could be drawn; a file asked for, or JSON, is still written. */
        if (a->output)
                r = write_new_file(a->output, out, (size_t) n);
        else if (a->quiet && a->json == JSON_FORMAT_OFF)
                r = 0;
        else
                r = loop_write(STDOUT_FILENO, out, (size_t) n);
        if (r == -EEXIST && (lstat(a->output, &st) < 0 || S_ISREG(st.st_mode)))
                log_error("%s exists: a seed file is never replaced; remove it first.", a->output);
        else if (r == -EEXIST)
                /* /dev/null, /dev/stdout, a FIFO: not for anyone to remove. */
                log_error("%s is %s, not a file: a seed is written to a new file only; name one.", a->output,
                          inode_type_to_string(st.st_mode));
        else if (r < 0)
                log_error_errno(r, "Failed to write the seed to %s: %m", a->output ?: "standard output");
        else
                ret = CTL_EXIT_OK;
out:
        erase(seed, sizeof(seed));
        erase(text, sizeof(text));
        erase(json, sizeof(json));
        return ret;
}
