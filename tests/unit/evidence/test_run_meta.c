/* run_meta_write_info: the one meta.ini writer of klab's runs (lab_write_meta) and of libklab_bench's
 * sessions (kb_write_meta). A reader (klab report, klab merge, a record of a run) trusts every
 * byte of it, so klab's file is checked whole, and a session's extra entries can neither shadow a
 * section of klab's nor break a line. No GPU: the device comes in as data. */
#include "klab_test.h"

#include <string.h>
#include <unistd.h>

#include "app/lab.h"
#include "app/lab_worker.h"
#include "evidence/phases.h"
#include "klab_run.h"
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
        {"phases.wall_ms", "1", "[phases] is klab's own section"},
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

/* --quick and --budget-ms in [method], after the lines a run without them has always had; read back. */
static void test_quick_and_budget_in_method(void **state)
{
    (void)state;
    static cli_opts o;
    memset(&o, 0, sizeof o);
    snprintf(o.command_line, sizeof o.command_line, "klab --quick --budget-ms 250");
    o.isolate = 1;
    o.throttle = 0.75;
    o.quick = 1;
    o.budget_ms = 250;
    device_desc d = h200();
    assert_int_equal(lab_write_meta(path, "q", "2026-11-22T07:00:00Z", &o, 7, &d, NULL, 0, err, sizeof err), 0);
    const char *text = slurp(path);
    kr_expect_in(text, "throttle = 0.75\nisolated = yes\n"
                       "quick = yes: a smoke pass, every check made, sampling cut to warmup 2, min_reps 10, "
                       "max_reps 100, budget 50 ms a case; every row flagged quick\n"
                       "budget_ms = 250: every case's sampling budget (--budget-ms), not its INI's\n");
    assert_null(strstr(text, "[phases]"));
    run_meta m;
    assert_int_equal(run_meta_read(path, &m, err, sizeof err), 0);
    assert_int_equal(m.quick, 1);
    o.quick = 0;
    assert_int_equal(lab_write_meta(path, "q", "2026-11-22T07:00:00Z", &o, 7, &d, NULL, 0, err, sizeof err), 0);
    assert_null(strstr(slurp(path), "quick = "));
    assert_int_equal(run_meta_read(path, &m, err, sizeof err), 0);
    assert_int_equal(m.quick, 0);
}

/* ---- where the time went: the parent's clock over a worker's messages, into meta.ini ---- */

static double fake_now;
static double fake_clock(void)
{
    return fake_now;
}

static void send_at(job_state *s, double t, wire_type type, const void *payload, size_t len)
{
    fake_now = t;
    wire_header h = {WIRE_MAGIC, WIRE_VERSION, (uint16_t)type, (uint32_t)len};
    lab_on_message(s, &h, payload);
}

static void phase_at(job_state *s, double t, const char *name)
{
    wire_text w;
    memset(&w, 0, sizeof w);
    snprintf(w.text, sizeof w.text, "%s", name);
    send_at(s, t, WIRE_PHASE, &w, sizeof w);
}

static void unit_at(job_state *s, double t, int k)
{
    wire_unit u;
    memset(&u, 0, sizeof u);
    u.unit = k;
    snprintf(u.kcase, sizeof u.kcase, "c%d", k);
    snprintf(u.dtype, sizeof u.dtype, "fp16");
    u.nprofiles = 1;
    snprintf(u.profiles[0], sizeof u.profiles[0], "fused");
    send_at(s, t, WIRE_UNIT, &u, sizeof u);
}

static void row_at(job_state *s, double t)
{
    klab_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.profile, sizeof r.profile, "fused");
    send_at(s, t, WIRE_ROW, &r, sizeof r);
}

/* Two units of softmax, the second worker's start after the first one died in its timing phase, then
   rmsnorm's one unit ended by DONE: each phase runs from its message to the next one's, the rows'
   burst ends teardown, and nothing between a unit's rows and the next UNIT is counted. */
static void feed(run_phases *ph)
{
    static job_state s;
    memset(&s, 0, sizeof s);
    s.label = "softmax";
    s.phases = ph;
    s.clock_ms = fake_clock;
    fake_now = 0;
    lab_phase_mark(&s, "start"); /* lab_spawn's, at the fork */
    unit_at(&s, 800, 0);
    phase_at(&s, 1000, "setup");
    phase_at(&s, 1100, "inputs");
    phase_at(&s, 1400, "reference");
    phase_at(&s, 2000, "verify");
    phase_at(&s, 2500, "timing");
    phase_at(&s, 4500, "teardown");
    row_at(&s, 4600);
    row_at(&s, 4601);
    unit_at(&s, 4700, 1);
    phase_at(&s, 4750, "setup");
    phase_at(&s, 4800, "timing");
    fake_now = 6000;
    lab_phase_mark(&s, NULL); /* the worker died: lab_spawn closes the phase it was in */
    fake_now = 6100;
    lab_phase_mark(&s, "start"); /* the fresh worker */
    unit_at(&s, 6300, 1);
    phase_at(&s, 6400, "teardown");
    int done = 0;
    send_at(&s, 6450, WIRE_DONE, &done, sizeof done);
    fake_now = 6500;
    lab_phase_mark(&s, NULL);
    assert_string_equal(s.unit.kcase, "c1"); /* the messages still did their own work */
    assert_int_equal(s.nrows, 2);
    assert_int_equal(s.done, 1);
    free(s.rows);
    memset(&s, 0, sizeof s);
    s.label = "rmsnorm";
    s.phases = ph;
    s.clock_ms = fake_clock;
    fake_now = 10000;
    lab_phase_mark(&s, "start");
    unit_at(&s, 10250, 0);
    phase_at(&s, 10300, "setup");
    phase_at(&s, 10400, "teardown");
    row_at(&s, 10500);
    send_at(&s, 10600, WIRE_DONE, &done, sizeof done);
    free(s.rows);
}

static void test_phases_into_meta(void **state)
{
    (void)state;
    static run_phases ph;
    memset(&ph, 0, sizeof ph);
    feed(&ph);
    static const struct {
        const char *plugin, *phase;
        double ms;
    } want[] = {
        {"softmax", "start", 800 + 200},  {"softmax", "setup", 100 + 50}, {"softmax", "inputs", 300},
        {"softmax", "reference", 600},    {"softmax", "verify", 500},     {"softmax", "timing", 2000 + 1200},
        {"softmax", "teardown", 100 + 50}, {"rmsnorm", "start", 250},     {"rmsnorm", "setup", 100},
        {"rmsnorm", "teardown", 100},
    };
    assert_int_equal(ph.n, 10);
    for (int i = 0; i < 10; i++) {
        assert_string_equal(ph.e[i].plugin, want[i].plugin);
        assert_string_equal(ph.e[i].phase, want[i].phase);
        if (ph.e[i].ms != want[i].ms)
            fail_msg("%s %s: %g ms, not %g", want[i].plugin, want[i].phase, ph.e[i].ms, want[i].ms);
    }
    /* PyTorch's own phases file, one plugin's: its keys under torch_ */
    char torch[300];
    snprintf(torch, sizeof torch, "%s/softmax.torch.phases.ini", dir);
    kr_write_file(torch, "; torch_rows.py\n[phases]\ncompile_ms = 3100\ntiming_ms = 1200.25\n");
    assert_int_equal(phases_read(torch, "softmax", "torch_", &ph, err, sizeof err), 0);
    unlink(torch);
    ph.wall_ms = 12345.67;

    /* the file the run's start wrote, then the end's [phases] after it, every earlier byte kept */
    static cli_opts o;
    memset(&o, 0, sizeof o);
    snprintf(o.command_line, sizeof o.command_line, "klab");
    o.isolate = 1;
    device_desc d = h200();
    assert_int_equal(lab_write_meta(path, "r1", "2026-11-22T07:00:00Z", &o, 7, &d, NULL, 0, err, sizeof err), 0);
    char before[4096];
    snprintf(before, sizeof before, "%s", slurp(path));
    assert_int_equal(run_meta_put_phases(path, &ph, err, sizeof err), 0);
    char want_text[8192];
    snprintf(want_text, sizeof want_text,
             "%s\n[phases]\n; host clock (CLOCK_MONOTONIC) per plugin and phase, for planning runs; not kernel times\n"
             "wall_ms = 12345.7\nsoftmax.start_ms = 1000.0\nsoftmax.setup_ms = 150.0\nsoftmax.inputs_ms = 300.0\n"
             "softmax.reference_ms = 600.0\nsoftmax.verify_ms = 500.0\nsoftmax.timing_ms = 3200.0\n"
             "softmax.teardown_ms = 150.0\nrmsnorm.start_ms = 250.0\nrmsnorm.setup_ms = 100.0\n"
             "rmsnorm.teardown_ms = 100.0\nsoftmax.torch_compile_ms = 3100.0\nsoftmax.torch_timing_ms = 1200.2\n",
             before);
    assert_string_equal(slurp(path), want_text);
    char partial[300];
    snprintf(partial, sizeof partial, "%s.partial", path);
    assert_int_equal(access(partial, F_OK), -1);

    /* read back as the devices parent sums its children's; written again it replaces itself */
    static run_phases back;
    memset(&back, 0, sizeof back);
    assert_int_equal(phases_read(path, NULL, NULL, &back, err, sizeof err), 0);
    assert_int_equal(back.n, ph.n);
    assert_true(back.wall_ms == 12345.7);
    assert_string_equal(back.e[11].plugin, "softmax");
    assert_string_equal(back.e[11].phase, "torch_timing");
    assert_int_equal(run_meta_put_phases(path, &back, err, sizeof err), 0);
    assert_string_equal(slurp(path), want_text);
    run_meta m;
    assert_int_equal(run_meta_read(path, &m, err, sizeof err), 0);
    assert_string_equal(m.started, "2026-11-22T07:00:00Z");
    /* nothing to say: no section, the start's bytes again */
    memset(&back, 0, sizeof back);
    assert_int_equal(run_meta_put_phases(path, &back, err, sizeof err), 0);
    assert_string_equal(slurp(path), before);

    /* the terminal's line: the wall, the three largest with their share */
    char line[512];
    phases_line(&ph, 3, line, sizeof line);
    assert_string_equal(line, "time: 12.3 s wall; most in softmax timing 3.2 s (26 %), softmax torch_compile 3.1 s "
                              "(25 %), softmax torch_timing 1.2 s (10 %)");
    int idx[16];
    assert_int_equal(phases_top(&ph, idx, 16), ph.n);
    for (int i = 1; i < ph.n; i++)
        assert_true(ph.e[idx[i - 1]].ms >= ph.e[idx[i]].ms);
    memset(&back, 0, sizeof back);
    phases_line(&back, 3, line, sizeof line);
    assert_string_equal(line, "time: wall not known");
}

/* A phases file that is not one is refused by line; a section of another name is not read. */
static void test_bad_phases_file(void **state)
{
    (void)state;
    static run_phases ph;
    static const struct {
        const char *text, *why;
    } bad[] = {
        {"[phases]\ncompile_ms = soon\n", ":2: [phases] key 'compile_ms': 'soon' is not a number of milliseconds"},
        {"[phases]\ncompile_ms = -1\n", ":2: [phases] key 'compile_ms': '-1' is not a number of milliseconds"},
        {"[phases]\ncompile_ms = nan\n", ":2: [phases] key 'compile_ms': 'nan' is not a number of milliseconds"},
        {"[phases]\ncompile = 5\n", ":2: [phases] key 'compile' does not end in _ms"},
    };
    char file[300];
    snprintf(file, sizeof file, "%s/bad.ini", dir);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        memset(&ph, 0, sizeof ph);
        kr_write_file(file, bad[i].text);
        assert_int_equal(phases_read(file, "softmax", "torch_", &ph, err, sizeof err), -1);
        kr_expect_in(err, bad[i].why);
    }
    memset(&ph, 0, sizeof ph);
    kr_write_file(file, "[phases]\nsoftmax_ms = 5\n"); /* a meta.ini key needs PLUGIN.PHASE_ms */
    assert_int_equal(phases_read(file, NULL, NULL, &ph, err, sizeof err), -1);
    kr_expect_in(err, "[phases] key 'softmax_ms' is not PLUGIN.PHASE_ms");
    memset(&ph, 0, sizeof ph);
    kr_write_file(file, "[other]\nx = y\n[phases]\na.b_ms = 1\n");
    assert_int_equal(phases_read(file, NULL, NULL, &ph, err, sizeof err), 0);
    assert_int_equal(ph.n, 1);
    assert_string_equal(ph.e[0].plugin, "a");
    assert_string_equal(ph.e[0].phase, "b");
    unlink(file);
}

/* The parent's own failed rows of a quick run are flagged quick like its worker's; a profile that has
   reported gets none. */
static void test_parent_rows_of_a_quick_run(void **state)
{
    (void)state;
    for (int quick = 0; quick < 2; quick++) {
        static job j;
        memset(&j, 0, sizeof j);
        j.quick = quick;
        snprintf(j.plugin_name, sizeof j.plugin_name, "softmax");
        snprintf(j.run_id, sizeof j.run_id, "r1");
        static job_state s;
        memset(&s, 0, sizeof s);
        wire_unit u;
        memset(&u, 0, sizeof u);
        snprintf(u.kcase, sizeof u.kcase, "4096x1024");
        snprintf(u.dtype, sizeof u.dtype, "fp16");
        u.nprofiles = 2;
        snprintf(u.profiles[0], sizeof u.profiles[0], "baseline");
        snprintf(u.profiles[1], sizeof u.profiles[1], "fused");
        klab_row reported;
        memset(&reported, 0, sizeof reported);
        snprintf(reported.profile, sizeof reported.profile, "baseline");
        lab_add_row(&s, &reported);
        lab_fail_unit(&s, &j, &u, 1, "worker killed by signal 11 in timing");
        assert_int_equal(s.nrows, 2);
        assert_string_equal(s.rows[1].profile, "fused");
        assert_int_equal(s.rows[1].status, ROW_FAILED);
        assert_int_equal(row_has_flag(&s.rows[1], ROW_FLAG_QUICK), quick);
        assert_string_equal(s.rows[1].flags, quick ? "quick" : "");
        free(s.rows);
    }
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
        cmocka_unit_test(test_quick_and_budget_in_method),
        cmocka_unit_test(test_phases_into_meta),
        cmocka_unit_test(test_bad_phases_file),
        cmocka_unit_test(test_parent_rows_of_a_quick_run),
    };
    if (!getenv("CMOCKA_MESSAGE_OUTPUT"))
        cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
