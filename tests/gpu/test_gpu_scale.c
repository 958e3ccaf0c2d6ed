/* Scale-out on a GPU, through the real klab binary (docs/scale-out.md): --devices over every GPU this
 * machine has (one suffices) gives the rows of a plain run, each naming its GPU; --shard 0/2 and 1/2
 * run as two processes and klab merge gives the same rows; --with-profiling's pass (the child klab
 * under a fake ncu that runs it and checks it ended well) and, where ncu is on PATH, under the real
 * ncu: every passed row has counters, or a refusal naming the permission (ERR_NVGPUCTRPERM).
 *
 * Without a GPU the whole program is skipped with the reason (exit 77). INI: tests/gpu/ini/vector_add.ini. */
#include <cuda_runtime.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "evidence/counters.h"
#include "klab_gpu.h"
#include "scale/profiling.h"

/* Every (case, dtype, profile) of a is in b once, and b has no other. */
static void same_keys(const csv *a, const csv *b)
{
    assert_int_equal(a->n, b->n);
    for (int i = 0; i < a->n; i++) {
        int found = 0;
        for (int k = 0; k < b->n; k++)
            found += !strcmp(a->rows[i].kcase, b->rows[k].kcase) && !strcmp(a->rows[i].dtype, b->rows[k].dtype) &&
                     !strcmp(a->rows[i].profile, b->rows[k].profile);
        if (found != 1)
            fail_msg("%s %s %s is %d times in the other run", a->rows[i].kcase, a->rows[i].dtype, a->rows[i].profile,
                     found);
    }
}

static void all_named_and_passed(const csv *c)
{
    for (int i = 0; i < c->n; i++) {
        const klab_row *r = &c->rows[i];
        if (r->status != ROW_PASSED)
            fail_msg("%s %s %s: %s (%s)", r->kcase, r->dtype, r->profile, row_status_name(r->status), r->reason);
        if (!r->has_gpu || strncmp(r->gpu_uuid, "GPU-", 4) || !r->gpu_name[0])
            fail_msg("%s %s %s names no GPU", r->kcase, r->dtype, r->profile);
    }
}

static void test_devices(void **state)
{
    (void)state;
    USE_PLUGINS("vector_add");
    int count = 0;
    cudaGetDeviceCount(&count);
    const char *list = count >= 2 ? "0,1" : "0";
    klab_result one = RUN("one", "--plugin", "vector_add");
    assert_int_equal(one.rc, 0);
    klab_result r = RUN("multi", "--plugin", "vector_add", "--devices", list);
    kr_echo(r.out);
    assert_int_equal(r.rc, 0);
    kr_expect_in(r.out, "merged ");
    csv a = read_rows("one", "vector_add"), b = read_rows("multi", "vector_add");
    same_keys(&a, &b);
    all_named_and_passed(&b);
    int on1 = 0;
    for (int i = 0; i < b.n; i++)
        on1 += b.rows[i].gpu_index == 1;
    if (count >= 2)
        assert_true(on1 > 0 && on1 < b.n); /* both GPUs had units */
    free(a.rows);
    free(b.rows);
    free(one.out);
    free(r.out);
}

static void test_shards_merged(void **state)
{
    (void)state;
    USE_PLUGINS("vector_add");
    klab_result one = RUN("whole", "--plugin", "vector_add");
    assert_int_equal(one.rc, 0);
    char out0[PATH_MAX + 10], out1[PATH_MAX + 10];
    snprintf(out0, sizeof out0, "%s/s0", kg_out_dir);
    snprintf(out1, sizeof out1, "%s/s1", kg_out_dir);
    klab_result s0 = KLAB("--plugin-path", kg_plugin_dir, "--ini-dir", KLAB_GPU_INI_DIR, "--out", out0, "--run-id", "R",
                          "--plugin", "vector_add", "--shard", "0/2");
    klab_result s1 = KLAB("--plugin-path", kg_plugin_dir, "--ini-dir", KLAB_GPU_INI_DIR, "--out", out1, "--run-id", "R",
                          "--plugin", "vector_add", "--shard", "1/2");
    assert_int_equal(s0.rc, 0);
    assert_int_equal(s1.rc, 0);
    klab_result m = KLAB("merge", "out/merged", "out/s0/R", "out/s1/R");
    assert_int_equal(m.rc, 0);
    csv a = read_rows("whole", "vector_add"), b = read_rows("merged", "vector_add");
    same_keys(&a, &b);
    all_named_and_passed(&b);
    free(a.rows);
    free(b.rows);
    free(one.out);
    free(s0.out);
    free(s1.out);
    free(m.out);
}

/* The counters file of run `id`: every passed row measured, or refused for want of permission. */
static void expect_counters(const char *id, int allow_refused)
{
    char path[PATH_MAX + 100];
    snprintf(path, sizeof path, "%s/%s/vector_add%s", kg_out_dir, id, COUNTERS_SUFFIX);
    FILE *fp = fopen(path, "r");
    if (!fp)
        fail_msg("no %s", path);
    char line[4096];
    int measured = 0, refused = 0, other = 0;
    while (fgets(line, sizeof line, fp)) {
        print_message("#   %s", line);
        measured += strstr(line, ",measured,") != NULL;
        refused += strstr(line, ",refused,") != NULL;
        other += strstr(line, ",failed,") || strstr(line, ",no-kernels,") || strstr(line, ",no-ncu,");
    }
    fclose(fp);
    assert_int_equal(other, 0);
    assert_true(measured > 0 || (allow_refused && refused > 0));
}

/* The child klab under a fake ncu that runs it as ncu would (everything after --log-file FILE) and
   writes a one-kernel report when it ended with status 0. */
static void test_profile_pass(void **state)
{
    (void)state;
    USE_PLUGINS("vector_add");
    char script[PATH_MAX + 20], text[4096];
    snprintf(script, sizeof script, "%s/fake-ncu", kr_tmp);
    snprintf(text, sizeof text,
             "#!/bin/sh\nwhile [ \"$1\" != --log-file ]; do shift; done\nlog=\"$2\"; shift 2\n\"$@\" > \"$log.child\" 2>&1\n"
             "rc=$?\nif [ $rc -ne 0 ]; then echo \"==ERROR== the profiled klab exited with $rc\" > \"$log\"; exit 1; fi\n"
             "grep -q profile-pass \"$log.child\" || { echo '==ERROR== no profile-pass row' > \"$log\"; exit 1; }\n"
             "printf '\"ID\",\"Kernel Name\",\"Grid Size\",\"Block Size\",\"%s\"\\n\"0\",\"k\",\"(1, 1, 1)\",\"(32, 1, 1)\",\"50\"\\n' > \"$log\"\n",
             ncu_metrics[0].metric);
    kr_write_file(script, text);
    chmod(script, 0755);
    setenv("KLAB_NCU", script, 1);
    klab_result r = RUN("prof", "--plugin", "vector_add", "--case", "copy-l2", "--with-profiling");
    unsetenv("KLAB_NCU");
    assert_int_equal(r.rc, 0);
    expect_counters("prof", 0);
    free(r.out);
}

static void test_real_ncu(void **state)
{
    (void)state;
    char ncu[4200];
    unsetenv("KLAB_NCU");
    profiling_find_ncu(ncu, sizeof ncu);
    if (!ncu[0]) {
        print_message("# no ncu on PATH: the real Nsight Compute pass is not checked here\n");
        skip();
    }
    USE_PLUGINS("vector_add");
    klab_result r = RUN("ncu", "--plugin", "vector_add", "--case", "copy-l2", "--with-profiling");
    kr_echo(r.out);
    assert_int_equal(r.rc, 0);
    expect_counters("ncu", 1);
    free(r.out);
}

int main(void)
{
    KLAB_SKIP_WITHOUT_GPU();
    const struct CMUnitTest tests[] = {
        KR_TEST(test_devices),
        KR_TEST(test_shards_merged),
        KR_TEST(test_profile_pass),
        KR_TEST(test_real_ncu),
    };
    KLAB_RUN_TESTS(tests);
}
