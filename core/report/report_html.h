/* `klab report` as one self-contained HTML page: the decision matrix, then each experiment with its
 * claims and its charts (report_charts.h) inline as SVG. No script, no network, no external file:
 * the page reads the same opened from a disk, a mail or an archive. */
#ifndef KLAB_REPORT_HTML_H
#define KLAB_REPORT_HTML_H

#include <stddef.h>

#include "report/report_eval.h"

/* Writes `path`. 0, or -1 with err. */
int report_html_write(const report *r, const char *path, char *err, size_t errlen);

#endif
