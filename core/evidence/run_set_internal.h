/* What run_set.c (the folders) and run_join.c (the joins over a run's rows) share, and nobody else. */
#ifndef KLAB_RUN_SET_INTERNAL_H
#define KLAB_RUN_SET_INTERNAL_H

#include <stddef.h>

#include "evidence/run_set.h"

/* Joins a counters file's lines to r's rows; what it passed over, in words, in why ("" for nothing):
   a file the reader refuses joins nothing. */
void run_join_counters(run_dir *r, const char *file, char *why, size_t whylen);

/* Indexes r's rows for run_set_vs: 0, or -1 when out of memory (run_set_vs then finds nothing). */
int run_join_siblings(run_dir *r);

/* Lists r's profiles for run_set_profile_first: 0, or -1 when out of memory (it then scans the rows). */
int run_join_profiles(run_dir *r);

#endif
