/* `klab report --json`: the verdicts and the decisions as one JSON document, schema klab.report/1
 * (docs/outputs.md), for a CI job or a script to read instead of the terminal's lines. */
#ifndef KLAB_REPORT_JSON_H
#define KLAB_REPORT_JSON_H

#include <stdio.h>

#include "report/report_eval.h"

#define REPORT_JSON_SCHEMA "klab.report/1"

/* klab report --fail-on: the decision statuses that fail a gate, each level including the one before. */
typedef enum report_fail_on { REPORT_FAIL_NONE, REPORT_FAIL_REJECTED, REPORT_FAIL_CAVEATED } report_fail_on;

/* 1 when a decision of status s fails the gate. */
int report_fails_on(report_fail_on f, evidence_status s);

/* Writes the document to fp: the runs, the experiment folders, where the pages went, each
   experiment's status and claims, each decision's status and roll-up, and whether the gate `fail_on`
   fails. r NULL: no experiments, runs only.
   0, or -1 when it could not be written. */
int report_json_print(FILE *fp, const report *r, const run_set *runs, const char *const *dirs, int ndirs,
                      const char *out, report_fail_on fail_on);

#endif
