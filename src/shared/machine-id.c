// SPDX-License-Identifier: LGPL-2.1-or-later
#include <ctype.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "io-util.h"
#include "machine-id.h"
#include "macro.h"
#include "root.h"
#include "string-table.h"

static const char *const machine_id_state_table[] = {
        [MACHINE_ID_ABSENT] = "absent",
        [MACHINE_ID_VALID] = "valid",
        [MACHINE_ID_UNINITIALIZED] = "uninitialized",
        [MACHINE_ID_EMPTY] = "empty",
        [MACHINE_ID_INVALID] = "invalid",
};

DEFINE_STRING_TABLE_TO_STRING(machine_id_state, MachineIdState)

/* 32 hex digits, not all of them zero: systemd takes the null ID for none
 * and makes a new one, but a file that keeps it (an init that does not)
 * would be the same "ID" on every machine made from the image. */
bool machine_id_is_valid(const char *s) {
        bool zero = true;
        size_t i;

        for (i = 0; s[i]; i++) {
                if (!isxdigit((unsigned char) s[i]))
                        return false;
                zero = zero && s[i] == '0';
        }
        return i == MACHINE_ID_HEX_LEN && !zero;
}

void machine_id_parse(const char *buf, size_t n, MachineId *ret) {
        MachineId m = { .state = MACHINE_ID_INVALID };
        char text[MACHINE_ID_FILE_MAX + 1];

        m.raw_size = MIN(n, sizeof(m.raw));
        memcpy(m.raw, buf, m.raw_size);

        /* One trailing newline is the file's format; nothing else is. */
        if (n > 0 && buf[n - 1] == '\n')
                n--;
        if (n >= sizeof(text) || memchr(buf, 0, n)) {
                *ret = m;
                return;
        }
        memcpy(text, buf, n);
        text[n] = 0;

        if (n == 0)
                m.state = MACHINE_ID_EMPTY;
        else if (streq(text, "uninitialized"))
                m.state = MACHINE_ID_UNINITIALIZED;
        else if (machine_id_is_valid(text)) {
                m.state = MACHINE_ID_VALID;
                for (size_t i = 0; i < MACHINE_ID_HEX_LEN; i++)
                        m.id[i] = (char) tolower((unsigned char) text[i]);
        }
        *ret = m;
}

void machine_id_read(MachineId *ret) {
        _cleanup_close_ int fd = -EBADF;
        char buf[MACHINE_ID_FILE_MAX + 2];
        size_t n = 0;
        int r;

        /* Followed: images that keep the id elsewhere link it here. Only a
         * regular file is opened for reading: a device there (a watchdog's
         * node, say) is refused without its driver ever being called. */
        fd = root_open_regular("/etc/machine-id", 0, NULL);
        if (fd == -ENOENT) {
                _cleanup_close_ int lfd = root_open_path("/etc/machine-id", CHASE_NOFOLLOW);

                /* A dangling link is an id that is elsewhere, not none. */
                if (lfd == -ENOENT) {
                        *ret = (MachineId) { .state = MACHINE_ID_ABSENT };
                        return;
                }
        }
        r = fd < 0 ? fd : read_fd_once_into(fd, MACHINE_ID_FILE_MAX, buf, &n);
        if (r < 0) {
                /* Unreadable, a dangling link's loop, a directory, a FIFO,
                 * a device, too long: there, but not an id. */
                *ret = (MachineId) { .state = MACHINE_ID_INVALID, .error = r };
                return;
        }
        machine_id_parse(buf, n, ret);
}

int boot_id_read(char ret[static MACHINE_ID_HEX_LEN + 1]) {
        _cleanup_close_ int fd = -EBADF;
        char buf[64 + 2], id[MACHINE_ID_HEX_LEN + 1];
        size_t n, k = 0;
        int r;

        fd = root_open_regular("/proc/sys/kernel/random/boot_id", CHASE_NOFOLLOW, NULL);
        if (fd < 0)
                return fd;
        r = read_fd_once_into(fd, 64, buf, &n);
        if (r < 0)
                return r;
        /* A UUID: 36 characters with dashes, and a newline. */
        for (size_t i = 0; i < n && buf[i] != '\n'; i++) {
                if (buf[i] == '-')
                        continue;
                if (!isxdigit((unsigned char) buf[i]) || k >= MACHINE_ID_HEX_LEN)
                        return -EBADMSG;
                id[k++] = (char) tolower((unsigned char) buf[i]);
        }
        if (k != MACHINE_ID_HEX_LEN)
                return -EBADMSG;
        id[k] = 0;
        memcpy(ret, id, sizeof(id));
        return 0;
}
