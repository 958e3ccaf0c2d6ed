/* klab's help texts: the whole command line (klab --help), and each subcommand's own (klab report
 * --help), so a subcommand's help says only what that subcommand takes. */
#include "app/cli.h"

static void usage_all(FILE *fp)
{
    fputs("usage: klab [options]            verify and time every experiment (needs a GPU)\n"
          "       klab --list               list the plugins found, and refusals with their reason\n"
          "       klab --validate           check every INI against its plugin (no GPU needed)\n"
          "       klab --tune               time every configuration of each tuning space; cache the best (GPU)\n"
          "       klab --tune --validate    list each case's configurations (no GPU needed)\n"
          "       klab --self-test          check the timer against spins of known length (GPU)\n"
          "       klab report [RUN...]      print the runs' tables; judge the experiments' claims over them\n"
          "                                 and write the decision matrix, a page per experiment (Markdown)\n"
          "                                 and report.html (RUN: a run folder, one of its CSVs, or a folder\n"
          "                                 with run folders at any depth; default: the latest run under\n"
          "                                 --out); klab report --help for its options\n"
          "       klab compare RUN-A RUN-B  each row of B against A: ratio of medians, FASTER / SLOWER / SAME /\n"
          "                                 UNSURE from both intervals (runs: folders, or ids under --out);\n"
          "                                 klab compare --help for its options\n"
          "       klab merge OUT RUN...     one run folder OUT from several (shards, GPUs): same commit, INIs\n"
          "                                 and schema, or a refusal naming what differs\n"
          "\n"
          "selection:\n"
          "  --plugin NAME[,NAME]   only these experiments (e.g. softmax,rmsnorm)\n"
          "  --case NAME[,NAME]     only these cases of their INI\n"
          "  --dtype fp32,fp16,bf16 only these dtypes\n"
          "  --profile NAME[,NAME]  only these profiles (the baseline must be among them for speedups)\n"
          "  --config FILE          run this INI instead of the plugin's own (names its plugin)\n"
          "  --shape AxB            a case made here, not in the INI (named adhoc-AxB; with --plugin or\n"
          "                         --config, whose [defaults] it takes; also with --validate)\n"
          "  --dim NAME=N[,NAME=N]  the same for plugins sized by named dims (dim.m, dim.n, dim.k)\n"
          "where:\n"
          "  --plugin-path DIR      look for plugins here first (repeatable; also KLAB_PLUGIN_PATH)\n"
          "  --ini-dir DIR          look for <plugin>.ini here first (also KLAB_INI_PATH)\n"
          "  --out DIR              run folders go here (default: out)\n"
          "  --tune-cache PATH      the tuning cache --tune writes and every run reads (default:\n"
          "                         <out DIR>/tune-cache.ini)\n"
          "  --run-id ID            the run folder's name (default: date-time and commit)\n"
          "  --out-dir DIR          klab report, --report: write the report here (default: klab report,\n"
          "                         <out DIR>/reports/<first RUN's name>; --report, <run>/report)\n"
          "  --experiments DIR      klab report, --report: *.exp.ini and decisions/*.ini beside the shipped\n"
          "                         ones (experiments/); one named like a shipped one replaces it\n"
          "  --device N             the CUDA device to use (default 0)\n"
          "output:\n"
          "  --json                 --list, --validate, klab compare, klab report: one JSON document on stdout\n"
          "                         (schemas klab.list/1, klab.validate/1, klab.compare/1, klab.report/1:\n"
          "                         docs/outputs.md)\n"
          "  --verbose              --tune --validate: every configuration, not one line a case\n"
          "  --quiet                klab report: the decisions alone, no tables\n"
          "  --fail-on STATUS       klab report: exit 1 when a decision is rejected (rejected), or rejected or\n"
          "                         caveated (caveated), so a CI job can gate on a claim\n"
          "how:\n"
          "  --hot                  time each sample right after an untimed run of the same subject (L2 warm;\n"
          "                         default: one run per sample, L2 flushed by reading 4x its size)\n"
          "  --batched              time N runs per sample (one CUDA graph, or queued), so the launch floor\n"
          "                         is paid once per N; the runs rotate through N copies of the tensors\n"
          "  --verify-only          set up and verify every case, time nothing (for compute-sanitizer)\n"
          "  --tune                 a run whose rows are every configuration of each profile's tuning space\n"
          "                         and the plugin's own choice, verified and timed in the same rounds\n"
          "                         (flag tune-trial); the fastest per GPU, plugin, version, case, dtype and\n"
          "                         profile goes into the tuning cache, which later runs use (flag tuned)\n"
          "                         unless the case names its config\n"
          "  --budget-ms MS         every case's sampling budget instead of its INI's budget_ms (only sampling:\n"
          "                         setup, references and checks take what they take); recorded in meta.ini\n"
          "  --quick                a smoke pass: every case set up, referenced and verified as always (poisoned\n"
          "                         re-verification, escape check, L2 flush), sampled briefly (warmup 2, 10 to 100\n"
          "                         samples, 50 ms a case; --budget-ms overrides the 50 ms); every row is flagged\n"
          "                         quick, meta.ini says so, and klab merge keeps quick runs apart; not with --tune\n"
          "  --report               end the run with its report, as klab report RUN writes it (into\n"
          "                         <run>/report, or --out-dir), and a summary: the decisions, the rows not\n"
          "                         passed, the wall time and where it went\n"
          "  --timeout SECONDS      a worker silent this long (no case, phase or row reported) is killed\n"
          "                         and its case reported (default 120)\n"
          "  --throttle FRACTION    discard rounds whose SM clock is under this x peak (default 0.75)\n"
          "  --seed N               the random inputs' seed (default: from the clock; every row records it)\n"
          "  --with-torch           also time PyTorch (eager, F.*, torch.compile) on every selected case of the\n"
          "                         plugins that ship a <plugin>_torch.py beside their .so, in the same run\n"
          "                         folder (<INI>.torch.csv); with --validate, check those modules and list\n"
          "                         the cases (torch_rows.py --dry-run)\n"
          "  --torch PYTHON         --with-torch with this interpreter (default python3)\n"
          "  --threshold PCT        klab compare: the change that counts (default 5)\n"
          "  --allow-missing        klab compare: rows in one run only do not fail the gate\n"
          "  --allow-config-change  klab compare: a changed tuning configuration does not fail the gate\n"
          "  --no-isolate           run plugins in this process, for cuda-gdb and compute-sanitizer; this\n"
          "                         gives up isolation: a crash, a hang or a lost CUDA context in one\n"
          "                         experiment then ends the whole run\n"
          "  KLAB_THREADS=N         (environment) the worker's CPU threads for references and verification\n"
          "                         (default: one a CPU it may run on); any N gives the same figures\n"
          "scale-out (docs/scale-out.md):\n"
          "  --with-profiling       after the timed run, each passed row once more under Nsight Compute\n"
          "                         (ncu): its kernels' counters in <plugin>.counters.csv\n"
          "  --devices N[,N]        spread the units over these GPUs, one klab per GPU, rows merged\n"
          "  --resume RUN           continue an interrupted run (a folder, or a run id under --out) in its\n"
          "                         folder: complete CSVs kept, partial ones from their last whole unit; the\n"
          "                         selection is the run's (meta.ini); commit, INIs, schema and GPU must match\n"
          "  --shard K/N            only the K-th of N deterministic slices of the selected units (with\n"
          "                         --validate --with-torch: list the slice's units PyTorch would run)\n"
          "  --help, --version\n"
          "\n"
          "exit status: 0 all passed; 1 a row failed, was incorrect or flagged, or a plugin was refused;\n"
          "2 a bad command line or INI, or a run --resume refuses; 3 no usable GPU; 130 or 143 stopped by\n"
          "SIGINT or SIGTERM (a run's rows so far are kept in <plugin>.csv.partial, for --resume; a second\n"
          "SIGINT ends klab at once). klab compare: 0 no regression; 1 a row SLOWER beyond the threshold, or\n"
          "passed in A and incorrect, failed or flagged in B, a row in one run only or a changed configuration\n"
          "(unless allowed); 2 a bad command line, a run that cannot be read or trusted, or no row in common.\n",
          fp);
}


static void usage_report(FILE *fp)
{
    fputs("usage: klab report [options] [RUN...]\n"
          "\n"
          "The runs' tables; each experiment's claims judged over them; the decision matrix (decisions.md), a\n"
          "page per experiment and per plugin, and report.html. RUN is a run folder (one with meta.ini), one of\n"
          "its CSVs, or a folder holding run folders at any depth; default: the latest run under --out.\n"
          "\n"
          "  --out-dir DIR          write the report here (default: <out DIR>/report/<first RUN's name>)\n"
          "  --out DIR              where runs are looked for, and reports go, by default (default: out)\n"
          "  --experiments DIR      *.exp.ini and decisions/*.ini beside the shipped ones (experiments/); an\n"
          "                         experiment or decision named like a shipped one replaces it\n"
          "  --quiet                the decisions alone: no tables\n"
          "  --json                 the verdicts and the decisions as one JSON document (klab.report/1)\n"
          "  --fail-on STATUS       exit 1 when a decision is Rejected (rejected), or Rejected or Caveated\n"
          "                         (caveated)\n"
          "\n"
          "exit status: 0 written; 1 a decision --fail-on names; 2 a run or experiment that cannot be read, or\n"
          "a report that cannot be written.\n",
          fp);
}

static void usage_compare(FILE *fp)
{
    fputs("usage: klab compare [options] RUN-A RUN-B\n"
          "\n"
          "Each row of B against the row of A that measures the same thing: the ratio of medians B / A with\n"
          "its bounds, FASTER / SLOWER / SAME / UNSURE from both intervals (docs/compare.md). A run is a\n"
          "folder, or a run id under --out.\n"
          "\n"
          "  --threshold PCT        the change that counts (default 5)\n"
          "  --allow-missing        rows in one run only do not fail the gate\n"
          "  --allow-config-change  a changed tuning configuration does not fail the gate\n"
          "  --out DIR              where run ids are looked for (default: out)\n"
          "  --json                 the rows and the verdict as one JSON document (klab.compare/1)\n"
          "\n"
          "exit status: 0 no regression; 1 a row SLOWER beyond the threshold, or passed in A and incorrect,\n"
          "failed or flagged in B, a row in one run only or a changed configuration (unless allowed); 2 a bad\n"
          "command line, a run that cannot be read or trusted, or no row in common.\n",
          fp);
}

static void usage_merge(FILE *fp)
{
    fputs("usage: klab merge OUT RUN...\n"
          "\n"
          "One run folder OUT from several (shards, GPUs: docs/scale-out.md): same commit, INIs, CSV schema\n"
          "and quick or not, or a refusal naming what differs.\n"
          "\n"
          "exit status: 0 merged; 2 runs that do not belong together (refused); 1 a run that could not be read or\n"
          "written whole.\n",
          fp);
}

void cli_usage(FILE *fp, cli_cmd topic)
{
    switch (topic) {
    case CMD_REPORT: usage_report(fp); break;
    case CMD_COMPARE: usage_compare(fp); break;
    case CMD_MERGE: usage_merge(fp); break;
    default: usage_all(fp); break;
    }
}
