/* The parent's commands. Each returns an exit code (cli.h). The parent never touches CUDA or a
 * plugin itself: it finds files, parses INI, starts workers, and writes every file (the tuning cache
 * too). lab_run is in lab_run.c, the others in lab.c; both start workers through lab_worker.c. */
#ifndef KLAB_LAB_H
#define KLAB_LAB_H

#include <stddef.h>
#include <stdint.h>

#include "app/cli.h"
#include "config/ini_config.h"
#include "evidence/phases.h"
#include "host/device_info.h"

int lab_list(const cli_opts *o);
int lab_validate(const cli_opts *o);
int lab_run(const cli_opts *o);
int lab_self_test(const cli_opts *o);
int lab_report(const cli_opts *o);
int lab_compare(const cli_opts *o); /* compare.h */

/* klab --devices (devices.h), then, over the merged folder, --report's report and the time line. */
int lab_devices(const cli_opts *o);

/* --report at the end of a run: the report of run folder `dir`, as klab report RUN writes it
   (into --out-dir, else <dir>/report), then a summary on the terminal: the decisions, one line
   each, and the rows not passed (klab's and PyTorch's, read back from the folder), the first few by
   name. EXIT_OK, or EXIT_USAGE after saying what could not be read or written; the run's exit status
   is the rows' whatever this returns. */
int lab_run_report(const cli_opts *o, const char *dir);

/* The run's last line: its wall time and the phases that took most of it (phases.h). */
void lab_print_time(const run_phases *ph);

/* A run's meta.ini (run_meta.h) from its command line. `dev` may be NULL (no GPU was reached). The
   experiments' INI files are named and hashed in [inis] (plugin = FNV-1a 64 of the file's bytes, in
   hex) and [ini_paths], so that `klab merge` can refuse runs of different INIs. 0, or -1 with err. */
int lab_write_meta(const char *path, const char *run_id, const char *started, const cli_opts *o, uint64_t seed,
                   const device_desc *dev, const cfg_experiment *cfgs, int ncfgs, char *err, size_t errlen);

#endif
