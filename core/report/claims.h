/* Claims judged over a run's CSV rows (docs/report.md), and the statuses they give.
 *
 * A metric with a 95 % interval (median_ms, speedup, gbps, tflops, frac_limit, and a ratio of two of
 * them) is judged on the interval: met when all of it satisfies the rule, failed when none of it does,
 * open ("too noisy") when it straddles the number. Any other column is a number: met or failed. A row
 * that did not pass, is flagged, has few samples or lacks the value leaves the instance open, with the
 * reason: never a silent pass. A counter column (dram_pct, registers, ...) reads the row's maximum over
 * its kernels in the run's counters file (run_set.h), a plain number; a row without counters is open,
 * saying why (not profiled, or ncu's status and reason). A row flagged `quick` (klab --quick) never
 * decides: it is open, and set aside where a full row of the same case decides. Each open instance
 * carries what it lacks (claim_gap), so a report can name the remedy. The rule's grammar: claim_rule.h. */
#ifndef KLAB_CLAIMS_H
#define KLAB_CLAIMS_H

#include <stddef.h>

#include "evidence/row.h"
#include "report/claim_rule.h"
#include "report/scope.h"

typedef enum claim_verdict { VERDICT_MET, VERDICT_FAILED, VERDICT_OPEN } claim_verdict;

/* The status of a claim, an experiment and a decision (docs/report.md says how each is reached). */
typedef enum evidence_status {
    EV_SUPPORTED,
    EV_CAVEATED,
    EV_REJECTED,
    EV_MEASURED,
    EV_UNDECIDED,   /* rows exist, but none decides: flagged, unverified, too noisy */
    EV_NO_EVIDENCE, /* no row in the runs given */
} evidence_status;

const char *evidence_status_name(evidence_status s);

/* What an open instance lacks, or why a claim has none: each names its own remedy (report_gaps.h). */
typedef enum claim_gap {
    GAP_NONE,      /* decided: met or not met */
    GAP_PLUGIN,    /* no row of the experiment's plugin in the runs */
    GAP_ROWS,      /* the plugin's rows are there, but none the claim picks (its cases, dtypes, profiles) */
    GAP_TORCH,     /* the PyTorch row it is judged against (or picks) is missing */
    GAP_PAIR,      /* klab's own row it is judged against is missing */
    GAP_PROFILING, /* the row was not profiled: no counters */
    GAP_NCU,       /* ncu ran but gave no counters (refused, no kernels, ...) */
    GAP_SAMPLES,   /* too few samples, or an interval too wide to decide */
    GAP_QUICK,     /* a quick run's row (klab --quick): shown, never deciding */
    GAP_ROW,       /* the row, or the one it is judged against, did not pass */
    GAP_UNTIMED,   /* set up and verified, not timed (verify-only) */
    GAP_VALUE,     /* the CSV has no value of the metric */
    GAP_COUNT
} claim_gap;

typedef struct claim_instance {
    int run;                 /* index in the run set */
    const klab_row *row;     /* the subject */
    const klab_row *vs_row;  /* the row it is re-based on, or NULL */
    claim_verdict verdict;
    claim_gap gap;           /* open: what it lacks; else GAP_NONE */
    int has_value, has_interval;
    double value, lo, hi;
    char why[200];           /* open or failed: in words (failed: the figure, its interval, the number, the margin) */
} claim_instance;

typedef struct claim_result {
    int n, met, failed, open;
    claim_instance *inst; /* n of them, malloc'd; then `aside` more */
    int aside;            /* quick rows set aside: a full row of the same plugin, case, dtype and profile decides */
    claim_gap none_gap;   /* n == 0: why no row (GAP_PLUGIN, GAP_ROWS or GAP_TORCH) */
    evidence_status status;
} claim_result;

struct run_set;
struct exp_experiment;

/* 1 when `profile` is PyTorch's (tools/torch_rows.py, klab --with-torch): a row of it in the runs is
   flagged external; with none in the runs, its name says so (torch..., F....). */
int claims_torch_profile(const struct run_set *runs, const char *profile);

/* Evaluates claim `k` of `e` over every row of every run. 0, or -1 when out of memory. */
int claims_eval(const struct exp_experiment *e, int k, const struct run_set *runs, claim_result *out);

/* The same over the rows of e's scope, found once beforehand (scope_find). */
int claims_eval_in(const struct exp_experiment *e, int k, const struct run_set *runs, const row_scope *scope,
                   claim_result *out);

void claim_result_free(claim_result *c);

/* A claim's status from its counts: none → no evidence; all met → supported; some met → caveated;
   none met, some failed → rejected; all open → undecided. */
evidence_status claims_status(int n, int met, int failed, int open);

/* Several claims' statuses together (an experiment's, a decision's): every claim supported →
   supported; none met anywhere but some failed → rejected; none decided → undecided; no claim with
   rows → no evidence; else caveated. nclaims 0: measured when rows > 0, else no evidence. */
evidence_status claims_combine(const claim_result *const *claims, int nclaims, int rows);

#endif
