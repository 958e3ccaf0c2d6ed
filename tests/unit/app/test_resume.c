/* klab --resume without a GPU: where an interrupted CSV is cut back to (the last unit its progress file
 * says it holds whole: a torn row, a torn progress line and a mark past the file's end are each passed
 * over), what a resumed plugin keeps (rows, samples files, progress lines) and where its worker starts;
 * the selection stored in meta.ini read back into the same options; and through the binary, a run
 * folder refused for a differing commit, INI, CSV schema, command line, for having no meta.ini or no
 * [selection], and with --devices, each exit 2 naming what differs, while a matching one goes on to
 * the GPU probe (exit 3 here; on a GPU machine the fixture's GPU differs, exit 2). */
#include "klab_test.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/cli.h"
#include "app/lab.h"
#include "app/lab_resume.h"
#include "app/lab_selection.h"
#include "evidence/csv_read.h"
#include "evidence/csv_sink.h"
#include "evidence/progress_file.h"
#include "evidence/run_meta.h"
#include "klab_run.h"
#include "process/samples_file.h"
#include "version.h"

static char err[2000];
static cfg_experiment cfg;
static cli_opts opts;

static void parse(const char **words)
{
    int argc = 0;
    while (words[argc])
        argc++;
    if (cli_parse(argc, (char **)words, &opts, err, sizeof err) != 0)
        fail_msg("cli_parse: %s", err);
}
#define PARSE(...) parse((const char *[]){"klab", __VA_ARGS__, NULL})

static void path_of(char *buf, size_t len, const char *rel)
{
    snprintf(buf, len, "%s/%s", kr_tmp, rel);
}

static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static char *slurp(const char *path)
{
    size_t len;
    char *text = file_read_all(path, &len);
    if (!text)
        fail_msg("cannot read %s", path);
    return text;
}

static void append(const char *path, const char *text)
{
    FILE *fp = fopen(path, "a");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

/* Three units: a fp32, a fp16, b fp32 (the INI's order). */
static const char ini_text[] = "[experiment]\nplugin = vector_add\n[defaults]\ndtypes = fp32, fp16\n"
                               "[case a]\nshape = 1024\n[case b]\nshape = 2048\ndtypes = fp32\n";

static void load_cfg(char *ini, size_t len)
{
    path_of(ini, len, "va.ini");
    kr_write_file(ini, ini_text);
    if (cfg_load(ini, &cfg, err, sizeof err) != 0)
        fail_msg("%s", err);
}

static klab_row row_of(const char *kcase, const char *dtype, const char *profile)
{
    klab_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.run_id, sizeof r.run_id, "R");
    snprintf(r.plugin, sizeof r.plugin, "vector_add");
    snprintf(r.kcase, sizeof r.kcase, "%s", kcase);
    snprintf(r.dtype, sizeof r.dtype, "%s", dtype);
    snprintf(r.profile, sizeof r.profile, "%s", profile);
    snprintf(r.l2, sizeof r.l2, "cold");
    snprintf(r.launch, sizeof r.launch, "stream");
    r.has_time = 1;
    r.reps = 20;
    r.median_ms = 0.5;
    r.seed = 9;
    return r;
}

/* The writer: each unit's line says where its rows end, after they are on disk; the last whole one
   is found again. */
static void test_progress_round_trip(void **state)
{
    (void)state;
    char csv[4200], partial[4300], progress[4300];
    path_of(csv, sizeof csv, "out/R/vector_add.csv");
    csv_sink sink;
    assert_int_equal(csv_sink_open(&sink, csv, err, sizeof err), 0);
    progress_file p;
    assert_int_equal(progress_open(&p, csv, 0, err, sizeof err), 0);
    klab_row r = row_of("a", "fp32", "naive");
    csv_sink_row(&sink, &r);
    assert_int_equal(progress_mark_unit(&p, &sink, 0, "a", "fp32", err, sizeof err), 0);
    long long after0 = file_size(sink.partial);
    r = row_of("a", "fp16", "naive");
    csv_sink_row(&sink, &r);
    csv_sink_row(&sink, &r);
    assert_int_equal(progress_mark_unit(&p, &sink, 1, "a", "fp16", err, sizeof err), 0);
    long long after1 = file_size(sink.partial);
    assert_true(after1 > after0);
    csv_sink_row(&sink, &r); /* unit 2 begun, not marked */
    fclose(sink.fp);
    progress_close(&p, 0);
    snprintf(partial, sizeof partial, "%s.partial", csv);
    assert_int_equal(progress_path(csv, progress, sizeof progress), 0);
    path_of(csv, sizeof csv, "out/R/vector_add.progress");
    assert_string_equal(progress, csv);
    progress_mark m;
    long long keep_log;
    assert_int_equal(progress_last(progress, partial, &m, &keep_log, err, sizeof err), 1);
    assert_int_equal(m.unit, 1);
    assert_string_equal(m.kcase, "a");
    assert_string_equal(m.dtype, "fp16");
    assert_int_equal(m.bytes, after1);
    assert_int_equal(m.rows, 3);
    assert_int_equal(keep_log, file_size(progress));
}

/* A fixture as SIGKILL leaves it: a .partial whose last row is torn, a progress file whose last line
   is torn, samples files of a kept row, of a row cut away and one never completed. Resume keeps the
   header and units 0 and 1, removes what belongs to the rest, and starts the worker at unit 2. */
static void test_partial_cut_to_last_whole_unit(void **state)
{
    (void)state;
    char ini[4200], csv[4200], partial[4300], progress[4300], dir[4300], path[4400];
    load_cfg(ini, sizeof ini);
    path_of(csv, sizeof csv, "out/R/vector_add.csv");
    snprintf(partial, sizeof partial, "%s.partial", csv);
    snprintf(progress, sizeof progress, "%s/out/R/vector_add.progress", kr_tmp);
    csv_sink sink;
    assert_int_equal(csv_sink_open(&sink, csv, err, sizeof err), 0);
    klab_row r0 = row_of("a", "fp32", "naive"), r1 = row_of("a", "fp16", "naive"),
             r2 = row_of("a", "fp16", "vectorized"), r3 = row_of("b", "fp32", "naive");
    csv_sink_row(&sink, &r0);
    fflush(sink.fp);
    long long unit0 = file_size(partial);
    csv_sink_row(&sink, &r1);
    csv_sink_row(&sink, &r2);
    fflush(sink.fp);
    long long unit1 = file_size(partial);
    csv_sink_row(&sink, &r3);
    fclose(sink.fp);
    /* the last row torn in the middle, as a killed parent leaves a stdio buffer */
    assert_int_equal(truncate(partial, (off_t)(file_size(partial) - 7)), 0);
    char text[600];
    snprintf(text, sizeof text, "# comment\n0\ta\tfp32\t%lld\t1\n1\ta\tfp16\t%lld\t3\n2\tb\tfp", unit0, unit1);
    kr_write_file(progress, text);
    const klab_row *kept_row = &r1, *cut_row = &r3;
    char kept_samples[4400], cut_samples[4400];
    samples_file_path(csv, "vector_add", kept_row->kcase, kept_row->dtype, kept_row->profile, kept_samples,
                      sizeof kept_samples);
    samples_file_path(csv, "vector_add", cut_row->kcase, cut_row->dtype, cut_row->profile, cut_samples,
                      sizeof cut_samples);
    snprintf(dir, sizeof dir, "%s", kept_samples);
    *strrchr(dir, '/') = 0;
    assert_int_equal(make_dirs(dir), 0);
    kr_write_file(kept_samples, "step,ms\n0,1\n");
    kr_write_file(cut_samples, "step,ms\n0,1\n");
    snprintf(path, sizeof path, "%s/a.fp32.naive.csv.partial", dir);
    kr_write_file(path, "step,ms\n");

    PARSE("--config", ini, "--resume", "out/R");
    job_state s;
    memset(&s, 0, sizeof s);
    int start = -1;
    assert_int_equal(lab_plugin_sink(&opts, csv, &cfg, &sink, &s, &start, err, sizeof err), 0);
    assert_int_equal(start, 2);
    assert_int_equal(s.done, 0);
    assert_int_equal(s.nrows, 3);
    assert_string_equal(s.rows[2].profile, "vectorized");
    assert_int_equal(sink.rows, 3);
    assert_int_equal(file_size(partial), unit1);
    assert_int_equal(access(kept_samples, F_OK), 0);
    assert_int_equal(access(cut_samples, F_OK), -1);
    assert_int_equal(access(path, F_OK), -1);
    /* the progress file keeps its lines up to unit 1 and goes on from there */
    char *p = slurp(progress);
    snprintf(text, sizeof text, "# comment\n0\ta\tfp32\t%lld\t1\n1\ta\tfp16\t%lld\t3\n", unit0, unit1);
    assert_string_equal(p, text);
    free(p);
    /* the run then appends unit 2's rows and completes the file: every row whole, none twice */
    csv_sink_row(&sink, &r3);
    s.sink = &sink;
    s.unit.unit = 2;
    snprintf(s.unit.kcase, sizeof s.unit.kcase, "b");
    snprintf(s.unit.dtype, sizeof s.unit.dtype, "fp32");
    lab_unit_done(&s);
    assert_int_equal(csv_sink_commit(&sink, err, sizeof err), 0);
    progress_close(&s.progress, 1);
    assert_int_equal(access(progress, F_OK), -1);
    klab_row *rows = NULL;
    assert_int_equal(csv_read_rows(csv, &rows, err, sizeof err), 4);
    assert_string_equal(rows[3].kcase, "b");
    free(rows);
    free(s.rows);
}

/* Marks the partial file does not bear out are passed over: one past its end (its bytes lost with the
   node), one that does not end a line; with none left, only the header is kept. A mark naming another
   unit than this selection's refuses the plugin. */
static void test_marks_not_borne_out(void **state)
{
    (void)state;
    char ini[4200], csv[4200], partial[4300], progress[4300];
    load_cfg(ini, sizeof ini);
    path_of(csv, sizeof csv, "out/R/vector_add.csv");
    snprintf(partial, sizeof partial, "%s.partial", csv);
    snprintf(progress, sizeof progress, "%s/out/R/vector_add.progress", kr_tmp);
    csv_sink sink;
    assert_int_equal(csv_sink_open(&sink, csv, err, sizeof err), 0);
    klab_row r = row_of("a", "fp32", "naive");
    csv_sink_row(&sink, &r);
    fclose(sink.fp);
    long long size = file_size(partial);
    char text[400];
    snprintf(text, sizeof text, "0\ta\tfp32\t%lld\t1\n1\ta\tfp16\t%lld\t2\n", size - 3, size + 100);
    kr_write_file(progress, text);
    progress_mark m;
    long long keep_log;
    assert_int_equal(progress_last(progress, partial, &m, &keep_log, err, sizeof err), 0);
    assert_int_equal(m.unit, -1);
    char *head = slurp(partial);
    assert_int_equal(m.bytes, (long long)(strchr(head, '\n') + 1 - head));
    free(head);
    assert_int_equal(keep_log, 0);

    snprintf(text, sizeof text, "0\tb\tfp32\t%lld\t1\n", size);
    kr_write_file(progress, text);
    PARSE("--config", ini, "--resume", "out/R");
    job_state s;
    memset(&s, 0, sizeof s);
    int start;
    assert_int_equal(lab_plugin_sink(&opts, csv, &cfg, &sink, &s, &start, err, sizeof err), -1);
    kr_expect_in(err, "unit 0 was b fp32, in this selection it is a fp32");
}

/* A complete CSV is kept as it is: its rows read, no sink opened, nothing left to run; one with no
   rows (its plugin was refused) runs again. */
static void test_complete_csv_kept(void **state)
{
    (void)state;
    char ini[4200], csv[4200];
    load_cfg(ini, sizeof ini);
    path_of(csv, sizeof csv, "out/R/vector_add.csv");
    csv_sink sink;
    assert_int_equal(csv_sink_open(&sink, csv, err, sizeof err), 0);
    klab_row r = row_of("a", "fp32", "naive");
    csv_sink_row(&sink, &r);
    assert_int_equal(csv_sink_commit(&sink, err, sizeof err), 0);
    long long size = file_size(csv);
    PARSE("--config", ini, "--resume", "out/R");
    job_state s;
    memset(&s, 0, sizeof s);
    int start;
    assert_int_equal(lab_plugin_sink(&opts, csv, &cfg, &sink, &s, &start, err, sizeof err), 0);
    assert_null(sink.fp);
    assert_int_equal(s.done, 1);
    assert_int_equal(s.nrows, 1);
    assert_int_equal(file_size(csv), size);
    free(s.rows);
    /* a header alone is a plugin refused before its first unit: it is asked again */
    assert_int_equal(csv_sink_open(&sink, csv, err, sizeof err), 0);
    assert_int_equal(csv_sink_commit(&sink, err, sizeof err), 0);
    memset(&s, 0, sizeof s);
    assert_int_equal(lab_plugin_sink(&opts, csv, &cfg, &sink, &s, &start, err, sizeof err), 0);
    assert_non_null(sink.fp);
    assert_int_equal(s.done, 0);
    assert_int_equal(start, 0);
    csv_sink_discard(&sink);
    progress_close(&s.progress, 1);
}

/* [selection] written by lab_write_meta and read back gives the options of the command line that
   made the run; a bare --resume takes them all. */
static void test_selection_round_trip(void **state)
{
    (void)state;
    char ini[4200], meta[4200];
    load_cfg(ini, sizeof ini);
    path_of(meta, sizeof meta, "meta.ini");
    PARSE("--plugin-path", "/p/one", "--plugin-path", "rel/two", "--ini-dir", "/i", "--plugin", "vector_add,softmax",
          "--case", "a,b", "--dtype", "fp16,bf16", "--profile", "naive", "--shard", "2/3", "--batched", "--torch",
          "/opt/py", "--timeout", "30", "--throttle", "0.5", "--device", "2", "--no-isolate", "--tune-cache", "/t.ini");
    static cli_opts made;
    made = opts;
    device_desc d;
    memset(&d, 0, sizeof d);
    assert_int_equal(lab_write_meta(meta, "R", "2026-01-01T00:00:00Z", &made, 9, &d, &cfg, 1, err, sizeof err), 0);
    static lab_selection stored;
    assert_int_equal(lab_selection_read(meta, &stored, err, sizeof err), 1);
    PARSE("--resume", "R");
    assert_int_equal(lab_selection_apply(&opts, &stored, err, sizeof err), 0);
    assert_int_equal(opts.nplugins, 2);
    assert_string_equal(opts.plugins[1], "softmax");
    assert_int_equal(opts.filter.ncases, 2);
    assert_int_equal(opts.filter.dtypes, made.filter.dtypes);
    assert_string_equal(opts.filter.profiles[0], "naive");
    assert_int_equal(opts.filter.shard_k, 2);
    assert_int_equal(opts.filter.shard_n, 3);
    assert_int_equal(opts.batched, 1);
    assert_int_equal(opts.with_torch, 1);
    assert_string_equal(opts.torch_python, "/opt/py");
    assert_true(opts.timeout_s == 30 && opts.throttle == 0.5);
    assert_int_equal(opts.device, 2);
    assert_int_equal(opts.isolate, 0);
    assert_string_equal(opts.tune_cache, "/t.ini");
    assert_int_equal(opts.npaths, 2);
    assert_string_equal(opts.plugin_paths[0], "/p/one");
    assert_true(opts.plugin_paths[1][0] == '/' && strstr(opts.plugin_paths[1], "/rel/two"));
    assert_string_equal(opts.resume, "R");
    /* the same words again agree; another case does not */
    PARSE("--resume", "R", "--batched", "--dtype", "bf16,fp16", "--shard", "2/3");
    assert_int_equal(lab_selection_apply(&opts, &stored, err, sizeof err), 0);
    PARSE("--resume", "R", "--case", "c");
    assert_int_equal(lab_selection_apply(&opts, &stored, err, sizeof err), -1);
    assert_string_equal(err, "--case: the run was made with 'a,b', this command line gives 'c'");
    PARSE("--resume", "R", "--hot");
    assert_int_equal(lab_selection_apply(&opts, &stored, err, sizeof err), -1);
    assert_string_equal(err, "--hot: the run was made with '(not given)', this command line gives 'yes'");
}

/* ---- through the binary ---- */

static char run_dir[4200], meta[4300], ini[4200], plugins[4200];

/* out/R as a run of `klab --plugin-path P --config va.ini --dtype fp32 --seed 9 --run-id R` left it
   before its first CSV, on a GPU that is not this machine's. */
static void make_run(void)
{
    path_of(plugins, sizeof plugins, "plugins");
    if (access(plugins, F_OK) != 0) {
        assert_int_equal(make_dirs(plugins), 0);
        kr_link_plugin(plugins, KLAB_BINARY_DIR "/plugins/vector_add.so");
    }
    load_cfg(ini, sizeof ini);
    path_of(run_dir, sizeof run_dir, "out/R");
    assert_int_equal(make_dirs(run_dir), 0);
    snprintf(meta, sizeof meta, "%s/meta.ini", run_dir);
    PARSE("--plugin-path", plugins, "--config", ini, "--dtype", "fp32", "--seed", "9", "--run-id", "R");
    device_desc d;
    memset(&d, 0, sizeof d);
    snprintf(d.info.name, sizeof d.info.name, "Fixture GPU");
    snprintf(d.info.uuid, sizeof d.info.uuid, "GPU-00000000-fixture");
    assert_int_equal(lab_write_meta(meta, "R", "2026-01-01T00:00:00Z", &opts, 9, &d, &cfg, 1, err, sizeof err), 0);
}

/* meta.ini with `from` replaced by `to`. */
static void edit_meta(const char *from, const char *to)
{
    char *text = slurp(meta);
    char *at = strstr(text, from);
    if (!at)
        fail_msg("no '%s' in meta.ini", from);
    char *out = malloc(strlen(text) + strlen(to) + 1);
    snprintf(out, strlen(text) + strlen(to) + 1, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    kr_write_file(meta, out);
    free(out);
    free(text);
}

static void expect_refusal(const char *what, const char *const *extra)
{
    const char *args[16] = {"--resume", "out/R"};
    int n = 2;
    for (; extra && *extra; extra++)
        args[n++] = *extra;
    args[n] = NULL;
    klab_result r = kr_run(args);
    assert_int_equal(r.rc, 2);
    kr_expect_in(r.out, what);
    kr_expect_not_in(r.out, "timing needs a GPU"); /* refused before the GPU */
    free(r.out);
}

static void test_matching_run_goes_on(void **state)
{
    (void)state;
    make_run();
    klab_result r = KLAB("--resume", "out/R");
    kr_expect_in(r.out, "klab: resuming run R (started 2026-01-01T00:00:00Z) in out/R\n");
    if (r.rc == 3) {
        kr_expect_in(r.out, "timing needs a GPU");
    } else { /* a GPU machine: the fixture's GPU is not this one */
        assert_int_equal(r.rc, 2);
        kr_expect_in(r.out, "the GPU differs: the run's is GPU-00000000-fixture (Fixture GPU)");
    }
    free(r.out);
    /* the run id under --out, and the stored options given again, go too */
    r = KLAB("--resume", "R", "--out", "out", "--dtype", "fp32", "--config", ini);
    kr_expect_in(r.out, "klab: resuming run R ");
    assert_true(r.rc == 3 || r.rc == 2);
    kr_expect_not_in(r.out, "cannot resume R: --");
    free(r.out);
}

static void test_refusals(void **state)
{
    (void)state;
    make_run();
    edit_meta("commit = " KLAB_GIT_COMMIT, "commit = 0123abc");
    expect_refusal("klab: cannot resume out/R: the commit differs: the run was made by 0123abc, this klab is "
                   KLAB_GIT_COMMIT, NULL);
    make_run();
    edit_meta("csv_schema = ", "csv_schema = 9");
    expect_refusal("the CSV schema differs: the run's is 9", NULL);
    make_run();
    append(ini, "; edited after the run began\n");
    expect_refusal("klab: cannot resume out/R: vector_add's INI differs: the run hashed it as ", NULL);
    make_run();
    edit_meta("[selection]", "[selection-not]");
    expect_refusal("its meta.ini has no [selection]", NULL);
    make_run();
    expect_refusal("--dtype: the run was made with 'fp32', this command line gives 'fp16'",
                   (const char *[]){"--dtype", "fp16", NULL});
    expect_refusal("--seed: the run was made with 9, this command line gives 10",
                   (const char *[]){"--seed", "10", NULL});
    expect_refusal("--resume continues one klab's run folder, and a --devices run has one per GPU",
                   (const char *[]){"--devices", "0,1", NULL});
    assert_int_equal(unlink(meta), 0);
    expect_refusal("klab: cannot resume out/R: it has no meta.ini", NULL);
    expect_refusal("klab: cannot resume out/nothing: no such run folder (nor out/out/nothing)",
                   (const char *[]){"--resume", "out/nothing", NULL});
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KR_TEST(test_progress_round_trip),
        KR_TEST(test_partial_cut_to_last_whole_unit),
        KR_TEST(test_marks_not_borne_out),
        KR_TEST(test_complete_csv_kept),
        KR_TEST(test_selection_round_trip),
        KR_TEST(test_matching_run_goes_on),
        KR_TEST(test_refusals),
    };
    KLAB_RUN_TESTS(tests);
}
