#include "config/ini_source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/text.h"

static const char *file_kind(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
         : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

int ini_source_open(ini_source *s, const char *path, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    /* O_NONBLOCK: opening a FIFO must not wait for a writer before its type can be refused */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: is %s, not an INI file", path, file_kind(st.st_mode));
        close(fd);
        return -1;
    }
    if (st.st_size > (off_t)INI_SOURCE_MAX) {
        snprintf(err, errlen, "%s: %lld bytes: INI files over 1 MiB are refused", path, (long long)st.st_size);
        close(fd);
        return -1;
    }
    /* one byte more than the limit: a file that grows while it is read is still refused */
    size_t cap = (size_t)st.st_size + 1;
    if (cap > INI_SOURCE_MAX + 1)
        cap = INI_SOURCE_MAX + 1;
    s->text = malloc(cap + 1);
    if (!s->text) {
        snprintf(err, errlen, "%s: out of memory", path);
        close(fd);
        return -1;
    }
    size_t len = 0;
    for (;;) {
        if (len == cap) {
            if (cap > INI_SOURCE_MAX)
                break;
            cap = INI_SOURCE_MAX + 1; /* it grew since fstat: read on up to the limit */
            char *p = realloc(s->text, cap + 1);
            if (!p) {
                snprintf(err, errlen, "%s: out of memory", path);
                close(fd);
                ini_source_close(s);
                return -1;
            }
            s->text = p;
        }
        ssize_t got = read(fd, s->text + len, cap - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
            close(fd);
            ini_source_close(s);
            return -1;
        }
        if (got == 0)
            break;
        len += (size_t)got;
    }
    close(fd);
    if (len > INI_SOURCE_MAX) {
        snprintf(err, errlen, "%s: more than %u bytes: INI files over 1 MiB are refused", path, INI_SOURCE_MAX);
        ini_source_close(s);
        return -1;
    }
    s->text[len] = 0;
    s->len = len;
    /* a UTF-8 byte order mark, as some Windows editors write: not part of the first line */
    if (len >= 3 && memcmp(s->text, "\xef\xbb\xbf", 3) == 0)
        s->pos = 3;
    return 0;
}

long ini_source_line(ini_source *s, char *line, size_t cap)
{
    if (s->pos >= s->len)
        return -1;
    const char *b = s->text + s->pos;
    const char *nl = memchr(b, '\n', s->len - s->pos);
    size_t n = nl ? (size_t)(nl - b) : s->len - s->pos;
    s->pos += n + (nl ? 1 : 0);
    if (n > 0 && b[n - 1] == '\r')
        n--;
    size_t keep = n < cap ? n : cap - 1;
    memcpy(line, b, keep);
    line[keep] = 0;
    return (long)n;
}

long ini_source_bad_byte(const char *line, long n)
{
    for (long i = 0; i < n;) {
        if (line[i] == '\t') {
            i++;
            continue;
        }
        size_t k = text_plain_length(line + i); /* stops at a NUL too */
        if (k == 0)
            return i;
        i += (long)k;
    }
    return -1;
}

const char *ini_source_byte_name(unsigned char b, char *buf, size_t len)
{
    if (b == 0) {
        snprintf(buf, len, "NUL byte");
        return " (an INI file is text)";
    }
    snprintf(buf, len, b < 0x80 ? "control character \\x%02x" : "byte \\x%02x", b);
    return b < 0x80 ? " (tab is the only one allowed)" : " (not UTF-8, or a C1 control character)";
}

void ini_source_close(ini_source *s)
{
    free(s->text);
    s->text = NULL;
    s->len = s->pos = 0;
}
