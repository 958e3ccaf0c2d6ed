/* klab merge: run folders (shards, GPUs) into one. Their rows, counters lines and step samples are
 * kept once each; the same inputs merged again, in another order, or with the merged folder among
 * them, give the same bytes (idempotent); runs of another commit, INI or schema, a row key with two
 * different results, an interrupted run are refused naming what differs, and nothing is written.
 * Through the binary too: exit 0 for a merge, 2 for a refusal. */
#include "klab_test.h"

#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/lab.h"
#include "evidence/counters.h"
#include "evidence/csv_read.h"
#include "evidence/csv_sink.h"
#include "evidence/run_meta.h"
#include "klab_run.h"
#include "scale/merge.h"

static char err[2000];

static void path_of(char *buf, size_t len, const char *rel)
{
    snprintf(buf, len, "%s/%s", kr_tmp, rel);
}

static klab_row unit_row(const char *kcase, const char *dtype, const char *profile, int gpu, double median)
{
    klab_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.run_id, sizeof r.run_id, "r1");
    snprintf(r.plugin, sizeof r.plugin, "softmax");
    snprintf(r.kcase, sizeof r.kcase, "%s", kcase);
    snprintf(r.dtype, sizeof r.dtype, "%s", dtype);
    snprintf(r.profile, sizeof r.profile, "%s", profile);
    snprintf(r.l2, sizeof r.l2, "cold");
    snprintf(r.launch, sizeof r.launch, "stream");
    r.has_time = 1;
    r.reps = 30;
    r.median_ms = median;
    r.seed = 7;
    char uuid[48];
    snprintf(uuid, sizeof uuid, "GPU-0000000%d-aaaa-bbbb-cccc-dddddddddddd", gpu);
    row_set_gpu(&r, gpu, "NVIDIA H200", uuid);
    return r;
}

/* A run folder as klab writes it: meta.ini, softmax.csv, softmax.counters.csv, a samples file. */
static void make_run(const char *rel, const char *commit, const char *ini_hash, const klab_row *rows, int n)
{
    char dir[4200], path[4400], text[1800], words[400];
    path_of(dir, sizeof dir, rel);
    assert_int_equal(make_dirs(dir), 0);
    memset(words, 'x', sizeof words - 1); /* a command line past inih's 200-byte line */
    words[sizeof words - 1] = 0;
    snprintf(text, sizeof text,
             "; written by klab\n[run]\nid = r1\ncommand = klab --case %s\ncommit = %s\ncsv_schema = %d\nseed = 7\n\n"
             "[inis]\nsoftmax = %s\n\n"
             "[ini_paths]\nsoftmax = ini/softmax.ini\n\n[device]\nordinal = %d\nname = NVIDIA H200\nuuid = %s\n",
             words, commit, ROW_SCHEMA, ini_hash, rows[0].gpu_index, rows[0].gpu_uuid);
    snprintf(path, sizeof path, "%s/meta.ini", dir);
    kr_write_file(path, text);
    csv_sink s;
    snprintf(path, sizeof path, "%s/softmax.csv", dir);
    assert_int_equal(csv_sink_open(&s, path, err, sizeof err), 0);
    for (int i = 0; i < n; i++)
        assert_int_equal(csv_sink_row(&s, &rows[i]), 0);
    assert_int_equal(csv_sink_commit(&s, err, sizeof err), 0);
    assert_int_equal(counters_open(&s, dir, "softmax", err, sizeof err), 0);
    for (int i = 0; i < n; i++) {
        ncu_result res;
        memset(&res, 0, sizeof res);
        res.nkernels = 1;
        snprintf(res.k[0].name, sizeof res.k[0].name, "softmax_kernel<float, 4>(float const*, float*, int)");
        snprintf(res.k[0].value[0], sizeof res.k[0].value[0], "%.1f", 80 + rows[i].median_ms);
        assert_int_equal(counters_add(&s, &rows[i], &res), 0);
    }
    assert_int_equal(csv_sink_commit(&s, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/softmax.samples", dir);
    assert_int_equal(make_dirs(path), 0);
    snprintf(path, sizeof path, "%s/softmax.samples/%s.%s.fused.csv", dir, rows[0].kcase, rows[0].dtype);
    kr_write_file(path, "sample_ms\n0.5\n");
}

/* Merges a, b (NULL: a alone) and c (NULL: none) into out_rel. */
static int merge(const char *out_rel, const char *a, const char *b, const char *c)
{
    char out[4200], pa[4200], pb[4200], pc[4200];
    path_of(out, sizeof out, out_rel);
    path_of(pa, sizeof pa, a);
    if (b)
        path_of(pb, sizeof pb, b);
    if (c)
        path_of(pc, sizeof pc, c);
    const char *runs[3] = {pa, pb, pc};
    err[0] = 0;
    int rc = merge_runs(out, runs, c ? 3 : b ? 2 : 1, NULL, err, sizeof err);
    if (rc != 0)
        print_message("# merge: %s\n", err);
    return rc;
}

static char *file_of(const char *rel)
{
    char path[4400];
    path_of(path, sizeof path, rel);
    size_t len;
    char *t = file_read_all(path, &len);
    if (!t)
        fail_msg("%s is missing", rel);
    return t;
}

/* Two shards, two GPUs: every row once, each naming its GPU, in (case, dtype, GPU) order. */
static void shards(void)
{
    klab_row a[] = {unit_row("4096x1024", "fp16", "baseline", 0, 0.5), unit_row("4096x1024", "fp16", "fused", 0, 0.25),
                    unit_row("7x50257", "fp32", "fused", 0, 0.125)};
    klab_row b[] = {unit_row("4096x1024", "fp32", "baseline", 1, 0.75), unit_row("4096x1024", "fp32", "fused", 1, 0.375)};
    make_run("s0/r1", "abc1234", "00000000deadbeef", a, 3);
    make_run("s1/r1", "abc1234", "00000000deadbeef", b, 2);
}

static void test_merge_rows_counters_samples(void **state)
{
    (void)state;
    shards();
    assert_int_equal(merge("m", "s0/r1", "s1/r1", NULL), 0);
    char path[4400];
    path_of(path, sizeof path, "m/softmax.csv");
    klab_row *rows = NULL;
    int n = csv_read_rows(path, &rows, err, sizeof err);
    assert_int_equal(n, 5);
    const char *order[][3] = {{"4096x1024", "fp16", "baseline"}, {"4096x1024", "fp16", "fused"},
                              {"4096x1024", "fp32", "baseline"}, {"4096x1024", "fp32", "fused"},
                              {"7x50257", "fp32", "fused"}};
    for (int i = 0; i < 5; i++) {
        assert_string_equal(rows[i].kcase, order[i][0]);
        assert_string_equal(rows[i].dtype, order[i][1]);
        assert_string_equal(rows[i].profile, order[i][2]);
        assert_int_equal(rows[i].has_gpu, 1);
        assert_int_equal(rows[i].gpu_index, strcmp(order[i][1], "fp32") == 0 && i < 4 ? 1 : 0);
        assert_string_equal(rows[i].gpu_name, "NVIDIA H200");
    }
    free(rows);
    char *counters = file_of("m/softmax.counters.csv");
    int lines = 0;
    for (char *p = counters; (p = strchr(p, '\n')); p++)
        lines++;
    assert_int_equal(lines, 1 + 5);
    assert_non_null(strstr(counters, "\"softmax_kernel<float, 4>(float const*, float*, int)\""));
    free(counters);
    free(file_of("m/softmax.samples/4096x1024.fp16.fused.csv"));
    free(file_of("m/softmax.samples/4096x1024.fp32.fused.csv"));
    char *meta = file_of("m/meta.ini");
    kr_expect_in(meta, "commit = abc1234");
    kr_expect_in(meta, "[merge]");
    kr_expect_in(meta, "runs = 2");
    kr_expect_in(meta, "source.1.gpu = NVIDIA H200 GPU-00000001");
    free(meta);
}

/* Merged again, in the other order, or with the merged folder among its sources: the same bytes. */
static void test_idempotent(void **state)
{
    (void)state;
    shards();
    assert_int_equal(merge("m1", "s0/r1", "s1/r1", NULL), 0);
    assert_int_equal(merge("m2", "s1/r1", "s0/r1", NULL), 0);
    assert_int_equal(merge("m1", "s0/r1", "s1/r1", NULL), 0); /* into a folder it wrote before */
    const char *files[] = {"softmax.csv", "softmax.counters.csv", "softmax.samples/4096x1024.fp32.fused.csv"};
    for (int i = 0; i < 3; i++) {
        char a[300], b[300];
        snprintf(a, sizeof a, "m1/%s", files[i]);
        snprintf(b, sizeof b, "m2/%s", files[i]);
        char *x = file_of(a), *y = file_of(b);
        assert_string_equal(x, y);
        free(x);
        free(y);
    }
    char *before = file_of("m1/softmax.csv");
    assert_int_equal(merge("m3", "m1", "s1/r1", "s0/r1"), 0);
    char *after = file_of("m3/softmax.csv");
    assert_string_equal(before, after);
    free(before);
    free(after);
    /* a run merged with itself is itself */
    assert_int_equal(merge("m4", "s0/r1", "s0/r1", NULL), 0);
    char *one = file_of("s0/r1/softmax.csv"), *self = file_of("m4/softmax.csv");
    assert_string_equal(one, self);
    free(one);
    free(self);
    char *meta = file_of("m3/meta.ini"); /* m1's own [merge] is replaced, not repeated */
    assert_null(strstr(strstr(meta, "[merge]") + 1, "[merge]"));
    free(meta);
}

static void expect_refused(const char *what)
{
    kr_expect_in(err, what);
    char out[4200];
    path_of(out, sizeof out, "bad");
    struct stat st;
    if (stat(out, &st) == 0)
        fail_msg("a refused merge wrote %s", out);
}

static void test_refusals(void **state)
{
    (void)state;
    shards();
    klab_row c[] = {unit_row("65536x128", "bf16", "fused", 1, 0.5)};
    make_run("other_commit/r1", "fff9999", "00000000deadbeef", c, 1);
    make_run("other_ini/r1", "abc1234", "1111111111111111", c, 1);
    klab_row d[] = {unit_row("4096x1024", "fp16", "fused", 0, 0.3)}; /* s0's row, another result */
    make_run("conflict/r1", "abc1234", "00000000deadbeef", d, 1);

    assert_int_equal(merge("bad", "s0/r1", "other_commit/r1", NULL), MERGE_REFUSED);
    expect_refused("the commit differs: ");
    kr_expect_in(err, "has abc1234");
    kr_expect_in(err, "has fff9999");
    assert_int_equal(merge("bad", "s0/r1", "other_ini/r1", NULL), MERGE_REFUSED);
    expect_refused("the INIs differ: softmax's INI has hash 00000000deadbeef in ");
    kr_expect_in(err, "and 1111111111111111 in ");
    assert_int_equal(merge("bad", "s0/r1", "conflict/r1", NULL), MERGE_REFUSED);
    expect_refused("with different results");
    kr_expect_in(err, "4096x1024 fp16 fused");

    /* an interrupted run */
    char path[4400];
    path_of(path, sizeof path, "s1/r1/rmsnorm.csv.partial");
    kr_write_file(path, "run_id\n");
    assert_int_equal(merge("bad", "s0/r1", "s1/r1", NULL), MERGE_REFUSED);
    expect_refused("rmsnorm.csv.partial: the run was interrupted");
    unlink(path);

    /* another schema; not a run folder */
    path_of(path, sizeof path, "old/r1");
    assert_int_equal(make_dirs(path), 0);
    path_of(path, sizeof path, "old/r1/meta.ini");
    kr_write_file(path, "[run]\ncommit = abc1234\ncsv_schema = 2\n");
    assert_int_equal(merge("bad", "s0/r1", "old/r1", NULL), MERGE_REFUSED);
    expect_refused("has CSV schema 2; this klab merges schema 3");
    assert_int_equal(merge("bad", "s0/r1", "nowhere", NULL), MERGE_REFUSED);
    expect_refused("nowhere is not a klab run folder: no meta.ini");
}

/* meta.ini's path of run folder `rel`, with `text` appended. */
static void append_meta(const char *rel, const char *text)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s/meta.ini", kr_tmp, rel);
    FILE *fp = fopen(path, "a");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

/* A quick run (--quick) merges with quick runs only, in either order; each source's [phases] stays its
   own: the merged meta.ini has none (merged again with its sources, a sum would count them twice). */
static void test_quick_and_phases(void **state)
{
    (void)state;
    shards();
    append_meta("s0/r1", "\n[phases]\nwall_ms = 1000.0\nsoftmax.timing_ms = 900.0\n");
    append_meta("s1/r1", "\n[phases]\nwall_ms = 2000.0\nsoftmax.timing_ms = 1900.0\n");
    assert_int_equal(merge("m", "s0/r1", "s1/r1", NULL), 0);
    char *meta = file_of("m/meta.ini");
    kr_expect_not_in(meta, "[phases]");
    kr_expect_not_in(meta, "timing_ms");
    kr_expect_not_in(meta, "\n\n\n");
    kr_expect_in(meta, "\n\n[merge]\n");
    free(meta);
    klab_row q[] = {unit_row("65536x128", "bf16", "fused", 1, 0.5)};
    make_run("quick/r1", "abc1234", "00000000deadbeef", q, 1);
    append_meta("quick/r1", "\n[method]\nquick = yes: a smoke pass\n");
    assert_int_equal(merge("bad", "s0/r1", "quick/r1", NULL), MERGE_REFUSED);
    char want[9000];
    snprintf(want, sizeof want, "%s/quick/r1 is a quick run (--quick) and %s/s0/r1 is not: merge quick runs only "
                                "with quick runs", kr_tmp, kr_tmp);
    expect_refused(want);
    assert_int_equal(merge("bad", "quick/r1", "s1/r1", NULL), MERGE_REFUSED);
    snprintf(want, sizeof want, "%s/quick/r1 is a quick run (--quick) and %s/s1/r1 is not", kr_tmp, kr_tmp);
    expect_refused(want);
    make_run("quick2/r1", "abc1234", "00000000deadbeef", q, 1);
    append_meta("quick2/r1", "\n[method]\nquick = yes: a smoke pass\n");
    assert_int_equal(merge("mq", "quick/r1", "quick2/r1", NULL), 0);
    meta = file_of("mq/meta.ini");
    kr_expect_in(meta, "quick = yes");
    free(meta);
}

/* meta.ini as lab_write_meta writes it: the shard, each INI's hash; an INI edited between two shards'
   runs is refused by name, the same bytes elsewhere are not. */
static void test_meta_of_real_runs(void **state)
{
    (void)state;
    static cfg_experiment cfg;
    static cli_opts o;
    memset(&cfg, 0, sizeof cfg);
    memset(&o, 0, sizeof o);
    snprintf(cfg.plugin, sizeof cfg.plugin, "softmax");
    snprintf(cfg.path, sizeof cfg.path, "%s/softmax.ini", kr_tmp);
    snprintf(o.command_line, sizeof o.command_line, "klab --plugin softmax");
    klab_row rows[] = {unit_row("4096x1024", "fp16", "fused", 0, 0.5)};
    const char *dirs[] = {"a/r1", "b/r1", "c/r1"};
    const char *inis[] = {"[experiment]\nplugin = softmax\n", "[experiment]\nplugin = softmax\n",
                          "[experiment]\nplugin = softmax\n; edited\n"};
    for (int i = 0; i < 3; i++) {
        make_run(dirs[i], "abc1234", "x", rows, 1);
        kr_write_file(cfg.path, inis[i]);
        o.filter.shard_k = i;
        o.filter.shard_n = 3;
        char path[4400];
        snprintf(path, sizeof path, "%s/%s/meta.ini", kr_tmp, dirs[i]);
        assert_int_equal(lab_write_meta(path, "r1", "2026-11-22T07:00:00Z", &o, 7, NULL, &cfg, 1, err, sizeof err), 0);
        char *meta = file_of(strchr(path + strlen(kr_tmp), '/') + 1);
        char want[100];
        snprintf(want, sizeof want, "shard = %d/3\n", i);
        kr_expect_in(meta, want);
        kr_expect_in(meta, "\n[inis]\nsoftmax = ");
        free(meta);
    }
    /* meta.ini names the commit this build has: the runs agree on it */
    assert_int_equal(merge("ab", "a/r1", "b/r1", NULL), 0);
    assert_int_equal(merge("bad", "a/r1", "c/r1", NULL), MERGE_REFUSED);
    expect_refused("the INIs differ: softmax's INI has hash ");
}

/* klab merge through the binary: 0 and the folder; 2 and the refusal on stderr. */
static void test_binary(void **state)
{
    (void)state;
    shards();
    klab_row c[] = {unit_row("65536x128", "bf16", "fused", 1, 0.5)};
    make_run("other_commit/r1", "fff9999", "00000000deadbeef", c, 1);
    klab_result r = KLAB("merge", "out/r1", "s0/r1", "s1/r1");
    assert_int_equal(r.rc, 0);
    kr_expect_in(r.out, "merged 2 runs: 5 rows -> out/r1");
    free(r.out);
    r = KLAB("report", "out/r1");
    assert_int_equal(r.rc, 0); /* the counters file is not read as rows */
    kr_expect_in(r.out, "softmax.csv (5 rows)");
    kr_expect_not_in(r.out, "counters");
    free(r.out);
    r = KLAB("merge", "out/bad", "s0/r1", "other_commit/r1");
    assert_int_equal(r.rc, 2);
    kr_expect_in(r.out, "klab: merge refused, nothing written: the commit differs");
    free(r.out);
}

/* OUT: a new or empty folder, or one a merge made (its .klab-merge mark); never one of the runs it
   reads, nor a folder of someone else's files. Each refusal is exit 2 and leaves everything as it was. */
static void test_out_folder(void **state)
{
    (void)state;
    shards();
    char *before = file_of("s0/r1/softmax.csv");
    assert_int_equal(merge("s0/r1", "s0/r1", "s1/r1", NULL), MERGE_REFUSED); /* into its own input */
    kr_expect_in(err, "is one of the runs merged: merge never writes into the runs it reads");
    char *after = file_of("s0/r1/softmax.csv");
    assert_string_equal(before, after);
    free(after);
    klab_result r = KLAB("merge", "s0/r1", "s0/r1");
    assert_int_equal(r.rc, 2);
    kr_expect_in(r.out, "klab: merge refused, nothing written: ");
    free(r.out);
    r = KLAB("merge", "s0/../s0/r1", "s0/r1"); /* another spelling of the same folder */
    assert_int_equal(r.rc, 2);
    free(r.out);
    after = file_of("s0/r1/softmax.csv");
    assert_string_equal(before, after);
    free(after);
    free(before);

    /* a folder of other files */
    char path[4400];
    path_of(path, sizeof path, "mine");
    assert_int_equal(make_dirs(path), 0);
    path_of(path, sizeof path, "mine/notes.txt");
    kr_write_file(path, "mine\n");
    assert_int_equal(merge("mine", "s0/r1", "s1/r1", NULL), MERGE_REFUSED);
    kr_expect_in(err, "is not empty and not a run folder klab merge made");
    path_of(path, sizeof path, "mine/softmax.csv");
    struct stat st;
    assert_int_not_equal(stat(path, &st), 0);
    /* a file where OUT should be */
    assert_int_equal(merge("mine/notes.txt", "s0/r1", "s1/r1", NULL), MERGE_REFUSED);
    kr_expect_in(err, "exists and is not a folder");
    /* an empty folder is fine, and is marked */
    path_of(path, sizeof path, "empty");
    assert_int_equal(make_dirs(path), 0);
    assert_int_equal(merge("empty", "s0/r1", "s1/r1", NULL), 0);
    char *mark = file_of("empty/.klab-merge");
    kr_expect_in(mark, "\nmeta.ini\nsoftmax.csv\nsoftmax.counters.csv\nsoftmax.samples/4096x1024.fp16.fused.csv\n");
    free(mark);
    /* merged again from one shard: the other shard's rows and samples do not stay behind */
    assert_int_equal(merge("empty", "s1/r1", "s1/r1", NULL), 0);
    klab_row *rows = NULL;
    path_of(path, sizeof path, "empty/softmax.csv");
    assert_int_equal(csv_read_rows(path, &rows, err, sizeof err), 2);
    free(rows);
    path_of(path, sizeof path, "empty/softmax.samples/4096x1024.fp16.fused.csv");
    assert_int_not_equal(stat(path, &st), 0);
    /* a mark that names a file outside OUT is not followed */
    path_of(path, sizeof path, "empty/.klab-merge");
    kr_write_file(path, "# klab merge\n../s0/r1/softmax.csv\n");
    assert_int_equal(merge("empty", "s0/r1", "s1/r1", NULL), MERGE_REFUSED);
    kr_expect_in(err, "'../s0/r1/softmax.csv' is not a file a merge writes");
    free(file_of("s0/r1/softmax.csv"));
}

/* Inputs that cannot be trusted are refused, naming file and line, and nothing is written: a row cut
   short (merge used to write it out as a whole passed row, its missing cells made up), a FIFO or a link
   to /dev/zero where a CSV, meta.ini or a samples file should be (these used to hang or read for ever). */
static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "Bail out! merge waited on a file that is not a regular one\n";
    ssize_t w = write(1, msg, sizeof msg - 1);
    (void)w;
    _exit(1);
}

static void test_untrusted_inputs(void **state)
{
    (void)state;
    signal(SIGALRM, on_alarm);
    alarm(30);
    shards();
    char path[4400], other[4400];
    path_of(path, sizeof path, "s1/r1/softmax.csv");
    char *text = file_of("s1/r1/softmax.csv");
    size_t n = strlen(text);
    /* the last row cut inside its speedup cells */
    char *cut = strdup(text);
    char *last = cut + n - 2;
    while (*last != '\n')
        last--;
    int cells = 0;
    char *c = last + 1;
    for (; *c && cells < row_column_index("speedup_hi"); c++)
        cells += *c == ',';
    snprintf(c, 4, "\n");
    kr_write_file(path, cut);
    assert_int_equal(merge("bad", "s0/r1", "s1/r1", NULL), MERGE_REFUSED);
    expect_refused("s1/r1/softmax.csv:3: ");
    kr_expect_in(err, " cells, but the header has 48");
    /* the same without its line feed: the file cut short */
    cut[strlen(cut) - 1] = 0;
    kr_write_file(path, cut);
    assert_int_equal(merge("bad", "s0/r1", "s1/r1", NULL), MERGE_REFUSED);
    expect_refused("s1/r1/softmax.csv:3: the last line has no line ending");
    free(cut);
    kr_write_file(path, text);
    free(text);
    /* a FIFO and a link to /dev/zero in place of a CSV */
    unlink(path);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(merge("bad", "s0/r1", "s1/r1", NULL), MERGE_REFUSED);
    expect_refused("softmax.csv: is a FIFO, not a regular file");
    unlink(path);
    assert_int_equal(symlink("/dev/zero", path), 0);
    assert_int_equal(merge("bad", "s0/r1", "s1/r1", NULL), MERGE_REFUSED);
    expect_refused("softmax.csv: is a character device, not a regular file");
    unlink(path);
    /* in a samples folder, and as meta.ini */
    path_of(path, sizeof path, "s0/r1/softmax.samples/fifo.csv");
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(merge("bad", "s0/r1", NULL, NULL), MERGE_REFUSED);
    expect_refused("fifo.csv: is a FIFO, not a regular file");
    unlink(path);
    path_of(path, sizeof path, "s0/r1/softmax.samples/zero.csv");
    assert_int_equal(symlink("/dev/zero", path), 0);
    assert_int_equal(merge("bad", "s0/r1", NULL, NULL), MERGE_REFUSED);
    expect_refused("zero.csv: is a character device, not a regular file");
    unlink(path);
    path_of(path, sizeof path, "s0/r1/meta.ini");
    path_of(other, sizeof other, "s0/r1/meta.ini.real");
    assert_int_equal(rename(path, other), 0);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(merge("bad", "s0/r1", NULL, NULL), MERGE_REFUSED);
    expect_refused("meta.ini: is a FIFO");
    alarm(0);
}

/* Many rows over many shards: joined by a hash of their keys, not a scan of every row kept so far per
   row (this ran quadratic); the order is (case, dtype, GPU). */
static void test_many_rows(void **state)
{
    (void)state;
    enum { N = 6000 };
    klab_row *a = calloc(N, sizeof *a), *b = calloc(N, sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    for (int i = 0; i < N; i++) {
        char kcase[32];
        snprintf(kcase, sizeof kcase, "c%05d", i);
        a[i] = unit_row(kcase, "fp16", "fused", 0, 0.5);
        b[i] = unit_row(kcase, i % 2 ? "fp32" : "fp16", "fused", 0, 0.5); /* half of them a's again */
    }
    make_run("many0/r1", "abc1234", "00000000deadbeef", a, N);
    make_run("many1/r1", "abc1234", "00000000deadbeef", b, N);
    assert_int_equal(merge("many", "many0/r1", "many1/r1", NULL), 0);
    char path[4400];
    path_of(path, sizeof path, "many/softmax.csv");
    klab_row *rows = NULL;
    assert_int_equal(csv_read_rows(path, &rows, err, sizeof err), N + N / 2);
    for (int i = 1; i < N + N / 2; i++) {
        int c = strcmp(rows[i - 1].kcase, rows[i].kcase);
        assert_true(c < 0 || (c == 0 && strcmp(rows[i - 1].dtype, rows[i].dtype) < 0));
    }
    free(rows);
    free(a);
    free(b);
}

/* Runs whose CSV and counters file hold a header and no row: merged into a header-only file (this
   sorted an empty set through qsort(NULL, 0), undefined behaviour UBSan reports). */
static void test_empty_files(void **state)
{
    (void)state;
    shards();
    char path[4400];
    const char *runs[] = {"s0/r1", "s1/r1"};
    for (int i = 0; i < 2; i++) {
        csv_sink s;
        snprintf(path, sizeof path, "%s/%s/empty.csv", kr_tmp, runs[i]);
        assert_int_equal(csv_sink_open(&s, path, err, sizeof err), 0);
        assert_int_equal(csv_sink_commit(&s, err, sizeof err), 0);
        snprintf(path, sizeof path, "%s/%s", kr_tmp, runs[i]);
        assert_int_equal(counters_open(&s, path, "empty", err, sizeof err), 0);
        assert_int_equal(csv_sink_commit(&s, err, sizeof err), 0);
    }
    assert_int_equal(merge("m", "s0/r1", "s1/r1", NULL), 0);
    klab_row *rows = NULL;
    path_of(path, sizeof path, "m/empty.csv");
    assert_int_equal(csv_read_rows(path, &rows, err, sizeof err), 0);
    free(rows);
    char *counters = file_of("m/empty.counters.csv");
    assert_int_equal(strchr(counters, '\n')[1], 0); /* the header alone */
    free(counters);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KR_TEST(test_merge_rows_counters_samples),
        KR_TEST(test_idempotent),
        KR_TEST(test_refusals),
        KR_TEST(test_quick_and_phases),
        KR_TEST(test_meta_of_real_runs),
        KR_TEST(test_binary),
        KR_TEST(test_out_folder),
        KR_TEST(test_untrusted_inputs),
        KR_TEST(test_many_rows),
        KR_TEST(test_empty_files),
    };
    KLAB_RUN_TESTS(tests);
}
