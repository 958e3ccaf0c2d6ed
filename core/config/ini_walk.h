/* An INI file handed to inih a checked line at a time (ini_source), with what inih itself does not
 * say: the line each key stands on, the section header's own line, and whether a value continues the
 * key above it (an indented line). For the INI files whose keys are free prose or rules (experiments,
 * decisions), meta.ini and the tuning cache; ini_config.c hands the same checked lines (ini_source) to
 * inih itself, for the run INIs.
 *
 * Refused, each with "path:line: why": a line over INI_WALK_LINE characters (unless the caller asks
 * for long lines to be cut, as a display of meta.ini may), a byte that is not text, a section header
 * without ']', a key before any section, and what inih calls a syntax error. */
#ifndef KLAB_INI_WALK_H
#define KLAB_INI_WALK_H

#include <stddef.h>

#define INI_WALK_LINE 196 /* inih's own buffer (INI_MAX_LINE, 200 in Debian's build) must hold it */

typedef struct ini_walk_ops {
    /* A section header "[name]" on `line`. Returns 0, or -1 with the reason in why (the walk stops). */
    int (*section)(void *user, int line, const char *name, char *why, size_t whylen);
    /* key = value on `line`; continued: an indented line that continues the key above it (value is
       that line's text alone). Returns 0, or -1 with the reason in why. */
    int (*key)(void *user, int line, const char *key, const char *value, int continued, char *why,
               size_t whylen);
} ini_walk_ops;

enum { INI_WALK_CUT_LONG = 1 }; /* cut an over-long line to fit instead of refusing it */

/* Walks `path`. Returns 0, or -1 with "path:line: why" (or "path: why") in err. */
int ini_walk(const char *path, const ini_walk_ops *ops, void *user, int flags, char *err, size_t errlen);

#endif
