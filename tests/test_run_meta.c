/* run_meta_write_info: the one meta.ini writer of klab's runs (lab_write_meta) and of libklab_bench's
 * sessions (kb_write_meta). A reader (klab report, klab merge, a record of a sitting) trusts every
 * byte of it, so klab's file is checked whole, and a session's extra entries can neither shadow a
 * section of klab's nor break a line. No GPU: the device comes in as data. */
#include "klab_test.h"

#include <string.h>
#include <unistd.h>

#include "app/lab.h"
#include "evidence/csv_sink.h"
#include "evidence/run_meta.h"
#include "version.h"

static char dir[] = "/tmp/klab_run_meta_XXXXXX";
static char path[256];
static char err[1200];

static device_desc h200(void)
{
    device_desc d;
    memset(&d, 0, sizeof d);
    d.info.ordinal = 1;
    snprintf(d.info.name, sizeof d.info.name, "NVIDIA H200");
    snprintf(d.info.uuid, sizeof d.info.uuid, "GPU-0e5d");
    d.info.cc = 90;
    d.info.sms = 132;
    d.info.clock_khz = 1980000;
    d.info.mem_clock_khz = 2619000;
    d.info.bus_width_bits = 6144;
    d.info.l2_bytes = 60 << 20;
    d.info.total_mem_bytes = 141.0 * 1073741824.0;
    d.info.driver_version = 13000;
    d.info.runtime_version = 12090;
    d.launch_floor_ms = 0.00234;
    d.flush_bytes = 256.0 * 1048576.0;
    d.mem_gbps = 4800;
    d.tensor_tflops = 989.4;
    return d;
}

/* the file at `path`, checked for being there; kept until the next call */
static const char *slurp(const char *p)
{
    static char *text;
    free(text);
    size_t len = 0;
    text = file_read_all(p, &len);
    assert_non_null(text);
    return text;
}

static const char *device_text =
    "\n[device]\nordinal = 1\nname = NVIDIA H200\nuuid = GPU-0e5d\ncompute_capability = 9.0\nsms = 132\n"
    "sm_clock_peak_mhz = 1980\nmem_clock_peak_mhz = 2619\nbus_width_bits = 6144\nl2_mib = 60.0\n"
    "memory_gib = 141.0\ndatasheet_gbps = 4800\ntensor_peak_tflops = 989.4\ndriver = 13.0\nruntime = 12.9\n";

/* klab's own run, through lab_write_meta: the file as klab has always written it, byte for byte
   (the text below is the writer's before it was shared with libklab_bench), and since --resume the
   run's selection at its end (lab_selection.h). */
static void test_klab_run_whole_file(void **state)
{
    (void)state;
    static cli_opts o;
    static cfg_experiment cfg;
    memset(&o, 0, sizeof o);
    memset(&cfg, 0, sizeof cfg);
    snprintf(o.command_line, sizeof o.command_line, "klab --plugin softmax --batched --shard 1/4");
    o.batched = 1;
    o.isolate = 1;
    o.throttle = 0.75;
    o.filter.shard_k = 1;
    o.filter.shard_n = 4;
    snprintf(cfg.plugin, sizeof cfg.plugin, "softmax");
    snprintf(cfg.path, sizeof cfg.path, "%s/no-such.ini", dir);
    device_desc d = h200();
    assert_int_equal(lab_write_meta(path, "r1", "2026-11-22T07:00:00Z", &o, 7, &d, &cfg, 1, err, sizeof err), 0);
    char want[4096];
    snprintf(want, sizeof want,
             "; written by klab %s; the CSV columns are described in README.md\n[run]\nid = r1\n"
             "started = 2026-11-22T07:00:00Z\ncommand = klab --plugin softmax --batched --shard 1/4\n"
             "klab_version = %s\ncommit = %s\ncsv_schema = 3\nseed = 7\nshard = 1/4\n"
             "\n[inis]\nsoftmax = unreadable\n\n[ini_paths]\nsoftmax = %s\n%s"
             "\n[method]\nl2 = cold: before each sample a kernel reads 256 MiB (at least 4x the L2), leaving only "
             "clean lines\nlaunch = batched: N runs per sample (one graph, or queued), N copies rotated, time / N\n"
             "timer = CUDA events around each sample, profiles interleaved in rounds\nlaunch_floor_us = 2.34\n"
             "throttle = 0.75\nisolated = yes\n"
             "\n[selection]\nshard = 1/4\nbatched = yes\ndevice = 0\ntimeout = 0\nthrottle = 0.75\n",
             KLAB_VERSION, KLAB_VERSION, KLAB_GIT_COMMIT, cfg.path, device_text);
    assert_string_equal(slurp(path), want);
    char partial[300];
    snprintf(partial, sizeof partial, "%s.partial", path);
    assert_int_equal(access(partial, F_OK), -1);
}

/* A libklab_bench session's file: klab's [run], [device] and [method] from data, no [inis] (no INI
   was hashed), then the caller's sections grouped in the order of their first entry. */
static void test_session_with_extras(void **state)
{
    (void)state;
    device_desc d = h200();
    const char *keys[] = {"torch.version", "decode.steps", "torch.cuda"};
    const char *values[] = {"2.9.0+cu130", "1000", "13.0"};
    run_meta_info m = {.run_id = "torch", .started = "2026-11-22T08:00:00Z",
                       .command = "python3 tools/torch_rows.py --mode hot", .seed = 20261122, .csv_schema = 3,
                       .dev = &d, .hot = 1, .throttle = 0.75, .extra_keys = keys, .extra_values = values,
                       .nextra = 3};
    assert_int_equal(run_meta_write_info(path, &m, err, sizeof err), 0);
    char want[4096];
    snprintf(want, sizeof want,
             "; written by klab %s; the CSV columns are described in README.md\n[run]\nid = torch\n"
             "started = 2026-11-22T08:00:00Z\ncommand = python3 tools/torch_rows.py --mode hot\n"
             "klab_version = %s\ncommit = %s\ncsv_schema = 3\nseed = 20261122\n%s"
             "\n[method]\nl2 = hot: each sample right after an untimed run of the same subject, no flush\n"
             "launch = stream\ntimer = CUDA events around each sample, profiles interleaved in rounds\n"
             "launch_floor_us = 2.34\nthrottle = 0.75\nisolated = no\n"
             "\n[torch]\nversion = 2.9.0+cu130\ncuda = 13.0\n\n[decode]\nsteps = 1000\n",
             KLAB_VERSION, KLAB_VERSION, KLAB_GIT_COMMIT, device_text);
    assert_string_equal(slurp(path), want);
}

/* Each refused entry leaves no file: neither meta.ini nor its .partial. */
static void test_bad_extras_write_nothing(void **state)
{
    (void)state;
    static const struct {
        const char *key, *value, *why;
    } bad[] = {
        {"version", "2.9", "is not SECTION.KEY"},
        {"torch.", "2.9", "is not SECTION.KEY"},
        {".version", "2.9", "is not SECTION.KEY"},
        {"torch.a.b", "2.9", "is not SECTION.KEY"},
        {"torch.ver sion", "2.9", "is not SECTION.KEY"},
        {"run.commit", "abc", "[run] is klab's own section"},
        {"device.name", "x", "[device] is klab's own section"},
        {"merge.runs", "2", "[merge] is klab's own section"},
        {"torch.version", "2.9\n[run]", "the value holds a line break"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        unlink(path);
        const char *k[] = {"torch.ok", bad[i].key}, *v[] = {"1", bad[i].value};
        run_meta_info m = {.run_id = "r", .started = "s", .command = "c", .csv_schema = 3, .extra_keys = k,
                           .extra_values = v, .nextra = 2};
        err[0] = 0;
        assert_int_equal(run_meta_write_info(path, &m, err, sizeof err), -1);
        if (!strstr(err, bad[i].why))
            fail_msg("'%s': %s", bad[i].key, err);
        assert_int_equal(access(path, F_OK), -1);
    }
    /* a section that merely starts like one of klab's is the caller's own */
    const char *k[] = {"runner.name"}, *v[] = {"x"};
    run_meta_info m = {.run_id = "r", .started = "s", .command = "c", .csv_schema = 2, .extra_keys = k,
                       .extra_values = v, .nextra = 1};
    assert_int_equal(run_meta_write_info(path, &m, err, sizeof err), 0);
    const char *text = slurp(path);
    assert_non_null(strstr(text, "csv_schema = 2\nseed = 0\n\n[runner]\nname = x\n"));
    assert_null(strstr(text, "[device]"));
}

static int make_dir(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    snprintf(path, sizeof path, "%s/meta.ini", dir);
    return 0;
}

static int remove_dir(void **state)
{
    (void)state;
    unlink(path);
    return rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_klab_run_whole_file),
        cmocka_unit_test(test_session_with_extras),
        cmocka_unit_test(test_bad_extras_write_nothing),
    };
    if (!getenv("CMOCKA_MESSAGE_OUTPUT"))
        cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
