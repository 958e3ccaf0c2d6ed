/* `klab report`'s verdicts, worked out once for every writer (Markdown, HTML, the terminal): each
 * experiment's claims over the runs given, its status, and each decision's status over the claims of
 * the experiments it names (claims.h says how a status is reached). */
#ifndef KLAB_REPORT_EVAL_H
#define KLAB_REPORT_EVAL_H

#include <stddef.h>
#include <stdio.h>

#include "evidence/run_set.h"
#include "report/claims.h"
#include "report/experiment.h"
#include "report/scope.h"

typedef struct report_exp {
    const exp_experiment *e;
    claim_result claims[EXP_MAX_CLAIMS];
    row_scope scope; /* its rows, over every run */
    int rows;        /* scope.n */
    row_scope shown; /* the rows its tables and charts show: scope, or SCOPE_SHOWN_MAX of it */
    evidence_status status;
    int plugin_page; /* a plugin's page: every row of it, no claims (report.plugins) */
} report_exp;

typedef struct report_dec {
    const exp_decision *d;
    evidence_status status;
    int rows;
} report_dec;

/* Every plugin in the runs gets a page, whether or not an experiment names it: an experiment made for
   it with no claims and no scope but the plugin (status Measured), so the same writers draw its rows,
   charts and counters. */
typedef struct report {
    const exp_set *set;
    const run_set *runs;
    report_exp *exps; /* set->nexps, in its order */
    report_dec *decs; /* set->ndecs */
    exp_experiment *plugin_exps; /* nplugins, in the order the runs first hold them */
    report_exp *plugins;
    int nplugins;
    scope_spans spans; /* the runs' rows by plugin, for finding each page's scope */
} report;

/* 0, or -1 when out of memory. */
int report_eval(report *r, const exp_set *set, const run_set *runs);
void report_free(report *r);

const report_exp *report_find(const report *r, const char *name);

/* The page of plugin `name`, or NULL. */
const report_exp *report_find_plugin(const report *r, const char *name);

/* "case dtype profile", and " · run" when the set holds several runs. */
void report_row_label(const report *r, int run, const klab_row *row, char *buf, size_t len);

/* The instances of a claim with `verdict`, grouped by case: "16384x8192 (fp16, bf16), ragged (fp32)";
   at most `max` cases named, then "and N more". Empty when there are none. */
void report_cases_with(const report *r, const claim_result *c, claim_verdict verdict, int max, char *buf,
                       size_t len);

/* A claim's figures, the range of its instances' values: "speedup_lo vs torch.compile 0.972–1.091". */
void report_claim_figure(const exp_claim *claim, const claim_result *c, char *buf, size_t len);

/* The claim's figure, how many cases met, then the cases not met and those undecided (at most `max`
   named each): "speedup_lo 0.97–1.09; 12 of 15 cases met; not met at ragged (fp16); undecided at ...". */
void report_claim_summary(const report *r, const exp_claim *claim, const claim_result *c, int max, char *buf,
                          size_t len);

/* The figure of an experiment without claims: its rate's range over the passed rows in scope. */
void report_measured_figure(const report *r, const report_exp *x, char *buf, size_t len);

/* What a page says of the rows its tables and charts leave out (x->shown, scope.h): how many of how
   many it shows, and that the CSVs hold the rest and the claims went over every row. 0 and an empty
   buf when it shows them all, as every run of a real size is shown; else 1. */
int report_left_out(const report *r, const report_exp *x, char *buf, size_t len);

/* ---- counters on a page (run_set.h joins them to the rows) ---- */

/* The sentence a page's counters open with. */
extern const char report_counters_intro[];

/* One kernel of a profiled row as a page shows it: its name without parameter list or "void "
   ("row_kernel<RmsOp<__half, 0, 1>, 4, 0, 1>"), grid, block, and each counter ("53.4"; "—" where ncu
   gave none) in ncu_metrics' order. */
typedef struct report_kernel_cells {
    char name[200], grid[32], block[32];
    char v[NCU_NMETRICS][24];
} report_kernel_cells;

/* Writes a page's counters through fn, once per row x's page shows (x->shown) that a counters line names, in the
   runs' order: its label, what the page says beside it ("median 19.76 µs · 3397 GB/s; ncu measured 1
   kernel", or "...; no counters: ncu refused: why"), its nk kernels; first is 1 for the first row. */
typedef void (*report_counters_fn)(FILE *fp, int first, const char *label, const char *head,
                                   const report_kernel_cells *k, int nk);
void report_counters_each(FILE *fp, const report *r, const report_exp *x, report_counters_fn fn);

/* Writes `path` through fn(fp, r, arg): the one open, check and close of a report's files, the Markdown
   pages and the HTML page alike. 0, or -1 with err. */
typedef void (*report_page_fn)(FILE *fp, const report *r, const void *arg);
int report_write_file(const char *path, report_page_fn fn, const report *r, const void *arg, char *err, size_t errlen);

#endif
