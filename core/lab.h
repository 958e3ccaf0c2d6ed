/* The parent's commands. Each returns an exit code (cli.h). The parent never touches CUDA or a
 * plugin itself: it finds files, parses INI, starts workers, and writes every file (the tuning cache
 * too). lab_run is in lab_run.c, the others in lab.c; both start workers through lab_worker.c. */
#ifndef KLAB_LAB_H
#define KLAB_LAB_H

#include "cli.h"

int lab_list(const cli_opts *o);
int lab_validate(const cli_opts *o);
int lab_run(const cli_opts *o);
int lab_self_test(const cli_opts *o);
int lab_report(const cli_opts *o);
int lab_compare(const cli_opts *o); /* compare.h */

#endif
