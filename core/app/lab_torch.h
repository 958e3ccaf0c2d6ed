/* klab --with-torch: PyTorch's rows beside klab's, in the same run folder. The work is
 * tools/torch_rows.py's (PyTorch callables timed by libklab_bench in the same rounds as the plugin's
 * profiles and klab's copy, docs/architecture.md); klab decides what it is given: the INI files klab
 * read, the cases and dtypes klab's selection keeps, the plugin libraries klab loaded, the timing mode,
 * the device, and the run's folder, id and seed. Which plugins have a PyTorch equivalent is said once,
 * in torch_rows.py's TABLE: it skips the INIs of the others with a line. Its CSVs are <INI stem>.torch.csv,
 * so they never replace klab's <plugin>.csv.
 *
 * The interpreter is asked first (torch_rows.py --check): without one, without torch or without a CUDA
 * device for it, the PyTorch rows are skipped with one line, and the run goes on as without them. */
#ifndef KLAB_LAB_TORCH_H
#define KLAB_LAB_TORCH_H

#include <stddef.h>
#include <stdint.h>

#include "app/cli.h"
#include "evidence/phases.h"

/* One experiment klab runs: the plugin's name and library, and the INI klab read for it. */
typedef struct torch_target {
    char plugin[64];
    char so[4096];
    char ini[4096];
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
   for an option klab did not get is never added: --budget-ms, --quick, --phases-out). Pure.
   Returns 0, or -1 when out of memory or past TORCH_MAX_ARGS. */
int torch_command(torch_cmd *c, const cli_opts *o, const char *script, const char *build, const torch_target *t,
                  int n, const torch_run *run);
void torch_cmd_free(torch_cmd *c);

/* After a run's plugins (run) or --validate (run NULL): builds the command for the targets whose INI
   keeps a unit under klab's selection, prints it and runs it, its output on klab's: --validate's
   listing once for all; a run's rows once per plugin, so that each plugin's PyTorch time is its own
   (run->phases: "torch", and torch_<key> from the file --phases-out names, when torch_rows.py --help
   offers that option; the file is read and removed). Returns 0 when done or skipped with a line (no
   interpreter, no torch, nothing selected); torch_rows.py's exit status when it failed (said in a
   line); 128 + the signal when SIGINT or SIGTERM stopped it. */
int lab_torch(const cli_opts *o, const torch_target *t, int n, const torch_run *run);

/* Before a run's GPU work: 1 when the interpreter imports torch and sees a CUDA device (a line says
   which), 0 after the one-line reason the PyTorch rows will be skipped. */
int lab_torch_ready(const cli_opts *o);

#endif
