/* tune_cache: the best configuration per (GPU, plugin, version, case, dtype, profile), kept in an INI
 * file across runs. Round trips, replacement, key isolation, refusals with file:line. */
#include "klab_test.h"

#include <string.h>
#include <unistd.h>

#include "config/tune_cache.h"
#include "klab_run.h"

static tune_entry entry(const char *kcase, const char *dtype, const char *config, double ms)
{
    tune_entry e;
    memset(&e, 0, sizeof e);
    snprintf(e.key.gpu, sizeof e.key.gpu, "NVIDIA H200");
    snprintf(e.key.plugin, sizeof e.key.plugin, "rmsnorm");
    snprintf(e.key.version, sizeof e.key.version, "2.0.0");
    snprintf(e.key.kcase, sizeof e.key.kcase, "%s", kcase);
    snprintf(e.key.signature, sizeof e.key.signature, "%s;eps=1e-6", kcase);
    snprintf(e.key.dtype, sizeof e.key.dtype, "%s", dtype);
    snprintf(e.key.profile, sizeof e.key.profile, "fused");
    snprintf(e.config, sizeof e.config, "%s", config);
    e.median_ms = ms;
    snprintf(e.run_id, sizeof e.run_id, "run-1");
    return e;
}

static void temp_path(char *buf, size_t n)
{
    snprintf(buf, n, "/tmp/klab-tune-%d-XXXXXX", (int)getpid());
    int fd = mkstemp(buf);
    assert_true(fd >= 0);
    close(fd);
    unlink(buf); /* a missing file is an empty cache */
}

/* a fresh path and the empty cache loaded from it */
static void open_empty(char *path, size_t n, tune_cache *c)
{
    char err[512] = "";
    temp_path(path, n);
    if (tune_cache_load(path, c, err, sizeof err) != 0)
        fail_msg("%s", err);
}

static void test_missing_file_is_empty(void **state)
{
    (void)state;
    char path[256];
    tune_cache c;
    open_empty(path, sizeof path, &c);
    assert_int_equal(c.n, 0);
    tune_entry e = entry("4096x8192", "fp16", "threads=256", 0.033);
    assert_null(tune_cache_find(&c, &e.key));
    tune_cache_free(&c);
}

static void test_round_trip_and_replace(void **state)
{
    (void)state;
    char path[256], err[512] = "";
    tune_cache c;
    open_empty(path, sizeof path, &c);
    tune_entry a = entry("4096x8192", "fp16", "threads=256,vec=8", 0.0331);
    tune_entry b = entry("4096x8192", "bf16", "threads=128,vec=8", 0.0335);
    tune_entry a2 = entry("4096x8192", "fp16", "threads=512,vec=8", 0.0329);
    assert_int_equal(tune_cache_put(&c, &a, err, sizeof err), 0);
    assert_int_equal(tune_cache_put(&c, &b, err, sizeof err), 0);
    assert_int_equal(tune_cache_put(&c, &a2, err, sizeof err), 0); /* same key as a: replaces it */
    assert_int_equal(c.n, 2);
    assert_int_equal(tune_cache_save(&c, err, sizeof err), 0);
    tune_cache_free(&c);

    tune_cache d;
    assert_int_equal(tune_cache_load(path, &d, err, sizeof err), 0);
    assert_int_equal(d.n, 2);
    const tune_entry *fa = tune_cache_find(&d, &a.key);
    assert_non_null(fa);
    assert_string_equal(fa->config, "threads=512,vec=8");
    assert_true(fa->median_ms > 0.03289 && fa->median_ms < 0.03291);
    assert_string_equal(fa->run_id, "run-1");
    const tune_entry *fb = tune_cache_find(&d, &b.key);
    assert_non_null(fb);
    assert_string_equal(fb->config, "threads=128,vec=8");
    tune_cache_free(&d);
    unlink(path);
}

/* Every part of the key separates entries: another GPU, plugin version or case signature never
   inherits a choice. */
static void test_key_isolation(void **state)
{
    (void)state;
    char path[256], err[512] = "";
    tune_cache c;
    open_empty(path, sizeof path, &c);
    tune_entry a = entry("4096x8192", "fp16", "threads=256", 0.033);
    assert_int_equal(tune_cache_put(&c, &a, err, sizeof err), 0);
    tune_key k = a.key;
    snprintf(k.gpu, sizeof k.gpu, "NVIDIA H100 80GB HBM3");
    assert_null(tune_cache_find(&c, &k));
    k = a.key;
    snprintf(k.version, sizeof k.version, "2.0.1");
    assert_null(tune_cache_find(&c, &k));
    k = a.key;
    snprintf(k.signature, sizeof k.signature, "4096x8192;eps=1e-5");
    assert_null(tune_cache_find(&c, &k));
    k = a.key;
    snprintf(k.profile, sizeof k.profile, "baseline");
    assert_null(tune_cache_find(&c, &k));
    assert_non_null(tune_cache_find(&c, &a.key));
    tune_cache_free(&c);
}

/* The longest signature the key holds comes back whole: Debian's inih reads 200-byte lines, and a
   512-character field once made the whole cache unreadable. */
static void test_longest_signature_round_trips(void **state)
{
    (void)state;
    char path[256], err[512] = "";
    tune_cache c;
    open_empty(path, sizeof path, &c);
    tune_entry a = entry("4096x8192", "fp16", "threads=256", 0.033);
    memset(a.key.signature, 'p', sizeof a.key.signature - 1);
    a.key.signature[sizeof a.key.signature - 1] = 0;
    assert_int_equal(tune_cache_put(&c, &a, err, sizeof err), 0);
    assert_int_equal(tune_cache_save(&c, err, sizeof err), 0);
    tune_cache_free(&c);
    tune_cache d;
    if (tune_cache_load(path, &d, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_non_null(tune_cache_find(&d, &a.key));
    tune_cache_free(&d);
    unlink(path);
}

static void test_unstorable_refused(void **state)
{
    (void)state;
    char path[256], err[512] = "";
    tune_cache c;
    open_empty(path, sizeof path, &c);
    tune_entry a = entry("4096x8192", "fp16", "threads=256 ;x", 0.033);
    assert_int_equal(tune_cache_put(&c, &a, err, sizeof err), -1);
    assert_non_null(strstr(err, "config"));
    tune_entry b = entry("4096x8192", "fp16", "threads=256", 0.033);
    snprintf(b.key.gpu, sizeof b.key.gpu, "GPU\nwith newline");
    assert_int_equal(tune_cache_put(&c, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "gpu"));
    assert_int_equal(c.n, 0);
    tune_cache_free(&c);
}

static void expect_malformed(const char *text, const char *where, const char *why)
{
    char path[256], err[512] = "";
    temp_path(path, sizeof path);
    kr_write_file(path, text);
    tune_cache c;
    assert_int_equal(tune_cache_load(path, &c, err, sizeof err), -1);
    if (!strstr(err, where) || !strstr(err, why))
        fail_msg("error '%s' lacks '%s' or '%s'", err, where, why);
    unlink(path);
}

static void test_malformed_named_with_line(void **state)
{
    (void)state;
    const char *head = "[entry 1]\ngpu = G\nplugin = p\nversion = 1\ncase = c\nsignature = c\ndtype = fp16\n"
                       "profile = f\n";
    char buf[1024];
    snprintf(buf, sizeof buf, "%sconfig = a=1\ncolour = red\n", head);
    expect_malformed(buf, ":10:", "unknown key 'colour'");
    snprintf(buf, sizeof buf, "%sconfig = a=1\nmedian_ms = fast\n", head);
    expect_malformed(buf, ":10:", "median_ms");
    snprintf(buf, sizeof buf, "%sconfig = a=1\nconfig = a=2\n", head);
    expect_malformed(buf, ":10:", "given twice");
    snprintf(buf, sizeof buf, "%s", head); /* no config */
    expect_malformed(buf, "at the end", "lacks");
    expect_malformed("gpu = G\n", ":1:", "before any section");
    /* read through the one INI reader: its byte checks and bounds hold here too */
    snprintf(buf, sizeof buf, "%sconfig = a=1\x1b[2J\n", head);
    expect_malformed(buf, ":9:", "control character");
}

/* The file's text, field by field in its order: median_ms between config and run_id, run_id and
   median_ms left out when not set. Written from one field table, so pinned here byte for byte. */
static void test_saved_text_exact(void **state)
{
    (void)state;
    char path[256], err[512] = "", text[2048] = "";
    tune_cache c = {0};
    temp_path(c.path, sizeof c.path);
    snprintf(path, sizeof path, "%s", c.path);
    tune_entry e[2] = {entry("4096x8192", "fp16", "threads=256", 0.033), entry("7x1000", "bf16", "vec=8", 0)};
    e[1].run_id[0] = 0;
    c.e = e;
    c.n = c.cap = 2;
    assert_int_equal(tune_cache_save(&c, err, sizeof err), 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    text[fread(text, 1, sizeof text - 1, f)] = 0;
    fclose(f);
    const char *want =
        "; klab tuning cache: the best configuration per (GPU, plugin, version, case, dtype, profile),\n"
        "; written by `klab --tune`. Delete an entry (or the file) to tune again.\n"
        "\n[entry 1]\ngpu = NVIDIA H200\nplugin = rmsnorm\nversion = 2.0.0\ncase = 4096x8192\n"
        "signature = 4096x8192;eps=1e-6\ndtype = fp16\nprofile = fused\nconfig = threads=256\n"
        "median_ms = 0.033\nrun_id = run-1\n"
        "\n[entry 2]\ngpu = NVIDIA H200\nplugin = rmsnorm\nversion = 2.0.0\ncase = 7x1000\n"
        "signature = 7x1000;eps=1e-6\ndtype = bf16\nprofile = fused\nconfig = vec=8\n";
    assert_string_equal(text, want);
    unlink(path);
}

/* The messages built from the field table, whole. */
static void test_field_messages_exact(void **state)
{
    (void)state;
    char path[256], err[512] = "", want[600];
    temp_path(path, sizeof path);
    kr_write_file(path, "[entry 1]\ngpu = G\n");
    tune_cache c;
    assert_int_equal(tune_cache_load(path, &c, err, sizeof err), -1);
    snprintf(want, sizeof want,
             "%s: at the end: entry lacks one of gpu, plugin, version, case, signature, dtype, profile, config",
             path);
    assert_string_equal(err, want);
    char text[300];
    snprintf(text, sizeof text, "[entry 1]\ndtype = %s\n", "fp16fp16fp16fp16");
    kr_write_file(path, text);
    assert_int_equal(tune_cache_load(path, &c, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:2: key 'dtype': value longer than 15 characters", path);
    assert_string_equal(err, want);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_file_is_empty),
        cmocka_unit_test(test_round_trip_and_replace),
        cmocka_unit_test(test_key_isolation),
        cmocka_unit_test(test_longest_signature_round_trips),
        cmocka_unit_test(test_unstorable_refused),
        cmocka_unit_test(test_malformed_named_with_line),
        cmocka_unit_test(test_saved_text_exact),
        cmocka_unit_test(test_field_messages_exact),
    };
    KLAB_RUN_TESTS(tests);
}
