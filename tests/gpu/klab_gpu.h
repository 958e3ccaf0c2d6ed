/* What the GPU test programs share (test_gpu*.c): a plugin folder of their own, klab run on it with an
 * INI folder and a run folder, the rows a run wrote read back and looked up, a row's status checked,
 * and the whole program skipped, with the reason, where there is no GPU. */
#ifndef KLAB_GPU_H
#define KLAB_GPU_H

#include "klab_run.h"
#include "klab_test.h"
#include "report/table.h"

/* kr_tmp/plugins and kr_tmp/out, set by kg_use_plugins. */
extern char kg_plugin_dir[PATH_MAX], kg_out_dir[PATH_MAX];

/* A folder holding only the named plugins (NULL-terminated): the test plugin of that name
   (build/tests/plugins) where there is one, else the build's own (build/plugins). */
void kg_use_plugins(const char *const *names);
#define USE_PLUGINS(...) kg_use_plugins((const char *const[]){__VA_ARGS__, NULL})

/* The INI folder RUN passes: tests/gpu/ini, unless the program defines its own before including this. */
#ifndef KLAB_GPU_INI_DIR
#define KLAB_GPU_INI_DIR KLAB_TEST_DATA "/gpu/ini"
#endif

/* klab with the plugin folder, the INI folder and a run folder of its own (kg_out_dir/run_id). */
#define RUN(run_id, ...)                                                                                 \
    KLAB("--plugin-path", kg_plugin_dir, "--ini-dir", KLAB_GPU_INI_DIR, "--out", kg_out_dir, "--run-id", \
         run_id, __VA_ARGS__)

typedef struct csv {
    klab_row *rows; /* the caller frees */
    int n;
} csv;

/* The rows of kg_out_dir/run_id/plugin.csv; fails the test if it cannot be read. */
csv read_rows(const char *run_id, const char *plugin);

/* The first row of (kcase, dtype, profile); dtype NULL matches any. Fails the test if there is none. */
const klab_row *row(const csv *c, const char *kcase, const char *dtype, const char *profile);

/* Fails the test unless r has status st and, reason_part not NULL, a reason holding it. */
void expect_status(const klab_row *r, row_status st, const char *reason_part);

/* NULL where there is a CUDA device, else why not (the runtime's error, or "none found"). */
const char *kg_no_gpu(void);

/* In main: the whole program skipped (exit 77) with the reason where there is no CUDA device. */
#define KLAB_SKIP_WITHOUT_GPU()                                                                           \
    do {                                                                                                  \
        const char *why_ = kg_no_gpu();                                                                   \
        if (why_)                                                                                         \
            KLAB_SKIP_ALL("no CUDA device (%s): the GPU tests run on the GPU machine (tools/gpu-run.sh)", \
                          why_);                                                                          \
    } while (0)

/* In main, after KLAB_SKIP_WITHOUT_GPU: var = device 0's compute capability (major * 10 + minor); the
   whole program skipped, with the reason, where the device does not answer. */
int kg_device_cc(void);
#define KLAB_DEVICE_CC(var)                                                      \
    do {                                                                         \
        if (((var) = kg_device_cc()) <= 0)                                       \
            KLAB_SKIP_ALL("device 0 did not answer cudaGetDeviceProperties");    \
    } while (0)

#endif
