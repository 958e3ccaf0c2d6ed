/* The klab binary in the background, for tests that signal or kill it while it works: start it,
 * read its output until a line shows, find its worker, wait for it with a limit, and see whether a
 * process is gone. A test that uses these should make itself the subreaper of klab's orphans
 * (PR_SET_CHILD_SUBREAPER), so that a worker outliving klab can be waited for and killed. */
#ifndef KLAB_BG_H
#define KLAB_BG_H

#include <stddef.h>
#include <sys/types.h>

typedef struct bg {
    pid_t pid;
    int fd;           /* klab's stdout and stderr together */
    char out[1 << 16];
    size_t len;
} bg;

void kb_sleep(double s);

/* Starts KLAB_EXE with args (NULL-terminated) in kr_tmp, as kr_run does, without waiting. */
void bg_start(bg *b, const char *const *args);
#define BG(b, ...) bg_start(b, (const char *const[]){__VA_ARGS__, NULL})

/* Reads klab's output for at most `secs`: 1 once `text` is in it, 0 if not by then, -1 at its end
   without it. text NULL: read to the end. */
int bg_read(bg *b, const char *text, double secs);

/* klab's exit status (128 + signal if killed), waiting at most `secs`; -1 if it had to be killed.
   Echoes its output as TAP comments. */
int bg_wait(bg *b, double secs);

/* The child of `parent` (klab's worker), looked for in /proc for at most `secs`; 0 if none. */
pid_t child_of(pid_t parent, double secs);

/* 1 when `pid` is gone within `secs` (*status: its wait status if it was reaped here, else -1); 0
   if not, after killing it so that no test leaves one behind. */
int gone_within(pid_t pid, double secs, int *status);

#endif
