#include "wire.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

static int write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *p, size_t n)
{
    char *c = p;
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, c + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            return got == 0 ? 0 : -1;
        got += (size_t)r;
    }
    return 1;
}

int wire_send(int fd, wire_type type, const void *payload, uint32_t length)
{
    wire_header h = {WIRE_MAGIC, WIRE_VERSION, (uint16_t)type, length};
    if (write_all(fd, &h, sizeof h) != 0)
        return -1;
    return length ? write_all(fd, payload, length) : 0;
}

int wire_recv(int fd, wire_header *h, void *buf, size_t cap)
{
    int rc = read_all(fd, h, sizeof *h);
    if (rc <= 0)
        return rc;
    if (h->magic != WIRE_MAGIC || h->version != WIRE_VERSION || h->length > cap)
        return -1;
    if (h->length && read_all(fd, buf, h->length) != 1)
        return -1;
    return 1;
}
