/* Experiment and decision files (docs/report.md): what an experiment asks and the claims its rows must
 * meet, and the calls (decisions) those claims decide. INI through inih (ini_walk), validated whole:
 * every error names the file and line.
 *
 *   experiments/NAME.exp.ini                 experiments/decisions/NAME.ini
 *   [experiment]                             [decision]
 *   title = Fused RMSNorm vs torch.compile   domain = Fusion wins
 *   question = ...                           title = Fused RMSNorm
 *   why = ...                                call = Use fusion for RMSNorm ...
 *   plugin = rmsnorm                         experiments = fused_rmsnorm, ...
 *   cases = 4096x4096, ragged    ; optional  [prior]     ; the prior study's call, kept as history
 *   dtypes = fp16, bf16          ; optional  status = Supported
 *   profiles = fused, torch.compile          figure = fp16 reached 5.901x at 4096x8192
 *   chart = bars | sweep                     study = Triton and PyTorch on A10G and H200
 *   run = klab --plugin rmsnorm ...
 *   boundary = one H200; torch 2.11
 *   next = DRAM counters ...
 *   [claim fused_vs_compile]
 *   says = fused is faster than torch.compile on every case and dtype
 *   rule = speedup_lo >= 1.0 where profile = fused and vs = torch.compile
 *
 * Prose keys continue on indented lines; list keys (cases, dtypes, profiles, experiments) are comma
 * lists and continue likewise. A decision has no typed caveat or next step: the report derives both
 * from its claims' cases (report_gaps.h), and refuses the keys `caveat` and `next`; the prior study is
 * cited by what it was, never by a file (a path in [prior] is refused). */
#ifndef KLAB_EXPERIMENT_H
#define KLAB_EXPERIMENT_H

#include <stddef.h>

#include "report/claim_rule.h"

#define EXP_NAME 64
#define EXP_TEXT 1536
#define EXP_MAX_LIST 32
#define EXP_MAX_CLAIMS 16
#define EXP_MAX_DECISION_EXPS 8

typedef struct exp_claim {
    char name[EXP_NAME];
    int line; /* its [claim NAME] header */
    char says[512];
    char rule_text[512];
    int rule_line;
    claim_rule rule;
} exp_claim;

typedef struct exp_experiment {
    char path[4096];
    char name[EXP_NAME]; /* the file's name without .exp.ini */
    char title[160], plugin[EXP_NAME], chart[16];
    char question[EXP_TEXT], why[EXP_TEXT], run[EXP_TEXT], boundary[EXP_TEXT], next[EXP_TEXT];
    int ncases, ndtypes, nprofiles; /* 0: every one the runs have */
    char cases[EXP_MAX_LIST][EXP_NAME];
    char dtypes[EXP_MAX_LIST][8];
    char profiles[EXP_MAX_LIST][EXP_NAME];
    int nclaims;
    exp_claim claims[EXP_MAX_CLAIMS];
} exp_experiment;

typedef struct exp_decision {
    char path[4096];
    char name[EXP_NAME];
    char domain[128], title[160];
    char call[EXP_TEXT];
    int nexps, exps_line;
    char exps[EXP_MAX_DECISION_EXPS][EXP_NAME];
    char prior_status[32], prior_figure[EXP_TEXT], prior_study[256]; /* [prior]: history, not evidence */
} exp_decision;

typedef struct exp_set {
    exp_experiment *exps; /* sorted by name */
    int nexps;
    exp_decision *decs; /* sorted by file name: the matrix's order */
    int ndecs;
} exp_set;

/* One file each. Return 0, or -1 with "path:line: why" in err. */
int exp_load_experiment(const char *path, exp_experiment *e, char *err, size_t errlen);
int exp_load_decision(const char *path, exp_decision *d, char *err, size_t errlen);

/* Every DIR/ *.exp.ini and DIR/decisions/ *.ini; a decision naming an experiment that is not there is
   refused at its experiments line. Returns 0, or -1 with the first error in err. (experiment_set.c) */
int exp_load_dir(const char *dir, exp_set *s, char *err, size_t errlen);

/* The same over several folders, later ones added to earlier ones: an experiment or decision whose
   name an earlier folder has already replaces that one (so a folder beside the shipped one can change
   a claim without copying the rest). A decision may name an experiment of any of the folders. Each
   replacement is said in `notes` ("experiment NAME: DIR/NAME.exp.ini replaces ...", one a line; NULL:
   not said). A folder given twice (the same real path) is read once. 0, or -1 with err. */
int exp_load_dirs(const char *const *dirs, int ndirs, exp_set *s, char *notes, size_t noteslen, char *err,
                  size_t errlen);

/* The experiment named `name`, or NULL. */
const exp_experiment *exp_find(const exp_set *s, const char *name);

void exp_set_free(exp_set *s);

#endif
