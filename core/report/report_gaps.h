/* A decision's roll-up, caveat and next evidence, derived from its claims' instances (never typed in a
 * decision file, so they cannot drift from the runs):
 *   roll-up   the status and the fraction of cases met: "Caveated — 1 of 28 cases"; for No evidence and
 *             Undecided, what is missing and the run that would supply it
 *   caveat    per claim, the cases not met with the figure, its interval, the number and the margin,
 *             and the cases undecided with the reason
 *   next      per remedy (claim_gap), the cases that lack it and the command that would decide them:
 *             klab --plugin X, --with-torch, --with-profiling, more samples, a full run for quick rows
 * A "case" in these counts is one instance: one row judged against one claim (claims.h). The same
 * functions serve an experiment's page (nx = 1). Text comes back plain, commands in `backticks`, for
 * the Markdown and HTML writers to escape. */
#ifndef KLAB_REPORT_GAPS_H
#define KLAB_REPORT_GAPS_H

#include <stddef.h>

#include "report/report_eval.h"

/* The experiments a decision names, in its order, into xs (EXP_MAX_DECISION_EXPS); their count. */
int report_dec_exps(const report *r, const report_dec *d, const report_exp **xs);

/* The roll-up of status s over the claims of xs: "Caveated — 1 of 28 cases", "No evidence — plugin
   swiglu missing from the runs (`klab --plugin swiglu`)", "Undecided — 0 of 6 cases: PyTorch rows
   missing (`--with-torch`)", "Measured — 24 rows". */
void report_rollup(const report *r, const report_exp *const *xs, int nx, evidence_status s, char *buf, size_t len);

/* A line of a derived list: depth 0 an item, 1 an item under it. */
typedef void (*report_line_fn)(void *arg, int depth, const char *text);

/* The caveat: per claim with cases not met or undecided, a line, and under it each such case (at most
   `max`, then how many more). One line when there is nothing to say. */
void report_caveat(const report *r, const report_exp *const *xs, int nx, int max, report_line_fn fn, void *arg);

/* The next evidence: per remedy and plugin, the cases that lack it and the command. One line when
   nothing is missing. */
void report_next(const report *r, const report_exp *const *xs, int nx, report_line_fn fn, void *arg);

#endif
