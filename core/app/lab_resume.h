/* klab --resume RUN: an interrupted run (SIGINT, SIGTERM, a lost node, a Slurm requeue) continued in its
 * own folder, so that it ends as the whole run would have: the same run id, seed and `started`, the
 * same meta.ini (kept as written), every plugin's <plugin>.csv, the samples of its rows, and the
 * PyTorch CSVs.
 *
 * Before anything runs, the run must be this klab's to continue: its meta.ini must exist, name this
 * klab's commit and CSV schema, hold the selection ([selection], lab_selection.h), and after the INIs
 * are read, [inis] must hash them as they are now; after the GPU probe, the GPU must be the run's
 * (uuid). Otherwise klab exits 2 naming what differs. Options on the command line must agree with the
 * stored selection (or be left out: the stored one is used).
 *
 * Per plugin (lab_plugin_sink, which every run uses to open its CSV): a complete <plugin>.csv is kept
 * and nothing of it runs again (its rows still count in the run's summary and exit status); a
 * <plugin>.csv.partial is cut back to the last unit its <plugin>.progress says it holds whole
 * (progress_file.h), its samples files of rows cut away are removed, and its worker starts at the next
 * unit (job.start_unit). Inputs are seeded per unit (seed, plugin, case, dtype), so units run later
 * measure the same tensors a whole run would. PyTorch targets whose <stem>.torch.csv exists are kept
 * (lab_torch.c). */
#ifndef KLAB_LAB_RESUME_H
#define KLAB_LAB_RESUME_H

#include <stddef.h>

#include "app/cli.h"
#include "app/lab_worker.h"
#include "config/ini_config.h"
#include "evidence/csv_sink.h"

/* Before lab_run: RUN (a folder, or a run id under --out) checked (meta.ini, commit, schema,
   selection), its selection made o's, and o's --out, --run-id and --seed set to the run's, so that
   lab_run works in its folder. EXIT_OK, or EXIT_USAGE after saying why not. */
int lab_resume_prepare(cli_opts *o);

/* After the INIs are read, before the GPU: they must be the run's ([inis]). EXIT_OK or EXIT_USAGE. */
int lab_resume_check_inis(const cli_opts *o, const cfg_experiment *cfgs, int n);

/* After the probe: the GPU must be the run's; *started the run's `started`. EXIT_OK or EXIT_USAGE. */
int lab_resume_check_device(const cli_opts *o, const device_desc *dev, char *started, size_t len);

/* A plugin's CSV `csv` in a run: opened anew with its progress file (s->progress), or under --resume
   continued as above (s->rows holding the rows kept, *start_unit the first unit to run; s->done set
   when no unit is left, and sink->fp NULL when the CSV was complete and is kept as it is).
   0, or -1 with the reason in err. */
int lab_plugin_sink(const cli_opts *o, const char *csv, const cfg_experiment *cfg, csv_sink *sink, job_state *s,
                    int *start_unit, char *err, size_t errlen);

/* 1 when --with-profiling's pass of a kept plugin has its counters file already. */
int lab_resume_profiled(const cli_opts *o, const char *run_dir, const char *plugin);

#endif
