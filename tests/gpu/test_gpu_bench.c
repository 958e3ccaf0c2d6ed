/* libklab_bench (the PyTorch bridge) on the GPU, with C callables in PyTorch's place: an external that
 * cannot copy its inputs is batched on one set of tensors and its row says not-rotated; one that can
 * (kb_add_external_rotating) is asked for the batch's copies, launched on copy i for run i, and its row
 * gives their footprint, as klab's own profiles do. Both are verified against the plugin's reference:
 * a wrong output fails its row. Cases sized by dim.NAME (the GEMM family's) set up tensors of those
 * sizes through kb_begin; dims and params the plugin does not take are refused. kb_write_meta gives
 * the session's folder klab's meta.ini, read back as klab report reads it. Skipped without a GPU. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/klab_bench.h"
#include "evidence/csv_read.h"
#include "evidence/csv_sink.h"
#include "evidence/run_set.h"
#include "klab_gpu.h"
#include "version.h"

#define MAX_COPIES 1024
#define N (1u << 16)

typedef struct ext {
    float *in[MAX_COPIES], *out[MAX_COPIES];
    int copies, asked, wrong;
} ext;

static int launch_copy(void *user, void *stream, int replica)
{
    ext *e = user;
    if (replica < 0 || replica >= e->copies)
        return -1;
    return cudaMemcpyAsync(e->out[replica], e->in[replica], N * sizeof(float), cudaMemcpyDeviceToDevice,
                           (cudaStream_t)stream) == cudaSuccess ? 0 : -1;
}

static int launch_one(void *user, void *stream)
{
    return launch_copy(user, stream, 0);
}

static int result(void *user, void **ptr, int *dtype, size_t *count)
{
    ext *e = user;
    if (cudaMemcpy(e->out[0], e->in[0], N * sizeof(float), cudaMemcpyDeviceToDevice) != cudaSuccess)
        return -1;
    if (e->wrong && cudaMemset(e->out[0], 0, sizeof(float) * 8) != cudaSuccess)
        return -1;
    *ptr = e->out[0];
    *dtype = KLAB_FP32;
    *count = N;
    return 0;
}

static int replicate(void *user, int n, double *footprint)
{
    ext *e = user;
    e->asked = n;
    if (n > MAX_COPIES)
        return -1;
    for (int i = e->copies; i < n; i++) {
        if (cudaMalloc((void **)&e->in[i], N * sizeof(float)) != cudaSuccess ||
            cudaMalloc((void **)&e->out[i], N * sizeof(float)) != cudaSuccess ||
            cudaMemcpy(e->in[i], e->in[0], N * sizeof(float), cudaMemcpyDeviceToDevice) != cudaSuccess)
            return -1;
        e->copies = i + 1;
    }
    *footprint = 2.0 * n * N * sizeof(float);
    return 0;
}

/* kg_out_dir/meta.ini as test_externals_batched's session wrote it: klab's keys for this session (its
   run id, seed, GPU and batched mode, in-process), then the caller's; and klab report's reader finds
   the commit and the GPU there, so the folder is no longer listed as "no meta.ini". */
static void expect_meta(void)
{
    struct cudaDeviceProp p;
    assert_int_equal(cudaGetDeviceProperties(&p, 0), cudaSuccess);
    char path[PATH_MAX + 32], want[512];
    snprintf(path, sizeof path, "%s/meta.ini", kg_out_dir);
    size_t len = 0;
    char *meta = file_read_all(path, &len);
    assert_non_null(meta);
    snprintf(want, sizeof want, "[run]\nid = bench\nstarted = ");
    kr_expect_in(meta, want);
    snprintf(want, sizeof want,
             "command = python3 tools/torch_rows.py --mode batched\nklab_version = %s\ncommit = %s\n"
             "csv_schema = 3\nseed = 7\n\n[device]\nordinal = 0\nname = %s\n",
             KLAB_VERSION, KLAB_GIT_COMMIT, p.name);
    kr_expect_in(meta, want);
    kr_expect_in(meta, "\n[method]\nl2 = cold: before each sample a kernel reads ");
    kr_expect_in(meta, "\nlaunch = batched: N runs per sample");
    kr_expect_in(meta, "\nisolated = no\n\n[torch]\nversion = 2.9.0+cu130\ncuda = 13.0\n");
    free(meta);
    static run_dir r;
    memset(&r, 0, sizeof r);
    run_set_read_meta(&r, kg_out_dir);
    assert_true(r.has_meta);
    assert_string_equal(r.commit, KLAB_GIT_COMMIT);
    assert_string_equal(r.gpu, p.name);
}

static void test_externals_batched(void **state)
{
    (void)state;
    USE_PLUGINS("vector_add");
    char so[PATH_MAX + 32], csv_path[PATH_MAX + 32];
    snprintf(so, sizeof so, "%s/vector_add.so", kg_plugin_dir);
    snprintf(csv_path, sizeof csv_path, "%s/bench.csv", kg_out_dir);
    kb_session *s = kb_open(so, 0, csv_path, "bench", 7);
    assert_non_null(s);
    assert_int_equal(kb_set_mode(s, "batched"), 0);
    /* the folder's meta.ini, as tools/torch_rows.py writes it; a section of klab's own is refused */
    const char *bad_key[] = {"run.commit"}, *bad_value[] = {"0000000"};
    assert_int_equal(kb_write_meta(s, kg_out_dir, "x", 0, bad_key, bad_value, 1), -1);
    kr_expect_in(kb_error(s), "[run] is klab's own section");
    const char *keys[] = {"torch.version", "torch.cuda"}, *values[] = {"2.9.0+cu130", "13.0"};
    if (kb_write_meta(s, kg_out_dir, "python3 tools/torch_rows.py --mode batched", 0, keys, values, 2) != 0)
        fail_msg("kb_write_meta: %s", kb_error(s));
    if (kb_begin(s, "copy-2^16", "2^16", "fp32", "op=copy", 200) != 0)
        fail_msg("kb_begin: %s", kb_error(s));
    int dt = -1;
    size_t count = 0;
    float *a = kb_tensor(s, "a", &dt, &count);
    assert_non_null(a);
    assert_int_equal(count, N);
    static ext one, rot, bad;
    one.in[0] = rot.in[0] = bad.in[0] = a;
    assert_int_equal(cudaMalloc((void **)&one.out[0], N * sizeof(float)), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&rot.out[0], N * sizeof(float)), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&bad.out[0], N * sizeof(float)), cudaSuccess);
    one.copies = rot.copies = bad.copies = 1;
    bad.wrong = 1;
    assert_int_equal(kb_add_external(s, "one-set", launch_one, result, &one), 0);
    assert_int_equal(kb_add_external_rotating(s, "rotating", launch_copy, result, replicate, &rot), 0);
    assert_int_equal(kb_add_external_rotating(s, "wrong", launch_copy, result, replicate, &bad), 0);
    if (kb_finish(s) != 0 || kb_close(s) != 0)
        fail_msg("kb_finish/kb_close: %s", kb_error(s));

    klab_row *rows = NULL;
    char err[256];
    int n = csv_read_rows(csv_path, &rows, err, sizeof err);
    if (n < 0)
        fail_msg("%s", err);
    csv c = {rows, n};
    const klab_row *r1 = row(&c, "copy-2^16", "fp32", "one-set"), *r2 = row(&c, "copy-2^16", "fp32", "rotating"),
                   *r3 = row(&c, "copy-2^16", "fp32", "wrong");
    expect_status(r1, ROW_PASSED, NULL);
    expect_status(r2, ROW_PASSED, NULL);
    assert_true(row_has_flag(r1, "not-rotated"));
    assert_int_equal(r1->footprint_bytes, 0);
    assert_false(row_has_flag(r2, "not-rotated"));
    assert_true(r2->batch >= 2);
    assert_int_equal(rot.asked, r2->batch); /* one copy a run of the batch */
    assert_int_equal(r2->footprint_bytes, (uint64_t)(2.0 * r2->batch * N * sizeof(float)));
    assert_int_equal(strcmp(r2->launch, "queued"), 0);
    expect_status(r3, ROW_INCORRECT, NULL);
    free(rows);
    expect_meta();
}

static kb_session *open_plugin(const char *plugin)
{
    char so[PATH_MAX + 32], csv_path[PATH_MAX + 32];
    snprintf(so, sizeof so, "%s/%s.so", kg_plugin_dir, plugin);
    snprintf(csv_path, sizeof csv_path, "%s/%s.csv", kg_out_dir, plugin);
    kb_session *s = kb_open(so, 0, csv_path, "bench-dims", 7);
    if (!s)
        fail_msg("kb_open %s: %s", plugin, kb_error(NULL));
    return s;
}

static void expect_refused(kb_session *s, const char *dtype, const char *params, const char *part)
{
    if (kb_begin(s, "refused", "", dtype, params, 50) == 0)
        fail_msg("kb_begin '%s' '%s' was taken", dtype, params);
    if (!strstr(kb_error(s), part))
        fail_msg("kb_begin '%s': '%s' does not say '%s'", params, kb_error(s), part);
}

#define M 64
#define NN 128
#define K 256
#define F 256

/* Each GEMM-family plugin's case by dims alone, and the tensors tools/torch_rows.py wraps, with the
   element counts the plugin's layouts give those dims. */
static const struct {
    const char *plugin, *dtype, *params;
    struct {
        const char *name;
        int dtype;
        size_t count;
    } t[7];
} gemm_cases[] = {
    {"matmul_h200", "bf16", "dim.m=64;dim.n=128;dim.k=256",
     {{"a", KLAB_BF16, M * K}, {"b", KLAB_BF16, K * NN}, {"c", KLAB_BF16, M * NN}}},
    {"fp8_gemm", "fp8e4m3", "fast_accum=1;dim.m=64;dim.n=128;dim.k=256",
     {{"a", KLAB_BF16, M * K}, {"w", KLAB_BF16, NN * K}, {"a_e4m3", KLAB_FP8_E4M3, M * K},
      {"w_e4m3", KLAB_FP8_E4M3, NN * K}, {"scales", KLAB_FP32, 8}, {"d", KLAB_BF16, M * NN}}},
    {"fused_gated_mlp", "bf16", "param.activation=gelu;dim.m=64;dim.k=256;dim.f=256",
     {{"x", KLAB_BF16, M * K}, {"w_gate", KLAB_BF16, F * K}, {"w_up", KLAB_BF16, F * K}, {"out", KLAB_BF16, M * F}}},
};

/* dim.NAME reaches the plugin's setup as a klab run gives it: cases sized by their dims alone (the GEMM
   family's) set up tensors of those sizes, under the names tools/torch_rows.py wraps; a dim or param the
   plugin does not take, a dtype it lacks, and a case with neither shape nor dims are refused before
   setup, as klab refuses such an INI. Without dims in kb_begin, every begin below fails ("empty shape"). */
static void test_named_dims(void **state)
{
    (void)state;
    USE_PLUGINS("matmul_h200", "fp8_gemm", "fused_gated_mlp");
    for (size_t i = 0; i < sizeof gemm_cases / sizeof *gemm_cases; i++) {
        kb_session *s = open_plugin(gemm_cases[i].plugin);
        if (i == 0) {
            expect_refused(s, "bf16", "", "no shape and no dim.NAME");
            expect_refused(s, "bf16", "dim.m=64;dim.n=128;dim.k=256;dim.q=4", "takes no dimension 'q'");
            expect_refused(s, "bf16", "dim.m=64;dim.n=128;dim.k=x", "'x' is not a whole number");
            expect_refused(s, "bf16", "dim.m=64;dim.n=128;dim.k=256;eps=1", "takes no such parameter");
            expect_refused(s, "fp32", "dim.m=64;dim.n=128;dim.k=256", "does not support");
        }
        if (kb_begin(s, "dims", "", gemm_cases[i].dtype, gemm_cases[i].params, 100) != 0)
            fail_msg("kb_begin %s: %s", gemm_cases[i].plugin, kb_error(s));
        for (int k = 0; k < 7 && gemm_cases[i].t[k].name; k++) {
            int dt = -1;
            size_t n = 0;
            if (!kb_tensor(s, gemm_cases[i].t[k].name, &dt, &n))
                fail_msg("%s: %s", gemm_cases[i].plugin, kb_error(s));
            if (dt != gemm_cases[i].t[k].dtype || n != gemm_cases[i].t[k].count)
                fail_msg("%s tensor %s: dtype %d, %zu elements; expected dtype %d, %zu", gemm_cases[i].plugin,
                         gemm_cases[i].t[k].name, dt, n, gemm_cases[i].t[k].dtype, gemm_cases[i].t[k].count);
        }
        if (kb_finish(s) != 0 || kb_close(s) != 0)
            fail_msg("%s: kb_finish or kb_close failed", gemm_cases[i].plugin);
    }

    /* the rows carry the case as klab's would: the dims' product is the plugin's work */
    char path[PATH_MAX + 32], err[256];
    snprintf(path, sizeof path, "%s/matmul_h200.csv", kg_out_dir);
    klab_row *rows = NULL;
    int nr = csv_read_rows(path, &rows, err, sizeof err);
    if (nr < 0)
        fail_msg("%s", err);
    csv c = {rows, nr};
    const klab_row *r = row(&c, "dims", "bf16", "cublas");
    expect_status(r, ROW_PASSED, NULL);
    assert_true(r->flops == 2.0 * M * NN * K);
    free(rows);
}

/* A parameter value the plugin's check_param (ABI 2.1) refuses is refused by kb_begin as by klab's
   --validate, before any setup: vector_add takes op = copy, add or triad. */
static void test_checked_param(void **state)
{
    (void)state;
    USE_PLUGINS("vector_add");
    kb_session *s = open_plugin("vector_add");
    if (kb_begin(s, "bad-op", "4096", "fp32", "op=scale", 50) == 0)
        fail_msg("kb_begin op=scale was taken");
    kr_expect_in(kb_error(s), "key 'param.op': plugin 'vector_add' refuses 'scale': copy, add or triad");
    if (kb_close(s) != 0)
        fail_msg("vector_add: kb_close failed");
}

int main(void)
{
    KLAB_SKIP_WITHOUT_GPU();
    /* each test in a fresh temporary folder: without one, kr_tmp is empty and the plugin folder became /plugins
       (the second test then failed on the first's folder, on the H200 where tests run as root) */
    const struct CMUnitTest tests[] = {
        KR_TEST(test_externals_batched),
        KR_TEST(test_named_dims),
        KR_TEST(test_checked_param),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
