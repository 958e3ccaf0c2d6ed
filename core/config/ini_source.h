/* The bytes of an INI file, read whole and bounded before inih sees any of them: only a regular file
 * of at most INI_SOURCE_MAX bytes is read (a directory, a FIFO or /dev/zero is refused by its type,
 * so nothing waits on it or reads it forever), and a UTF-8 byte order mark at its start is dropped.
 * The file is then handed out a line at a time, and each line checked for bytes that are not text;
 * what the text means is ini_config's business. */
#ifndef KLAB_INI_SOURCE_H
#define KLAB_INI_SOURCE_H

#include <stddef.h>

#define INI_SOURCE_MAX (1u << 20) /* far above any experiment; "INI files over 1 MiB are refused" */

typedef struct ini_source {
    char *text; /* the file without its BOM, NUL-terminated (a NUL inside it is data) */
    size_t len, pos;
} ini_source;

/* Reads `path` into s. Returns 0, or -1 with "path: why" in err. */
int ini_source_open(ini_source *s, const char *path, char *err, size_t errlen);

/* The next line without its line ending ("\n" or "\r\n"), NUL-terminated in line[cap]. Returns its
   length in the file (more than cap - 1 when it was cut to fit), or -1 after the last line. */
long ini_source_line(ini_source *s, char *line, size_t cap);

/* The offset of the first byte of line[0..n) that may not stand in an INI file, or -1. An INI file
   is UTF-8 text whose only control character is tab: a NUL would end a value where C reads it
   ("4096\0x8192" would run as 4096), and a control character would reach the terminal in messages. */
long ini_source_bad_byte(const char *line, long n);

/* That byte in words for an error ("NUL byte", "control character \x1b") in buf; returns why it
   may not stand there, to follow the error: " (an INI file is text)". */
const char *ini_source_byte_name(unsigned char b, char *buf, size_t len);

void ini_source_close(ini_source *s);

#endif
