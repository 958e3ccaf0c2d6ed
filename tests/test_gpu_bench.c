/* libklab_bench (the PyTorch bridge) on the GPU, with C callables in PyTorch's place: an external that
 * cannot copy its inputs is batched on one set of tensors and its row says not-rotated; one that can
 * (kb_add_external_rotating) is asked for the batch's copies, launched on copy i for run i, and its row
 * gives their footprint, as klab's own profiles do. Both are verified against the plugin's reference:
 * a wrong output fails its row. Skipped without a GPU. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "klab_bench.h"
#include "klab_gpu.h"

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
    int n = table_read_csv(csv_path, &rows, err, sizeof err);
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
}

int main(void)
{
    KLAB_SKIP_WITHOUT_GPU();
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_externals_batched)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
