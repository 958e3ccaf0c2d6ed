/* The rows in an experiment's scope (claims_in_scope: plugin, cases, dtypes, profiles), found once per
 * report and kept in the runs' order, rather than looked up again over every row of every run for each
 * claim, page, table and chart: over two million-row runs those passes were most of a report's time. */
#ifndef KLAB_SCOPE_H
#define KLAB_SCOPE_H

#include "evidence/run_set.h"

struct exp_experiment;

/* 1 when a row is in the experiment's scope (plugin, cases, dtypes, profiles). */
int claims_in_scope(const struct exp_experiment *e, const klab_row *r);

typedef struct scope_row {
    int run;             /* its index in the run set */
    const klab_row *row;
} scope_row;

typedef struct row_scope {
    scope_row *at; /* n of them, runs in their order, then rows in theirs; NULL when n is 0 */
    int n;
    int plugin_rows; /* the rows of the experiment's plugin, in scope or not */
} row_scope;

/* A stretch of one run's rows that share a plugin: a run holds one CSV a plugin, so a run has few. */
typedef struct scope_span {
    int run, first, n;
} scope_span;

typedef struct scope_spans {
    scope_span *at; /* in the runs' order */
    int n;
} scope_spans;

/* The runs' rows as stretches of one plugin each. 0, or -1 when out of memory. */
int scope_spans_find(const struct run_set *runs, scope_spans *out);
void scope_spans_free(scope_spans *s);

/* The plugin of a stretch's rows. */
const char *scope_span_plugin(const struct run_set *runs, const scope_span *sp);

/* e's rows among the stretches of its plugin (sp from scope_spans_find over runs). 0, or -1 when out
   of memory. */
int scope_find(const struct exp_experiment *e, const struct run_set *runs, const scope_spans *sp, row_scope *out);
void scope_free(row_scope *s);

/* The most rows an experiment's tables and charts show: far above any real run (the committed
   baseline holds some 850 rows), while a page of a million-row run's every row, drawn and tabled, is
   gigabytes no one reads. The claims are judged over every row all the same. */
#define SCOPE_SHOWN_MAX 2000

/* The rows of each run a page shows past SCOPE_SHOWN_MAX: an equal share, so runs compared side by
   side stay so. */
int scope_shown_share(int nruns);

/* The rows of `all` that the pages show: every one when there are at most SCOPE_SHOWN_MAX, else the
   first scope_shown_share(nruns) of each run, at most SCOPE_SHOWN_MAX in all, in the same order. out
   shares all's rows when it holds them all (scope_shown_free knows). 0, or -1 when out of memory. */
int scope_shown(const row_scope *all, int nruns, row_scope *out);
void scope_shown_free(const row_scope *all, row_scope *shown);

#endif
