/* klab --with-torch: PyTorch's rows beside klab's, in the same run folder. The work is
 * tools/torch_rows.py's (PyTorch callables timed by libklab_bench in the same rounds as the plugin's
 * profiles and klab's copy, docs/pytorch.md); klab decides what it is given: the INI files klab
 * read, the cases and dtypes klab's selection keeps, the plugin libraries klab loaded, the timing mode,
 * the device, and the run's folder, id and seed. A plugin has a PyTorch equivalent when a module
 * <plugin>_torch.py lies beside its .so (tools/klab/torch_module.py); torch_rows.py skips the INIs of
 * the others with a line. Its CSVs are <INI stem>.torch.csv, so they never replace klab's <plugin>.csv.
 * The script and libklab_bench are klab's own: beside it in a build, in its install prefix otherwise.
 *
 * The interpreter is asked first (torch_rows.py --check): without one, without torch or without a CUDA
 * device for it, the PyTorch rows are skipped with one line, and the run goes on as without them. */
#ifndef KLAB_LAB_TORCH_H
#define KLAB_LAB_TORCH_H

#include <stddef.h>
#include <stdint.h>

#include "app/cli.h"
#include "config/ini_config.h"
#include "evidence/phases.h"

/* One experiment klab runs: the plugin's name and library, and the INI klab read for it. `units`, when
   not "", is a units file (torch_units_write) naming the exact (case, dtype) units PyTorch runs: klab
   writes one under --shard (and so under --devices, whose children are shards), where --cases and
   --dtypes cannot say which units a slice holds. */
typedef struct torch_target {
    char plugin[64];
    char so[4096];
    char ini[4096];
    char units[4200];
} torch_target;

/* The run the rows join; NULL for --validate's listing (torch_rows.py --dry-run). */
typedef struct torch_run {
    const char *dir, *id;
    uint64_t seed;
    run_phases *phases;     /* lab_torch adds each plugin's child as phase "torch" here (NULL: not) */
    const char *phases_out; /* torch_command: --phases-out FILE for the script's own phases; NULL: none */
} torch_run;

#define TORCH_MAX_ARGS (32 + 4 * 128)

/* An argument vector, each word malloc'd; argv[argc] is NULL. */
typedef struct torch_cmd {
    int argc;
    char *argv[TORCH_MAX_ARGS + 1];
} torch_cmd;

/* The command for targets t[0..n) (all of which have a unit klab's selection keeps): the interpreter,
   the script, --build (where libklab_bench.so is), then klab's options as torch_rows.py's (a word
   for an option klab did not get is never added: --budget-ms, --quick, --phases-out). A target with
   a units file adds `--units FILE`, which torch_rows.py applies to its whole command: such a target
   goes alone (n 1). Pure. Returns 0, or -1 when out of memory, past TORCH_MAX_ARGS, or given a units
   file among several targets. */
int torch_command(torch_cmd *c, const cli_opts *o, const char *script, const char *build, const torch_target *t,
                  int n, const torch_run *run);
void torch_cmd_free(torch_cmd *c);

/* The units file of a shard: every (case, dtype) unit klab's selection `f` keeps of `cfg`, one
   "case<TAB>dtype" line each, in the order the workers run them. It is job_units' list itself, so
   torch_rows.py never computes a slice of its own. *n: how many. 0, or -1 with the reason in err. */
int torch_units_write(const char *path, const cfg_experiment *cfg, const run_filter *f, int *n, char *err,
                      size_t errlen);

/* After a run's plugins (run) or --validate (run NULL): asks the interpreter (a run only), builds the
   command for the targets whose INI keeps a unit under klab's selection, prints it and runs it, its
   output on klab's: --validate's listing once for all; a run's rows once per plugin, so that each
   plugin's PyTorch time is its own (run->phases: "torch", and torch_<key> from the file --phases-out
   names, when torch_rows.py --help offers that option; the file is read and removed). Under --shard,
   one command per INI, each with the units file of its slice (<run>/<INI stem>.torch-units, for
   --validate in a temporary folder; the units listed), removed when it has run. Returns 0 when done
   or skipped with a line (no interpreter, no torch, nothing selected); torch_rows.py's exit status
   when it failed (said in a line); 128 + the signal when SIGINT or SIGTERM stopped it. */
int lab_torch(const cli_opts *o, const torch_target *t, int n, const torch_run *run);

/* Before a run's GPU work: 1 when the interpreter imports torch and sees a CUDA device (a line says
   which), 0 after the one-line reason the PyTorch rows will be skipped. */
int lab_torch_ready(const cli_opts *o);

#endif
