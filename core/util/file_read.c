#include "util/file_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *file_kind(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
         : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

int file_open_regular(const char *path, off_t *size, char *err, size_t errlen)
{
    /* O_NONBLOCK: opening a FIFO must not wait for a writer before its type can be refused */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(e));
        errno = e;
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(e));
        close(fd);
        errno = e;
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: is %s, not a regular file", path, file_kind(st.st_mode));
        close(fd);
        errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        return -1;
    }
    /* back to blocking reads: a regular file never waits, and plain reads need no EAGAIN loop */
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    *size = st.st_size;
    return fd;
}

char *file_read_whole(const char *path, size_t max, size_t *len, char *err, size_t errlen)
{
    off_t size;
    int fd = file_open_regular(path, &size, err, errlen);
    if (fd < 0)
        return NULL;
    if ((unsigned long long)size > max) {
        snprintf(err, errlen, "%s: %lld bytes, over the %zu-byte limit for this file", path, (long long)size, max);
        close(fd);
        errno = EFBIG;
        return NULL;
    }
    /* room for one byte more than the limit: a file that grew past it since fstat is still refused */
    size_t cap = (size_t)size < max ? (size_t)size + 1 : max + 1, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        snprintf(err, errlen, "%s: out of memory", path);
        close(fd);
        errno = ENOMEM;
        return NULL;
    }
    for (;;) {
        if (n == cap) {
            if (cap > max)
                break;
            char *p = realloc(buf, max + 2); /* it grew since fstat: read on up to the limit */
            if (!p) {
                snprintf(err, errlen, "%s: out of memory", path);
                free(buf);
                close(fd);
                errno = ENOMEM;
                return NULL;
            }
            buf = p;
            cap = max + 1;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int e = errno;
            snprintf(err, errlen, "%s: cannot read: %s", path, strerror(e));
            free(buf);
            close(fd);
            errno = e;
            return NULL;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    if (n > max) {
        snprintf(err, errlen, "%s: more than %zu bytes, over the limit for this file", path, max);
        free(buf);
        errno = EFBIG;
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}
