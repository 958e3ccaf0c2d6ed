/* klab report: run folders read back (the latest under out/, a folder of run folders, a CSV that is
 * not klab's passed over with a note), the report written through the klab binary (matrix, pages,
 * HTML with no script and no network), a malformed experiment refused with file:line, and the HTML
 * drawn by headless Chromium: the charts' pixels are there, and gone when the SVG is taken out. */
#include "klab_test.h"

#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app/cli.h"
#include "app/lab.h"
#include "evidence/run_set.h"
#include "klab_run.h"
#include "report_fixture.h"

static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        fail_msg("cannot read %s", path);
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, fp), (size_t)n);
    s[n] = 0;
    fclose(fp);
    return s;
}

/* A file of the report the test wrote, under kr_tmp. */
static char *report_file(const char *rel)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", kr_tmp, rel);
    return slurp(path);
}

static void set_mtime(const char *path, time_t t)
{
    struct timespec ts[2] = {{t, 0}, {t, 0}};
    assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static void test_run_set(void **state)
{
    (void)state;
    char out[PATH_MAX], a[PATH_MAX + 8], b[PATH_MAX + 8], path[PATH_MAX + 64], err[1200];
    kr_mkdir("out", out, sizeof out);
    klab_row r = fx_row("big", "fp16", "fused", 1.0, 0.005, 3.0, 0.98);
    snprintf(a, sizeof a, "%s/zzz-older", out);
    snprintf(b, sizeof b, "%s/aaa-newer", out);
    fx_write_run(a, "fx", &r, 1, "older");
    fx_write_run(b, "fx", &r, 1, "newer");
    snprintf(path, sizeof path, "%s/meta.ini", a);
    set_mtime(path, 1000000);
    snprintf(path, sizeof path, "%s/meta.ini", b);
    set_mtime(path, 2000000);
    /* the newest by meta.ini's time, not by name */
    char latest[PATH_MAX + 64];
    assert_int_equal(run_set_latest(out, latest, sizeof latest, err, sizeof err), 0);
    assert_string_equal(latest, b);
    /* a folder of run folders: each a run; a CSV that is not klab's is passed over with a note */
    snprintf(path, sizeof path, "%s/anchors.csv", b);
    fx_write(path, "name,ms\ncopy,1.0\n");
    run_set s = {0};
    assert_int_equal(run_set_add(&s, out, err, sizeof err), 0);
    assert_int_equal(s.n, 2);
    assert_string_equal(s.runs[0].id, "newer");
    assert_string_equal(s.runs[0].gpu, "Test GPU");
    assert_int_equal(s.runs[0].nrows, 1);
    assert_int_equal(s.nnotes, 1);
    kr_expect_in(s.notes[0], "anchors.csv: not a klab CSV (no run_id header): passed over");
    /* one CSV of a run, with its folder's meta.ini */
    snprintf(path, sizeof path, "%s/fx.csv", a);
    assert_int_equal(run_set_add(&s, path, err, sizeof err), 0);
    assert_int_equal(s.n, 3);
    assert_true(s.runs[2].is_file);
    /* its id is the folder's "older", which the set has already: named by its parent folder too */
    assert_string_equal(s.runs[2].id, "out/older");
    run_set_free(&s);
    /* nothing there */
    snprintf(path, sizeof path, "%s/none", out);
    assert_int_equal(run_set_add(&s, path, err, sizeof err), -1);
    kr_expect_in(err, "No such file or directory");
    kr_mkdir("empty", path, sizeof path);
    assert_int_equal(run_set_latest(path, latest, sizeof latest, err, sizeof err), -1);
    kr_expect_in(err, "no run folder (one with meta.ini) here");
}

/* A run with every kind of chart: a case with klab's profiles and PyTorch's, a row against the tensor
   peak, a row-length sweep, and a step row with its raw samples. */
static void write_fixture(void)
{
    char dir[PATH_MAX + 32], path[PATH_MAX + 128];
    snprintf(dir, sizeof dir, "%s/run", kr_tmp);
    klab_row rows[32];
    int n = 0;
    rows[n++] = fx_row("big", "fp16", "base", 3.0, 0.005, 1.0, 0.33);
    rows[n++] = fx_row("big", "fp16", "fused", 1.0, 0.005, 3.0, 0.98);
    rows[n++] = fx_row("big", "fp16", "torch.compile", 1.2, 0.005, 2.5, 0.82);
    const char *ns[] = {"n128", "n1024", "n8192", "n65536"};
    for (int i = 0; i < 4; i++) {
        rows[n++] = fx_row(ns[i], "fp16", "fused", 0.4 + 0.1 * i, 0.005, 1.5, 0.99 - 0.05 * i);
        rows[n++] = fx_row(ns[i], "fp16", "torch.compile", 0.5 + 0.2 * i, 0.005, 1.2, 0.8 - 0.1 * i);
    }
    klab_row g = fx_row("gemm", "bf16", "fused", 2.0, 0.005, 1.1, 0.6);
    g.flops = 1e12;
    g.tflops = 500;
    snprintf(g.limit, sizeof g.limit, "tensor-peak");
    rows[n++] = g;
    klab_row st = fx_row("step", "fp16", "graph", 0.15, 0.005, 1.3, 0);
    snprintf(st.launch, sizeof st.launch, "steps");
    snprintf(st.samples_file, sizeof st.samples_file, "fx.samples/step.fp16.graph.csv");
    rows[n++] = st;
    fx_write_run(dir, "fx", rows, n, "fixture");
    /* counters: big's base row refused by ncu, its fused row two kernels */
    static ncu_result refused, fused;
    memset(&refused, 0, sizeof refused);
    memset(&fused, 0, sizeof fused);
    refused.status = NCU_REFUSED;
    snprintf(refused.reason, sizeof refused.reason, "ERR_NVGPUCTRPERM");
    fx_kernel(&fused, "void fused_kernel<__half>(const __half *, __half *)", "91.5", "62.25", "40");
    fx_kernel(&fused, "tail|kernel", "12", "", "");
    ncu_result *res[2] = {&refused, &fused};
    fx_write_counters(dir, "fx", rows, res, 2);
    snprintf(path, sizeof path, "%s/fx.samples", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/fx.samples/step.fp16.graph.csv", dir);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("step,ms\n", fp);
    for (int i = 0; i < 400; i++)
        fprintf(fp, "%d,%.6f\n", i, 0.15 + 0.01 * ((i * 37) % 17) / 17.0 + (i % 50 == 0 ? 0.02 : 0));
    fclose(fp);

    char e[PATH_MAX + 32];
    snprintf(e, sizeof e, "%s/exp/decisions", kr_tmp);
    assert_int_equal(system((snprintf(path, sizeof path, "mkdir -p '%s'", e), path)), 0);
    snprintf(path, sizeof path, "%s/exp/bars.exp.ini", kr_tmp);
    fx_write(path, "[experiment]\ntitle = Bars <&> quotes\nplugin = fx\nquestion = Does fused beat compile?\n"
                   "cases = big, gemm, step\nboundary = a fixture\n"
                   "[claim beats]\nrule = speedup_lo >= 1.0 where profile = fused and vs = torch.compile\n"
                   "[claim tail]\nrule = p95_ms/p50 <= 1.05 where profile = graph\n");
    snprintf(path, sizeof path, "%s/exp/sweep.exp.ini", kr_tmp);
    fx_write(path, "[experiment]\nplugin = fx\nquestion = Does it hold the copy rate at every N?\nchart = sweep\n"
                   "cases = n128, n1024, n8192, n65536\n[claim copy]\nrule = frac_limit >= 0.9 where profile = fused\n");
    snprintf(path, sizeof path, "%s/exp/ctr.exp.ini", kr_tmp);
    fx_write(path, "[experiment]\nplugin = fx\nquestion = Do the counters say it?\ncases = big\n"
                   "[claim dram]\nrule = dram_pct >= 90\n");
    snprintf(path, sizeof path, "%s/exp/decisions/10_fused.ini", kr_tmp);
    fx_write(path, "[decision]\ndomain = Fusion wins\ntitle = Fused fx\ncall = Fuse it.\nexperiments = bars, sweep\n"
                   "[prior]\nstatus = Supported\nfigure = 5.9x on an A10G\nstudy = Triton on an A10G\n");
}

static void test_report_written(void **state)
{
    (void)state;
    write_fixture();
    klab_result r = KLAB("report", "--experiments", "exp", "--out-dir", "rep", "run");
    kr_echo(r.out);
    assert_int_equal(r.rc, 0);
    kr_expect_in(r.out, "run/fx.csv (13 rows)");          /* the table, as before */
    kr_expect_in(r.out, "decisions over 1 run (exp):");
    kr_expect_in(r.out, "Fused fx                     Caveated — 4 of 7 cases (prior study: Supported)");
    kr_expect_in(r.out, "report: rep/decisions.md, rep/experiments/*.md (3), rep/plugins/*.md (1), rep/report.html");
    free(r.out);
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/rep/decisions.md", kr_tmp);
    char *md = slurp(path);
    kr_expect_in(md, "| Fusion wins | [Fused fx](#10_fused) | **Caveated** — 4 of 7 cases | Supported |");
    kr_expect_in(md, "- Evidence, [sweep](experiments/sweep.md): **Caveated** — 2 of 4 cases\n");
    /* the caveat, from the claims' cases: each case not met with its figure, interval and margin */
    kr_expect_in(md, "- Caveat, from the claims' cases:\n  - `beats` (bars), undecided in 1 of 2 cases:\n"
                     "    - gemm bf16 fused: no torch.compile row beside it in this run\n");
    kr_expect_in(md, "  - `copy` (sweep), not met in 2 of 4 cases:\n" /* the farthest miss first */
                     "    - n65536 fp16 fused: frac_limit 0.84 [0.8358, 0.8442] < 0.9 (6.7 % below)\n"
                     "    - n8192 fp16 fused: frac_limit 0.89 [0.8856, 0.8945] < 0.9 (1.1 % below)\n");
    /* the next evidence names the run that would decide the open case */
    kr_expect_in(md, "- Next evidence:\n  - PyTorch rows missing beside 1 row of fx (gemm): "
                     "`klab --plugin fx --case gemm --with-torch`\n");
    kr_expect_in(md, "- Prior study (Triton on an A10G), history: Supported — 5.9x on an A10G");
    free(md);
    snprintf(path, sizeof path, "%s/rep/experiments/bars.md", kr_tmp);
    md = slurp(path);
    kr_expect_in(md, "# Bars <&> quotes");
    /* gemm has no torch.compile row: missing evidence, said so, so the claim is not a pass */
    kr_expect_in(md, "### beats — Caveated");
    kr_expect_in(md, "| gemm bf16 fused | undecided | no torch.compile row beside it in this run |");
    kr_expect_in(md, "### tail — Supported");
    kr_expect_in(md, "## Evidence boundary\n\na fixture");
    free(md);
    /* the counters beside each profiled row's time: a kernel a line, a refusal said so */
    md = report_file("rep/experiments/ctr.md");
    kr_expect_in(md, "### dram — Caveated");
    kr_expect_in(md, "| big fp16 base | undecided | no counters: ncu refused: ERR_NVGPUCTRPERM |");
    kr_expect_in(md, "| big fp16 torch.compile | undecided | not profiled: no line of the run's counters file names this row |");
    kr_expect_in(md, "## Counters\n");
    kr_expect_in(md, "**big fp16 base**: median 3000.00 µs · 22 GB/s; no counters: ncu refused: ERR_NVGPUCTRPERM\n");
    kr_expect_in(md, "**big fp16 fused**: median 1000.00 µs · 67 GB/s; ncu measured 2 kernels\n");
    kr_expect_in(md, "| kernel | grid | block | dram_pct | achieved_occupancy_pct | sm_pct |");
    kr_expect_in(md, "| `fused_kernel<__half>` | (64, 1, 1) | (256, 1, 1) | 91.5 | 62.25 | — | — | — | — | 40 | — | — |\n");
    kr_expect_in(md, "| `tail\\|kernel` | (64, 1, 1) | (256, 1, 1) | 12 | — |");
    free(md);
    /* every plugin in the runs has a page of all its rows, Measured, whatever experiment names it */
    md = report_file("rep/plugins/fx.md");
    kr_expect_in(md, "# Plugin fx\n\n**Measured** — 13 rows: ");
    kr_expect_in(md, "- [bars](../experiments/bars.md): **Caveated** — 2 of 3 cases\n");
    kr_expect_in(md, "| step fp16 graph | 150.00 [149.25–150.75] |");
    free(md);
    /* a page with no profiled row says nothing of counters */
    md = report_file("rep/experiments/sweep.md");
    kr_expect_not_in(md, "## Counters");
    free(md);
    snprintf(path, sizeof path, "%s/rep/report.html", kr_tmp);
    char *html = slurp(path);
    kr_expect_in(html, "Bars &lt;&amp;&gt; quotes");
    kr_expect_in(html, "<svg xmlns=\"http://www.w3.org/2000/svg\"");
    kr_expect_in(html, "row-length sweep");
    kr_expect_in(html, "400 step latencies");
    kr_expect_in(html, "gemm: TFLOP/s per row");
    kr_expect_in(html, "counters per profiled row: DRAM throughput % of peak (blue), achieved occupancy % (orange)");
    kr_expect_in(html, "<th>dram_pct</th><th>achieved_occupancy_pct</th>");
    kr_expect_in(html, "<td><code>fused_kernel&lt;__half&gt;</code></td><td>(64, 1, 1)</td>");
    kr_expect_in(html, "big fp16 fused: dram_pct 91.50");
    kr_expect_in(html, "no counters: ncu refused: ERR_NVGPUCTRPERM");
    kr_expect_in(html, "<section id=\"plugin-fx\"><h2>Plugin fx</h2>");
    /* the contents, first on the page: every section, its status and rows */
    kr_expect_in(html, "<body>\n<nav class=\"toc\"><b>Contents</b><ol>\n<li><a href=\"#decisions\">Kernel decisions</a></li>\n");
    kr_expect_in(html, "<li><a href=\"#plugin-fx\">Plugin fx</a> <span class=\"b mea\">Measured</span> <small>13 rows</small></li>\n");
    kr_expect_in(html, "<h1 id=\"decisions\">");
    kr_expect_in(html, "<li>PyTorch rows missing beside 1 row of fx (gemm): <code>klab --plugin fx --case gemm --with-torch</code></li>");
    kr_expect_not_in(html, "<script");
    /* nothing fetched: the SVG namespace is the only URL on the page */
    for (const char *p = strstr(html, "http"); p; p = strstr(p + 1, "http"))
        if (p - html < 7 || strncmp(p - 7, "xmlns=\"http://www.w3.org/2000/svg\"", 34) != 0)
            fail_msg("a URL in the page: %.60s", p);
    free(html);
    /* the default place: under --out (out), named after the run, never inside the folder read */
    r = KLAB("report", "--experiments", "exp", "run");
    assert_int_equal(r.rc, 0);
    free(r.out);
    snprintf(path, sizeof path, "%s/out/reports/run/report.html", kr_tmp);
    assert_int_equal(access(path, R_OK), 0);
    snprintf(path, sizeof path, "%s/run/report", kr_tmp);
    assert_int_equal(access(path, F_OK), -1);
    /* no RUN: the latest under --out (here the only folder with a meta.ini) */
    r = KLAB("report", "--experiments", "exp", "--out", ".", "--out-dir", "latest");
    assert_int_equal(r.rc, 0);
    kr_expect_in(r.out, "./run/fx.csv (13 rows)");
    free(r.out);
    /* no experiments folder where the default looks: the tables alone, as klab report always printed
       them; a folder named by --experiments that is not there is a mistake, not "no claims" */
    r = KLAB("report", "run");
    assert_int_equal(r.rc, 0);
    kr_expect_in(r.out, "run/fx.csv (13 rows)");
    kr_expect_in(r.out, "no experiments folder 'experiments': tables only (give --experiments DIR)");
    free(r.out);
    r = KLAB("report", "--experiments", "none", "run");
    assert_int_equal(r.rc, 2);
    kr_expect_in(r.out, "klab: --experiments: 'none': No such file or directory");
    free(r.out);
}

/* --report at the end of a run (lab_run_report, as lab_run calls it after PyTorch's part): the report
   in <run>/report, the decisions, and the rows not passed counted over every CSV of the folder,
   PyTorch's <INI>.torch.csv included, the first five by name. */
static void test_run_report_summary(void **state)
{
    (void)state;
    write_fixture();
    char dir[PATH_MAX + 32], exp[PATH_MAX + 32], out[PATH_MAX + 64];
    snprintf(dir, sizeof dir, "%s/run", kr_tmp);
    snprintf(exp, sizeof exp, "%s/exp", kr_tmp);
    klab_row t[8];
    for (int i = 0; i < 8; i++) {
        char kcase[16];
        snprintf(kcase, sizeof kcase, "n%d", 128 << i);
        t[i] = fx_row(kcase, "bf16", "torch.eager", 1.0, 0.005, 1.0, 0.5);
        if (i < 7)
            row_fail(&t[i], i ? ROW_FAILED : ROW_INCORRECT, "%s", i ? "torch.compile raised" : "rel_l2 0.3 > tol");
        else
            row_fail(&t[i], ROW_SKIPPED, "no bf16 here"); /* skipped is not a failure, as in the run's count */
    }
    fx_write_run(dir, "fx.torch", t, 8, "fixture");
    static cli_opts o;
    char *argv[] = {"klab", "--report", "--experiments", exp, NULL};
    char err[300];
    assert_int_equal(cli_parse(4, argv, &o, err, sizeof err), 0);
    snprintf(out, sizeof out, "%s/summary.txt", kr_tmp);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO), fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, STDOUT_FILENO);
    int rc = lab_run_report(&o, dir);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(fd);
    close(saved);
    char *text = slurp(out);
    kr_echo(text);
    assert_int_equal(rc, 0);
    kr_expect_in(text, "decisions over 1 run (");
    kr_expect_in(text, "Fused fx                     Caveated — 4 of 7 cases (prior study: Supported)");
    char want[PATH_MAX + 200];
    snprintf(want, sizeof want, "report: %s/report/decisions.md", dir);
    kr_expect_in(text, want);
    snprintf(want, sizeof want,
             "\nrows not passed: 7 of 21 in %s:\n  incorrect fx n128 bf16 torch.eager: rel_l2 0.3 > tol\n"
             "  failed    fx n256 bf16 torch.eager: torch.compile raised\n",
             dir);
    kr_expect_in(text, want);
    kr_expect_in(text, "  failed    fx n2048 bf16 torch.eager: torch.compile raised\n  ... and 2 more (klab report ");
    kr_expect_not_in(text, "n4096 bf16");
    kr_expect_not_in(text, "no bf16 here");
    kr_expect_not_in(text, "(13 rows)"); /* the run printed its tables already */
    free(text);
    snprintf(out, sizeof out, "%s/report/report.html", dir);
    assert_int_equal(access(out, R_OK), 0);
    snprintf(out, sizeof out, "%s/report/experiments/bars.md", dir);
    assert_int_equal(access(out, R_OK), 0);
}

static void test_report_refuses(void **state)
{
    (void)state;
    write_fixture();
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/exp/broken.exp.ini", kr_tmp);
    fx_write(path, "[experiment]\nplugin = fx\nquestion = q\n\n[claim c]\nrule = speedup_lo >= one\n");
    klab_result r = KLAB("report", "--experiments", "exp", "--out-dir", "rep", "run");
    kr_echo(r.out);
    assert_int_equal(r.rc, 2);
    kr_expect_in(r.out, "exp/broken.exp.ini:6: [claim c] key 'rule': 'one' is not a number");
    free(r.out);
    r = KLAB("report", "--out", "nowhere");
    assert_int_equal(r.rc, 2);
    kr_expect_in(r.out, "nowhere: No such file or directory");
    free(r.out);
    /* a page that cannot be written is named, Markdown and HTML alike */
    unlink(path);
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/rep", kr_tmp);
    assert_true(mkdir(dir, 0755) == 0 || errno == EEXIST);
    kr_mkdir("rep/report.html", dir, sizeof dir);
    r = KLAB("report", "--experiments", "exp", "--out-dir", "rep", "run");
    assert_int_equal(r.rc, 2);
    kr_expect_in(r.out, "rep/report.html: cannot write: Is a directory");
    free(r.out);
    snprintf(dir, sizeof dir, "%s/rep/decisions.md", kr_tmp);
    assert_int_equal(unlink(dir), 0); /* written by the run above, before the HTML page */
    kr_mkdir("rep/decisions.md", dir, sizeof dir);
    r = KLAB("report", "--experiments", "exp", "--out-dir", "rep", "run");
    assert_int_equal(r.rc, 2);
    kr_expect_in(r.out, "rep/decisions.md: cannot write: Is a directory");
    free(r.out);
}

/* Chromium on PATH (Debian's chromium), or NULL. */
static const char *chromium(void)
{
    static const char *const names[] = {"chromium", "chromium-browser", "google-chrome"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", names[i]);
        if (system(cmd) == 0)
            return names[i];
    }
    return NULL;
}

/* Counts the pixels of colour hex in a screenshot of `html` (png_pixels.py); -1 when it fails. */
static long shot_pixels(const char *browser, const char *html, const char *png, const char *hex)
{
    char cmd[4 * PATH_MAX];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && timeout 120 %s --headless --no-sandbox --disable-gpu --hide-scrollbars "
             "--user-data-dir='%s/chromium-profile' --window-size=1280,2000 --screenshot='%s' 'file://%s' "
             ">chromium.log 2>&1",
             kr_tmp, browser, kr_tmp, png, html);
    if (system(cmd) != 0)
        return -1;
    char out[PATH_MAX + 64];
    snprintf(out, sizeof out, "%s/pixels.txt", kr_tmp);
    snprintf(cmd, sizeof cmd, "python3 '%s/support/png_pixels.py' '%s' %s > '%s'", KLAB_TEST_DATA, png, hex, out);
    if (system(cmd) != 0)
        return -1;
    char *txt = slurp(out);
    printf("# %s:\n", png);
    kr_echo(txt);
    char key[16];
    snprintf(key, sizeof key, "%s ", hex);
    const char *at = strstr(txt, key);
    long n = at ? atol(at + strlen(key)) : -1;
    free(txt);
    return n;
}

static void test_html_renders(void **state)
{
    (void)state;
    const char *browser = chromium();
    if (!browser) {
        if (getenv("CI"))
            fail_msg("chromium is not installed, and CI must draw the report (tools/deps.sh installs it)");
        skip(); /* cmocka prints no reason: */
    }
    write_fixture();
    klab_result r = KLAB("report", "--experiments", "exp", "--out-dir", "rep", "run");
    assert_int_equal(r.rc, 0);
    free(r.out);
    char html[PATH_MAX + 64], bare[PATH_MAX + 64], png[PATH_MAX + 64];
    snprintf(html, sizeof html, "%s/rep/report.html", kr_tmp);
    /* the same page with every <svg> element taken out: what is left when the charts draw nothing */
    char *page = slurp(html);
    snprintf(bare, sizeof bare, "%s/rep/bare.html", kr_tmp);
    FILE *fp = fopen(bare, "w");
    assert_non_null(fp);
    for (char *p = page, *s; *p; p = s) {
        s = strstr(p, "<svg ");
        if (!s) {
            fputs(p, fp);
            break;
        }
        fwrite(p, 1, (size_t)(s - p), fp);
        char *e = strstr(s, "</svg>");
        assert_non_null(e);
        s = e + 6;
    }
    fclose(fp);
    free(page);
    /* the first profile's colour (bars, sweep line), and the limit's dashed red */
    snprintf(png, sizeof png, "%s/shot.png", kr_tmp);
    long bars = shot_pixels(browser, html, png, "1f77b4");
    long limit = shot_pixels(browser, html, png, "d00000");
    snprintf(png, sizeof png, "%s/bare.png", kr_tmp);
    long none = shot_pixels(browser, bare, png, "1f77b4");
    if (bars < 0 || limit < 0 || none < 0) {
        char log[PATH_MAX + 32];
        snprintf(log, sizeof log, "%s/chromium.log", kr_tmp);
        char *l = slurp(log);
        kr_echo(l);
        free(l);
        fail_msg("chromium or png_pixels.py failed");
    }
    assert_true(bars > 2000); /* bars and sweep lines drawn */
    assert_true(limit > 50);  /* the copy line */
    assert_int_equal(none, 0);
    /* every chart's text inside it and over no other, as Chromium lays it out (report_charts_check.py) */
    char cmd[4 * PATH_MAX], out[PATH_MAX + 32];
    snprintf(out, sizeof out, "%s/check.txt", kr_tmp);
    snprintf(cmd, sizeof cmd, "python3 '%s/cli/report_charts_check.py' --page '%s' > '%s' 2>&1", KLAB_TEST_DATA, html, out);
    int rc = system(cmd);
    char *txt = slurp(out);
    kr_echo(txt);
    free(txt);
    assert_int_equal(rc, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KR_TEST(test_run_set),
        KR_TEST(test_report_written),
        KR_TEST(test_run_report_summary),
        KR_TEST(test_report_refuses),
        KR_TEST(test_html_renders),
    };
    if (!chromium())
        printf("# test_html_renders: SKIP: chromium is not installed (apt-get install chromium; "
               "tools/deps.sh installs it)\n");
    KLAB_RUN_TESTS(tests);
}
