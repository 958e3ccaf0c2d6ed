/* The records klab merge joins (merge.h): the rows of <plugin>.csv and the lines of
 * <plugin>.counters.csv across runs, each kept once by its key. A record is kept as the text the
 * reader checked (csv_read.h), so a merge writes back exactly what it read: nothing cut, nothing
 * filled in. A key seen twice with the same text is one record; with other text, a refusal. Keys go
 * through a hash table, so n records take O(n) to join and O(n log n) to order. */
#ifndef KLAB_MERGE_ROWS_H
#define KLAB_MERGE_ROWS_H

#include <stddef.h>
#include <stdint.h>

#define MERGE_ROWS_REFUSED (-2) /* the inputs disagree or cannot be trusted: nothing is to be written */

typedef struct merge_rec {
    char *all;          /* the cells, each NUL-terminated, one after the other */
    size_t len;         /* bytes of all */
    char *key;          /* the key's cells, likewise */
    size_t keylen;
    uint64_t h;         /* the key's hash */
    int ncell;
    const char *sort[3]; /* the cells the file is ordered by (case, dtype, GPU), inside all */
    const char *from;   /* the run folder it came from first */
    long order;         /* as found: the tie-break of the order */
} merge_rec;

typedef struct rec_set {
    merge_rec *r;
    size_t n, cap;
    struct rec_block *text; /* the records' text, in blocks that never move (merge_rows.c) */
    size_t *slot;       /* open addressing: 1 + a record's index, 0 empty */
    size_t nslot;       /* a power of two, at least twice n */
} rec_set;

/* Adds the rows of a klab CSV (its header exactly this klab's schema). 0; MERGE_ROWS_REFUSED with
   the reason (a file the reader refuses, another header, a key with two results); -1 out of memory. */
int merge_read_rows(rec_set *s, const char *path, const char *from, char *err, size_t errlen);

/* Adds the lines of a counters file (key: the row's key and kernel_index). Returns as above. */
int merge_read_counters(rec_set *s, const char *path, const char *from, char *err, size_t errlen);

/* Reads file `name` of every run (a rows CSV, or with `counters` a counters file; a run without it is
   passed over) into s: the runs' files on as many threads as there are CPUs, joined in the runs' order,
   so s is what reading them one after another gives. Returns as merge_read_rows. */
int merge_read_all(rec_set *s, const char *const *dirs, int nruns, const char *name, int counters, char *err,
                   size_t errlen);

/* Writes the set, ordered by (case, dtype, GPU) then as found, through csv_sink (whole, renamed into
   place). header: ncols names. 0, or -1 with the reason. */
int merge_write_set(rec_set *s, const char *path, const char *const *header, int ncols, char *err, size_t errlen);

void merge_free_set(rec_set *s);

#endif
