/* Files from outside klab's control (a run folder read back, a samples file, a meta.ini) opened so that
 * no name can make a reader wait or read forever: only a regular file is opened (a FIFO named *.csv
 * would block on its writer; a link to /dev/zero never ends), and a whole-file read stops at a limit
 * the caller gives. Errors are one sentence naming the file. */
#ifndef KLAB_FILE_READ_H
#define KLAB_FILE_READ_H

#include <stddef.h>
#include <sys/types.h>

/* Opens `path` for reading when it is a regular file (a link is followed to what it names). Returns the
   descriptor and its size at opening in *size, or -1 with "path: why" in err and errno set (EINVAL
   for a file of another kind, EISDIR for a folder). */
int file_open_regular(const char *path, off_t *size, char *err, size_t errlen);

/* The whole regular file, NUL-terminated (malloc'd; *len without the NUL), when it holds at most `max`
   bytes (also when it grows while read); NULL with "path: why" in err and errno set (EFBIG over the
   limit). A NUL inside is data: *len tells where the file ends. */
char *file_read_whole(const char *path, size_t max, size_t *len, char *err, size_t errlen);

#endif
