// SPDX-License-Identifier: LGPL-2.1-or-later
/* The least a readiness gate can do on an initialized pool: one zero-length
 * getrandom(GRND_NONBLOCK) probe and one READY=1 datagram to $NOTIFY_SOCKET.
 * bench/run measures entropy-gate against this. */
#include <stddef.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <stdlib.h>
#include <unistd.h>

int main(void) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        const char *e = getenv("NOTIFY_SOCKET");
        size_t l;
        int fd;

        if (getrandom(NULL, 0, GRND_NONBLOCK) < 0)
                return 1;
        if (!e || (l = strlen(e)) >= sizeof(sa.sun_path))
                return 1;
        memcpy(sa.sun_path, e, l);
        if (sa.sun_path[0] == '@')
                sa.sun_path[0] = 0;
        fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return 1;
        if (sendto(fd, "READY=1", 7, MSG_NOSIGNAL, (struct sockaddr *) &sa,
                   (socklen_t) (offsetof(struct sockaddr_un, sun_path) + l + (e[0] != '@'))) != 7)
                return 1;
        return 0;
}
