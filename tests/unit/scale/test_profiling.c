/* --with-profiling without a GPU: ncu's output read from fixtures this test writes (counters of two
 * kernels, digit grouping and the units line; the permission refusal ERR_NVGPUCTRPERM; no kernel in
 * the range; an ncu error), ncu's command line, and the whole of a plugin's pass with a fake `ncu`
 * (a script that writes a fixture where --log-file says): the counters file beside the rows, joined by
 * the row's key, one line per kernel or one saying why not (refused, no-ncu, not-profiled). */
#include "klab_test.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "evidence/counters.h"
#include "evidence/ncu_csv.h"
#include "klab_run.h"
#include "scale/profiling.h"

static char header[4000];

/* ncu's raw page header: its own columns, then the metrics as asked. */
static const char *ncu_header(void)
{
    snprintf(header, sizeof header,
             "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
             "\"Block Size\",\"Grid Size\",\"Device\",\"CC\"");
    for (int m = 0; m < NCU_NMETRICS; m++)
        snprintf(header + strlen(header), sizeof header - strlen(header), ",\"%s\"", ncu_metrics[m].metric);
    return header;
}

static char measured[8000];

static const char *measured_fixture(void)
{
    snprintf(measured, sizeof measured,
             "==PROF== Connected to process 4242 (/opt/klab/build/klab)\n"
             "==PROF== Profiling \"softmax_fused\" - 0: 0%%....50%%....100%% - 9 passes\n"
             "==PROF== Profiling \"softmax_fixup\" - 1: 0%%....50%%....100%% - 9 passes\n"
             "==PROF== Disconnected from process 4242\n"
             "%s\n"
             "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"%%\",\"%%\",\"%%\",\"%%\",\"%%\",\"%%\","
             "\"register/thread\",\"byte\",\"byte\"\n"
             "\"0\",\"4242\",\"klab\",\"gpu1\",\"void softmax_fused<__half, 8>(const __half *, __half *, int, int)\","
             "\"1\",\"7\",\"(256, 1, 1)\",\"(4096, 1, 1)\",\"0\",\"9.0\",\"87.12\",\"61.5\",\"40.25\",\"0\",\"0\","
             "\"12.5\",\"32\",\"0\",\"1,024\"\n"
             "\"1\",\"4242\",\"klab\",\"gpu1\",\"softmax_fixup\",\"1\",\"7\",\"(32, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\","
             "\"0.01\",\"3.1\",\"0.2\",\"0\",\"0\",\"99.5\",\"16\",\"128\",\"0\"\n",
             ncu_header());
    return measured;
}

static const char refused_fixture[] =
    "==PROF== Connected to process 4242 (/opt/klab/build/klab)\n"
    "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters "
    "on the target device 0. For instructions on enabling permissions and to get more information see "
    "https://developer.nvidia.com/ERR_NVGPUCTRPERM\n"
    "==PROF== Disconnected from process 4242\n"
    "==WARNING== No kernels were profiled.\n";

static void test_parse_measured(void **state)
{
    (void)state;
    const char *t = measured_fixture();
    ncu_result r;
    ncu_parse(t, strlen(t), &r);
    assert_int_equal(r.status, NCU_MEASURED);
    assert_int_equal(r.nkernels, 2);
    assert_string_equal(r.k[0].name, "void softmax_fused<__half, 8>(const __half *, __half *, int, int)");
    assert_string_equal(r.k[0].grid, "(4096, 1, 1)");
    assert_string_equal(r.k[0].block, "(256, 1, 1)");
    assert_string_equal(r.k[0].value[0], "87.12"); /* dram % */
    assert_string_equal(r.k[0].value[1], "61.5");  /* achieved occupancy */
    assert_string_equal(r.k[0].value[5], "12.5");  /* L2 hit rate */
    assert_string_equal(r.k[0].value[6], "32");    /* registers */
    assert_string_equal(r.k[0].value[8], "1024");  /* "1,024": the grouping goes */
    assert_string_equal(r.k[1].name, "softmax_fixup");
    assert_string_equal(r.k[1].value[7], "128");
}

static void test_parse_refused(void **state)
{
    (void)state;
    ncu_result r;
    ncu_parse(refused_fixture, strlen(refused_fixture), &r);
    assert_int_equal(r.status, NCU_REFUSED);
    assert_int_equal(r.nkernels, 0);
    kr_expect_in(r.reason, "no permission for the GPU's performance counters (ERR_NVGPUCTRPERM): ERR_NVGPUCTRPERM - "
                           "The user does not have permission");
}

static void test_parse_nothing(void **state)
{
    (void)state;
    static const char none[] = "==PROF== Connected to process 1\n==PROF== Disconnected from process 1\n"
                               "==WARNING== No kernels were profiled.\n";
    ncu_result r;
    ncu_parse(none, strlen(none), &r);
    assert_int_equal(r.status, NCU_NO_KERNELS);
    kr_expect_in(r.reason, "no kernel ran inside klab's profiled range: No kernels were profiled.");
    static const char bad_metric[] = "==ERROR== Failed to find metric sm__pipe_tensor_op_gmma_cycles_active\n";
    ncu_parse(bad_metric, strlen(bad_metric), &r);
    assert_int_equal(r.status, NCU_FAILED);
    assert_string_equal(r.reason, "ncu: Failed to find metric sm__pipe_tensor_op_gmma_cycles_active");
    ncu_parse("", 0, &r);
    assert_int_equal(r.status, NCU_NO_KERNELS);
    /* which of klab's metrics an error names, however ncu words it */
    assert_int_equal(ncu_named_metric(r.reason), -1);
    assert_int_equal(ncu_named_metric("ncu: Failed to find metric sm__pipe_tensor_op_gmma_cycles_active"), 4);
    assert_int_equal(ncu_named_metric("ncu: metric 'launch__registers_per_thread' not found"), 6);
    assert_int_equal(ncu_named_metric("ncu: Failed to find metric sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_"
                                      "peak_sustained_active"), 3);
    assert_int_equal(ncu_named_metric("ncu: Failed to find metric xsm__throughput"), -1);
    assert_int_equal(ncu_named_metric("ncu: no sm__throughput_x here"), -1);
    assert_int_equal(ncu_named_metric("ncu: Failed to find metric lts__t_sector_hit_rate; ncu exited"), 5);
    char list[2048];
    ncu_metric_list(1u << 0 | 1u << 4, list, sizeof list);
    assert_null(strstr(list, "dram__"));
    assert_null(strstr(list, "gmma"));
    assert_int_equal(strncmp(list, "sm__warps_active.avg.pct_of_peak_sustained_active,", 50), 0);
}

static profiling_opts opts;

static klab_row a_row(const char *profile, row_status st)
{
    klab_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.run_id, sizeof r.run_id, "r1");
    snprintf(r.plugin, sizeof r.plugin, "softmax");
    snprintf(r.kcase, sizeof r.kcase, "4096x1024");
    snprintf(r.dtype, sizeof r.dtype, "fp16");
    snprintf(r.profile, sizeof r.profile, "%s", profile);
    r.status = st;
    r.seed = 99;
    row_set_gpu(&r, 1, "NVIDIA H200", "GPU-11111111-2222-3333-4444-555555555555");
    return r;
}

/* A fake ncu: records its arguments beside the log, writes `fixture` as the log, exits `code`. */
static void fake_ncu(const char *fixture, int code)
{
    char fx[4200], script[4200], text[9000];
    snprintf(fx, sizeof fx, "%s/fixture.txt", kr_tmp);
    kr_write_file(fx, fixture);
    snprintf(script, sizeof script, "%s/fake-ncu", kr_tmp);
    snprintf(text, sizeof text,
             "#!/bin/sh\nlog=\"\"; prev=\"\"\nfor a in \"$@\"; do\n  [ \"$prev\" = \"--log-file\" ] && log=\"$a\"\n"
             "  prev=\"$a\"\ndone\nprintf '%%s\\n' \"$@\" > \"$log.args\"\ncat '%s' > \"$log\"\nexit %d\n",
             fx, code);
    kr_write_file(script, text);
    chmod(script, 0755);
    setenv("KLAB_NCU", script, 1);
}

/* The file's text; freed at the next call. */
static const char *slurp(const char *path)
{
    static char *text;
    free(text);
    size_t len;
    if (!(text = file_read_all(path, &len)))
        fail_msg("%s is missing", path);
    return text;
}

static void profile(const klab_row *rows, int n)
{
    memset(&opts, 0, sizeof opts);
    opts.timeout_s = 30;
    opts.device = 0;
    opts.tune_cache = "out/tune-cache.ini";
    char err[1200];
    if (profiling_plugin(&opts, "softmax", "/ini/softmax.ini", kr_tmp, rows, n, err, sizeof err) != 0)
        fail_msg("%s", err);
}

/* Per row: a line per kernel for the passed one, not-profiled for the failed and the external. */
static void test_plugin_pass_with_fake_ncu(void **state)
{
    (void)state;
    fake_ncu(measured_fixture(), 0);
    klab_row rows[3] = {a_row("fused", ROW_PASSED), a_row("baseline", ROW_FAILED), a_row("torch", ROW_PASSED)};
    row_add_flag(&rows[2], "external");
    profile(rows, 3);
    char path[4400];
    snprintf(path, sizeof path, "%s/softmax%s", kr_tmp, COUNTERS_SUFFIX);
    const char *t = slurp(path);
    kr_echo(t);
    kr_expect_in(t, "run_id,plugin,case,dtype,profile,config,gpu,gpu_uuid,kernel_index,kernel,grid,block,status,reason,"
                    "dram_pct,achieved_occupancy_pct,sm_pct,tensor_hmma_pct,tensor_gmma_pct,l2_hit_pct,registers,"
                    "smem_static_bytes,smem_dynamic_bytes\n");
    kr_expect_in(t, "r1,softmax,4096x1024,fp16,fused,,1,GPU-11111111-2222-3333-4444-555555555555,0,"
                    "\"void softmax_fused<__half, 8>(const __half *, __half *, int, int)\",\"(4096, 1, 1)\","
                    "\"(256, 1, 1)\",measured,,87.12,61.5,40.25,0,0,12.5,32,0,1024\n");
    kr_expect_in(t, ",fused,,1,GPU-11111111-2222-3333-4444-555555555555,1,softmax_fixup,");
    kr_expect_in(t, ",baseline,,1,GPU-11111111-2222-3333-4444-555555555555,,,,,not-profiled,the row did not pass");
    kr_expect_in(t, ",torch,,1,GPU-11111111-2222-3333-4444-555555555555,,,,,not-profiled,an external subject");
    /* ncu's command line: clocks as found, the NVTX range only, the raw page, the child klab's row */
    snprintf(path, sizeof path, "%s/profiling/softmax/4096x1024.fp16.fused.ncu.log.args", kr_tmp);
    const char *args = slurp(path);
    kr_expect_in(args, "--clock-control\nnone\n--target-processes\nall\n--nvtx\n--nvtx-include\nklab-timed/\n--csv\n"
                       "--page\nraw\n--print-units\nbase\n--metrics\ndram__throughput.avg.pct_of_peak_sustained_elapsed,");
    kr_expect_in(args, "launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic\n--log-file\n");
    kr_expect_in(args, "\n--profile-pass\n--no-isolate\n--config\n/ini/softmax.ini\n--case\n4096x1024\n--dtype\nfp16\n"
                       "--profile\nfused\n--device\n1\n--seed\n99\n--timeout\n30\n--tune-cache\nout/tune-cache.ini\n--out\n");
    unsetenv("KLAB_NCU");
}

/* An ncu that does not know the gmma metric: that row again without it, and the rows after it
   without it from the start; the lines say what was left out. */
static void test_unknown_metric_left_out(void **state)
{
    (void)state;
    fake_ncu(measured_fixture(), 0);
    char script[4200], text[9000], fx[4200];
    snprintf(script, sizeof script, "%s/fake-ncu", kr_tmp);
    snprintf(fx, sizeof fx, "%s/fixture.txt", kr_tmp);
    snprintf(text, sizeof text,
             "#!/bin/sh\nlog=\"\"; prev=\"\"\nfor a in \"$@\"; do\n  [ \"$prev\" = \"--log-file\" ] && log=\"$a\"\n"
             "  prev=\"$a\"\ndone\necho run >> \"%s/runs.txt\"\nprintf '%%s\\n' \"$@\" > \"$log.args\"\n"
             "case \"$*\" in *gmma*) echo '==ERROR== Failed to find metric sm__pipe_tensor_op_gmma_cycles_active' > \"$log\"; "
             "exit 1;; esac\ncat '%s' > \"$log\"\n",
             kr_tmp, fx);
    kr_write_file(script, text);
    klab_row rows[2] = {a_row("fused", ROW_PASSED), a_row("baseline", ROW_PASSED)};
    profile(rows, 2);
    char path[4400];
    snprintf(path, sizeof path, "%s/runs.txt", kr_tmp);
    assert_string_equal(slurp(path), "run\nrun\nrun\n"); /* fused twice, baseline once */
    snprintf(path, sizeof path, "%s/softmax%s", kr_tmp, COUNTERS_SUFFIX);
    const char *t = slurp(path);
    kr_expect_in(t, ",fused,,1,GPU-11111111-2222-3333-4444-555555555555,0,");
    kr_expect_in(t, ",measured,this ncu does not know sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,");
    kr_expect_in(t, ",baseline,,1,GPU-11111111-2222-3333-4444-555555555555,1,softmax_fixup,");
    snprintf(path, sizeof path, "%s/profiling/softmax/4096x1024.fp16.baseline.ncu.log.args", kr_tmp);
    kr_expect_not_in(slurp(path), "gmma");
    unsetenv("KLAB_NCU");
}

/* No permission: every profiled row says so; the pass itself succeeds. */
static void test_refused_rows(void **state)
{
    (void)state;
    fake_ncu(refused_fixture, 1);
    klab_row rows[2] = {a_row("fused", ROW_PASSED), a_row("baseline", ROW_PASSED)};
    profile(rows, 2);
    char path[4400];
    snprintf(path, sizeof path, "%s/softmax%s", kr_tmp, COUNTERS_SUFFIX);
    const char *t = slurp(path);
    kr_expect_in(t, ",fused,,1,GPU-11111111-2222-3333-4444-555555555555,,,,,refused,"
                    "no permission for the GPU's performance counters (ERR_NVGPUCTRPERM)");
    kr_expect_in(t, ",baseline,,1,GPU-11111111-2222-3333-4444-555555555555,,,,,refused,");
    unsetenv("KLAB_NCU");
}

/* No ncu anywhere: the rows say so. */
static void test_no_ncu(void **state)
{
    (void)state;
    unsetenv("KLAB_NCU");
    char *saved = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    setenv("PATH", kr_tmp, 1);
    char found[4200];
    profiling_find_ncu(found, sizeof found);
    assert_string_equal(found, "");
    klab_row rows[1] = {a_row("fused", ROW_PASSED)};
    profile(rows, 1);
    if (saved) {
        setenv("PATH", saved, 1);
        free(saved);
    }
    char path[4400];
    snprintf(path, sizeof path, "%s/softmax%s", kr_tmp, COUNTERS_SUFFIX);
    kr_expect_in(slurp(path), ",fused,,1,GPU-11111111-2222-3333-4444-555555555555,,,,,no-ncu,no ncu (Nsight Compute)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_measured),
        cmocka_unit_test(test_parse_refused),
        cmocka_unit_test(test_parse_nothing),
        KR_TEST(test_plugin_pass_with_fake_ncu),
        KR_TEST(test_refused_rows),
        KR_TEST(test_unknown_metric_left_out),
        KR_TEST(test_no_ncu),
    };
    KLAB_RUN_TESTS(tests);
}
