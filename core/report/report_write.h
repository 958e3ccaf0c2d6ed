/* A report's files: decisions.md and the pages (report_md.h) beside report.html (report_html.h). */
#ifndef KLAB_REPORT_WRITE_H
#define KLAB_REPORT_WRITE_H

#include <stddef.h>

#include "report/report_eval.h"

/* Writes the Markdown files into out_dir and the HTML page at html (a file in out_dir), the two at
   once on two threads (each is the same bytes either way: they only read r). 0, or -1 with err: the
   Markdown's error when both failed. A Markdown page that cannot be written once the folders are
   made (a full disk) no longer keeps the HTML page from being written. */
int report_write_all(const report *r, const char *out_dir, const char *html, char *err, size_t errlen);

#endif
