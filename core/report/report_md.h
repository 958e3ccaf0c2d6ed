/* `klab report` as Markdown: the decision matrix (decisions.md) and one page per experiment
 * (experiments/NAME.md), computed from the runs given, beside the seed's own calls kept as history. */
#ifndef KLAB_REPORT_MD_H
#define KLAB_REPORT_MD_H

#include <stddef.h>
#include <stdio.h>

#include "report/report_eval.h"

/* The matrix; pages_dir is how its links reach the pages ("experiments"). */
void report_md_matrix(FILE *fp, const report *r, const char *pages_dir);

/* One experiment's page; matrix is how it links back ("../decisions.md"). */
void report_md_page(FILE *fp, const report *r, const report_exp *x, const char *matrix);

/* The runs the report drew on, one list item each (shared with the HTML page's header). */
void report_md_runs(FILE *fp, const report *r);

/* Writes out_dir/decisions.md and out_dir/experiments/NAME.md. 0, or -1 with err. */
int report_md_write(const report *r, const char *out_dir, char *err, size_t errlen);

#endif
