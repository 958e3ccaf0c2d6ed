/* A run's selection in its meta.ini, [selection]: every option that decides which rows a run makes
 * and how they are measured, under the option's own name, with the value a command line would give it
 * (flags as "yes"; a repeated option, --plugin-path, once per value; paths made absolute, so they
 * mean the same from any folder):
 *     [selection]
 *     plugin = softmax,rmsnorm
 *     dtype = fp16
 *     shard = 1/4
 *     batched = yes
 *     torch = python3
 * Options at their defaults-of-nothing (no --case, no --hot) are left out. klab --resume turns the
 * section back into a command line and parses it with cli_parse, so the stored selection and a typed
 * one are the same thing. An option added to cli.c that changes rows (a budget, a quick mode) needs
 * its line in lab_selection_of and its field copied in lab_selection_apply. */
#ifndef KLAB_LAB_SELECTION_H
#define KLAB_LAB_SELECTION_H

#include <stddef.h>

#include "app/cli.h"

#define SELECTION_MAX (CLI_MAX + 24)

typedef struct lab_selection {
    int n;
    char key[SELECTION_MAX][32];
    char value[SELECTION_MAX][4200];
} lab_selection;

/* o's selection. */
void lab_selection_of(const cli_opts *o, lab_selection *s);

/* o's selection as meta.ini entries ("selection.KEY", value; run_meta_info's extras): how many. None
   when a value holds a line break, which meta.ini cannot hold (--resume then says the run has none).
   The arrays are static, valid until the next call. */
int lab_selection_entries(const cli_opts *o, const char *const **keys, const char *const **values);

/* The [selection] section of the meta.ini at `path` into *s. Returns 1 when it has one, 0 when it has
   none (a run of a klab before --resume), -1 when the file cannot be read (err). */
int lab_selection_read(const char *path, lab_selection *s, char *err, size_t errlen);

/* The value of `key` in `section` of meta.ini text at `path` ("" when absent). 0, or -1 (err). */
int lab_meta_value(const char *path, const char *section, const char *key, char *buf, size_t len, char *err,
                   size_t errlen);

/* Makes o's selection the stored one. An option the command line gives (other than its default) must
   say what the stored selection says: otherwise -1, err naming it and both values, and o unchanged.
   `stored` must outlive o (o's --plugin-path entries point into it). */
int lab_selection_apply(cli_opts *o, const lab_selection *stored, char *err, size_t errlen);

#endif
