/* klab --tune's pure parts, without a GPU: which entries a unit has and which configuration a plain entry
 * runs (unit_entries.c: the case's config over the cache's over the plugin's own; a stale cache entry;
 * the entry cap), and the parent's verdict over a tune run's rows (lab_tune.c: the fastest passed,
 * unflagged trial; ties; failed, skipped, flagged and few-sample rows never chosen; the cache entry
 * written, replaced or removed, and the line said for it). */
#include "klab_test.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#include "app/lab_tune.h"
#include "worker/unit_entries.h"

/* ---- a plugin with a tuning space, by hand ---- */

static int space_size = 4;
static const char *const names[] = {"threads=128", "threads=256", "threads=48", "threads=2048"};

static const char *tiled_config(const klab_case *kcase, int index)
{
    (void)kcase;
    if (index < 0)
        return "threads=256";
    if (index >= space_size)
        return NULL;
    if (index < 4)
        return names[index];
    static char many[32];
    snprintf(many, sizeof many, "threads=%d", 32 * index);
    return many;
}

static loaded_plugin plugin(void)
{
    loaded_plugin lp;
    memset(&lp, 0, sizeof lp);
    lp.profiles[0] = (klab_profile){.name = "tiled", .config = tiled_config};
    lp.profiles[1] = (klab_profile){.name = "fixed"};
    lp.nprofiles = 2;
    lp.desc.name = "abi2_tuning";
    lp.desc.profiles = lp.profiles;
    return lp;
}

static cfg_case one_case(void)
{
    cfg_case c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "own");
    snprintf(c.shape, sizeof c.shape, "2^16");
    c.rank = 1;
    c.dims[0] = 65536;
    return c;
}

static const klab_case kcase = {.struct_size = sizeof(klab_case), .name = "own", .rank = 1, .dims = {65536}};

static void test_plain_run_has_one_entry_a_profile(void **state)
{
    (void)state;
    loaded_plugin lp = plugin();
    cfg_case c = one_case();
    run_filter f;
    memset(&f, 0, sizeof f);
    unit_entry e[UNIT_MAX_ENTRIES];
    int left;
    assert_int_equal(unit_entries_make(&lp, &c, &f, &kcase, 0, e, UNIT_MAX_ENTRIES, &left), 2);
    assert_int_equal(left, 0);
    assert_true(e[0].prof == 0 && e[0].config == -1 && !e[0].trial);
    assert_string_equal(e[0].label, "tiled");
    assert_true(e[1].prof == 1 && e[1].config == -1 && !e[1].trial);
}

static void test_tune_run_has_an_entry_a_configuration(void **state)
{
    (void)state;
    loaded_plugin lp = plugin();
    cfg_case c = one_case();
    snprintf(c.config, sizeof c.config, "threads=128"); /* a tune run times them all, pinned or not */
    run_filter f;
    memset(&f, 0, sizeof f);
    unit_entry e[UNIT_MAX_ENTRIES];
    int left;
    assert_int_equal(unit_entries_make(&lp, &c, &f, &kcase, 1, e, UNIT_MAX_ENTRIES, &left), 6);
    assert_int_equal(left, 0);
    assert_true(e[0].prof == 0 && e[0].config == -1 && e[0].trial); /* its own choice first */
    assert_string_equal(e[0].label, "tiled threads=256");
    for (int i = 0; i < 4; i++) {
        assert_true(e[1 + i].prof == 0 && e[1 + i].config == i && e[1 + i].trial);
        char want[64];
        snprintf(want, sizeof want, "tiled %s", names[i]);
        assert_string_equal(e[1 + i].label, want);
    }
    assert_true(e[5].prof == 1 && e[5].config == -1 && !e[5].trial); /* no space: a plain entry */

    /* --profile fixed: no trials at all */
    f.nprofiles = 1;
    snprintf(f.profiles[0], sizeof f.profiles[0], "fixed");
    assert_int_equal(unit_entries_make(&lp, &c, &f, &kcase, 1, e, UNIT_MAX_ENTRIES, &left), 1);
    assert_int_equal(e[0].prof, 1);
}

/* Past UNIT_MAX_ENTRIES entries the first configurations are kept and every profile keeps its own entry. */
static void test_tune_entries_capped(void **state)
{
    (void)state;
    loaded_plugin lp = plugin();
    cfg_case c = one_case();
    run_filter f;
    memset(&f, 0, sizeof f);
    unit_entry e[UNIT_MAX_ENTRIES];
    int left;
    space_size = 200;
    int n = unit_entries_make(&lp, &c, &f, &kcase, 1, e, UNIT_MAX_ENTRIES, &left);
    space_size = 4;
    const int kept = UNIT_MAX_ENTRIES - 2; /* less tiled's own and fixed's */
    assert_int_equal(n, UNIT_MAX_ENTRIES);
    assert_int_equal(left, 200 - kept);
    assert_int_equal(e[kept - 1].config, kept - 2);
    assert_true(e[kept].prof == 0 && e[kept].config == kept - 1);
    assert_true(e[kept + 1].prof == 1 && !e[kept + 1].trial);
}

static void test_which_configuration_runs(void **state)
{
    (void)state;
    loaded_plugin lp = plugin();
    const klab_profile *tiled = &lp.profiles[0], *fixed = &lp.profiles[1];
    int idx, n;
    assert_int_equal(unit_entry_config(tiled, &kcase, "", NULL, &idx, &n), CONFIG_OWN);
    assert_int_equal(idx, -1);
    assert_int_equal(unit_entry_config(tiled, &kcase, "", "threads=48", &idx, &n), CONFIG_CACHE);
    assert_int_equal(idx, 2);
    /* the case's config wins over the cache */
    assert_int_equal(unit_entry_config(tiled, &kcase, "threads=128", "threads=48", &idx, &n), CONFIG_CASE);
    assert_int_equal(idx, 0);
    assert_int_equal(unit_entry_config(tiled, &kcase, "threads=64", "threads=48", &idx, &n), CONFIG_NOT_IN_SPACE);
    assert_int_equal(idx, -1);
    assert_int_equal(n, 4);
    /* a cached config the space no longer has: stale, the own choice runs */
    assert_int_equal(unit_entry_config(tiled, &kcase, "", "threads=999", &idx, &n), CONFIG_STALE);
    assert_int_equal(idx, -1);
    assert_int_equal(n, 4);
    /* no space: the plugin's own, whatever is named */
    assert_int_equal(unit_entry_config(fixed, &kcase, "threads=128", "threads=48", &idx, &n), CONFIG_OWN);
    assert_int_equal(idx, -1);
    assert_int_equal(unit_space_size(tiled, &kcase), 4);
    assert_int_equal(unit_space_size(fixed, &kcase), 0);
}

/* ---- the verdict over a tune run's rows ---- */

static klab_row trial(const char *kcase, const char *profile, const char *config, row_status st, double median,
                      double hi, const char *extra_flags)
{
    klab_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.plugin, sizeof r.plugin, "abi2_tuning");
    snprintf(r.kcase, sizeof r.kcase, "%s", kcase);
    snprintf(r.dtype, sizeof r.dtype, "fp32");
    snprintf(r.profile, sizeof r.profile, "%s", profile);
    snprintf(r.config, sizeof r.config, "%s", config);
    r.status = st;
    snprintf(r.flags, sizeof r.flags, "%s%s%s", TUNE_FLAG_TRIAL, extra_flags[0] ? ";" : "", extra_flags);
    if (median > 0) {
        r.has_time = 1;
        r.median_ms = median;
        r.has_ci = hi > 0;
        r.median_lo = median * 0.99;
        r.median_hi = hi;
    }
    return r;
}

static void test_best_is_the_lowest_median_of_passed_unflagged_trials(void **state)
{
    (void)state;
    klab_row rows[] = {
        trial("own", "tiled", "threads=256", ROW_PASSED, 0.0020, 0.0021, TUNE_FLAG_OWN), /* never a candidate */
        trial("own", "tiled", "threads=128", ROW_PASSED, 0.0030, 0.0031, "launch-bound"),
        trial("own", "tiled", "threads=256", ROW_PASSED, 0.0025, 0.0026, "launch-bound"),
        trial("own", "tiled", "threads=48", ROW_SKIPPED, 0, 0, ""),
        trial("own", "tiled", "threads=2048", ROW_FAILED, 0, 0, ""),
        trial("own", "tiled", "threads=512", ROW_FLAGGED, 0.0010, 0.0011, ""),          /* escaped work */
        trial("own", "tiled", "threads=1024", ROW_INCORRECT, 0.0009, 0.0010, ""),       /* wrong numbers */
        trial("own", "tiled", "threads=64", ROW_PASSED, 0.0008, 0.0009, "few-samples"), /* untrustworthy */
        trial("t128", "tiled", "threads=32", ROW_PASSED, 0.0001, 0.0002, ""),           /* another case */
    };
    int own, n = (int)(sizeof rows / sizeof rows[0]);
    assert_int_equal(tune_best(rows, n, "own", "fp32", "tiled", &own), 2);
    assert_int_equal(own, 0);
    assert_int_equal(tune_best(rows, n, "t128", "fp32", "tiled", &own), 8);
    assert_int_equal(own, -1);
    assert_int_equal(tune_best(rows, n, "own", "fp16", "tiled", &own), -1);
    /* a row not flagged tune-trial is no candidate (a plain run's row) */
    rows[2].flags[0] = 0;
    assert_int_equal(tune_best(rows, n, "own", "fp32", "tiled", &own), 1);
    /* nothing qualifies */
    klab_row bad[] = {trial("own", "tiled", "threads=48", ROW_SKIPPED, 0, 0, ""),
                      trial("own", "tiled", "threads=2048", ROW_FAILED, 0, 0, "")};
    assert_int_equal(tune_best(bad, 2, "own", "fp32", "tiled", &own), -1);
}

static void test_best_ties(void **state)
{
    (void)state;
    klab_row rows[] = {
        trial("own", "tiled", "threads=128", ROW_PASSED, 0.0030, 0.0034, ""),
        trial("own", "tiled", "threads=256", ROW_PASSED, 0.0030, 0.0032, ""), /* same median, tighter */
        trial("own", "tiled", "threads=512", ROW_PASSED, 0.0030, 0.0032, ""), /* a full tie: the earlier */
        trial("own", "tiled", "threads=1024", ROW_PASSED, 0.0030, 0, ""),     /* no interval: loses */
    };
    int own;
    assert_int_equal(tune_best(rows, 4, "own", "fp32", "tiled", &own), 1);
    klab_row no_ci[] = {trial("own", "tiled", "threads=1024", ROW_PASSED, 0.0030, 0, ""),
                        trial("own", "tiled", "threads=128", ROW_PASSED, 0.0030, 0.0040, "")};
    assert_int_equal(tune_best(no_ci, 2, "own", "fp32", "tiled", &own), 1);
}

static cfg_experiment experiment;

static void temp_path(char *buf, size_t n)
{
    snprintf(buf, n, "/tmp/klab-test-tune-%d-XXXXXX", (int)getpid());
    int fd = mkstemp(buf);
    assert_true(fd >= 0);
    close(fd);
    unlink(buf);
}

/* What tune_record says, as text. */
static char said[4096];
static int record(tune_cache *c, const klab_row *rows, int n)
{
    FILE *f = fmemopen(said, sizeof said, "w");
    assert_non_null(f);
    tune_run_info s = {"NVIDIA H100 80GB HBM3", "1.0", "run-7", &experiment};
    int changed = tune_record(c, rows, n, &s, f);
    fclose(f);
    return changed;
}

static void test_record_puts_the_best_with_its_key(void **state)
{
    (void)state;
    memset(&experiment, 0, sizeof experiment);
    experiment.ncases = 2;
    experiment.cases[0] = one_case();
    experiment.cases[1] = one_case();
    snprintf(experiment.cases[1].name, sizeof experiment.cases[1].name, "big");
    experiment.cases[1].dims[0] = 1 << 20;
    klab_row rows[] = {
        trial("own", "tiled", "threads=256", ROW_PASSED, 0.0032, 0.0033, TUNE_FLAG_OWN),
        trial("own", "tiled", "threads=128", ROW_PASSED, 0.0030, 0.0031, ""),
        trial("own", "tiled", "threads=256", ROW_PASSED, 0.0032, 0.0033, ""),
        trial("own", "tiled", "threads=2048", ROW_FAILED, 0, 0, ""),
        trial("big", "tiled", "threads=48", ROW_SKIPPED, 0, 0, ""),
        trial("big", "tiled", "threads=2048", ROW_FAILED, 0, 0, ""),
    };
    klab_row plain = trial("own", "fixed", "", ROW_PASSED, 0.001, 0.0011, "");
    plain.flags[0] = 0; /* a profile without a space: not a trial */
    klab_row all[7];
    memcpy(all, rows, sizeof rows);
    all[6] = plain;
    char path[256], err[512];
    temp_path(path, sizeof path);
    tune_cache c;
    assert_int_equal(tune_cache_load(path, &c, err, sizeof err), 0);
    assert_int_equal(record(&c, all, 7), 1);
    assert_int_equal(c.n, 1);
    assert_non_null(strstr(said, "  abi2_tuning own fp32 tiled: threads=128 (0.003 ms, 1.07x the plugin's own choice)\n"));
    assert_non_null(strstr(said, "  abi2_tuning big fp32 tiled: no configuration passed with a trustworthy time; "
                                 "nothing cached\n"));
    assert_null(strstr(said, "fixed"));
    const tune_entry *e = &c.e[0];
    assert_string_equal(e->key.gpu, "NVIDIA H100 80GB HBM3");
    assert_string_equal(e->key.plugin, "abi2_tuning");
    assert_string_equal(e->key.version, "1.0");
    assert_string_equal(e->key.kcase, "own");
    assert_string_equal(e->key.signature, "65536");
    assert_string_equal(e->key.dtype, "fp32");
    assert_string_equal(e->key.profile, "tiled");
    assert_string_equal(e->config, "threads=128");
    assert_true(e->median_ms == 0.0030);
    assert_string_equal(e->run_id, "run-7");
    /* the key a plain run builds for the same case finds it */
    tune_key k;
    tune_key_make(&k, "NVIDIA H100 80GB HBM3", "abi2_tuning", "1.0", &experiment.cases[0], "fp32", "tiled");
    assert_ptr_equal(tune_cache_find(&c, &k), e);
    tune_key_make(&k, "NVIDIA H200", "abi2_tuning", "1.0", &experiment.cases[0], "fp32", "tiled");
    assert_null(tune_cache_find(&c, &k)); /* another GPU */
    tune_key_make(&k, "NVIDIA H100 80GB HBM3", "abi2_tuning", "1.1", &experiment.cases[0], "fp32", "tiled");
    assert_null(tune_cache_find(&c, &k)); /* another plugin version */

    /* a later tune run replaces it, whatever the earlier median was: medians compare within one run */
    klab_row later[] = {
        trial("own", "tiled", "threads=256", ROW_PASSED, 0.0050, 0.0051, ""),
        trial("own", "tiled", "threads=128", ROW_PASSED, 0.0060, 0.0061, ""),
    };
    assert_int_equal(record(&c, later, 2), 1);
    assert_int_equal(c.n, 1);
    assert_string_equal(c.e[0].config, "threads=256");
    assert_non_null(strstr(said, "threads=256 (0.005 ms)\n")); /* no own-choice row: no ratio */
    tune_cache_free(&c);
}

/* The plugin's own choice, named outside its space, faster than every configuration: caching a slower
   configuration would slow later runs, so the key has no entry. */
static void test_record_own_choice_outside_the_space(void **state)
{
    (void)state;
    memset(&experiment, 0, sizeof experiment);
    experiment.ncases = 1;
    experiment.cases[0] = one_case();
    char path[256], err[512];
    temp_path(path, sizeof path);
    tune_cache c;
    assert_int_equal(tune_cache_load(path, &c, err, sizeof err), 0);
    klab_row first[] = {trial("own", "tiled", "threads=128", ROW_PASSED, 0.0030, 0.0031, "")};
    assert_int_equal(record(&c, first, 1), 1);
    assert_int_equal(c.n, 1);
    klab_row rows[] = {
        trial("own", "tiled", "auto", ROW_PASSED, 0.0020, 0.0021, TUNE_FLAG_OWN),
        trial("own", "tiled", "threads=128", ROW_PASSED, 0.0030, 0.0031, ""),
    };
    assert_int_equal(record(&c, rows, 2), 1);
    assert_int_equal(c.n, 0);
    assert_non_null(strstr(said, "the plugin's own choice auto (0.002 ms) beat every configuration (best "
                                 "threads=128, 0.003 ms); it runs without a cache entry (the earlier entry removed)"));
    /* the own choice IS a configuration of the space (the same kernel, timed twice): the best is cached */
    klab_row same[] = {
        trial("own", "tiled", "threads=256", ROW_PASSED, 0.0029, 0.0030, TUNE_FLAG_OWN),
        trial("own", "tiled", "threads=256", ROW_PASSED, 0.0030, 0.0031, ""),
    };
    assert_int_equal(record(&c, same, 2), 1);
    assert_int_equal(c.n, 1);
    assert_string_equal(c.e[0].config, "threads=256");
    /* the own choice's trial row few-samples, a slower configuration trustworthy: the own choice's
       configuration is cached, not the slower one */
    klab_row few[] = {
        trial("own", "tiled", "threads=256", ROW_PASSED, 0.0020, 0.0021, TUNE_FLAG_OWN),
        trial("own", "tiled", "threads=256", ROW_PASSED, 0.0020, 0.0021, "few-samples"),
        trial("own", "tiled", "threads=128", ROW_PASSED, 0.0030, 0.0031, ""),
    };
    assert_int_equal(record(&c, few, 3), 1);
    assert_int_equal(c.n, 1);
    assert_string_equal(c.e[0].config, "threads=256");
    assert_true(c.e[0].median_ms == 0.0020);
    assert_non_null(strstr(said, "threads=256 (0.002 ms, 1.00x the plugin's own choice)"));
    /* an own-choice row with few samples is no evidence against a trustworthy trial */
    few[0].median_ms = 0.0010;
    snprintf(few[0].flags, sizeof few[0].flags, "%s;%s;few-samples", TUNE_FLAG_TRIAL, TUNE_FLAG_OWN);
    assert_int_equal(record(&c, few, 3), 1);
    assert_string_equal(c.e[0].config, "threads=128");
    tune_cache_free(&c);
}

/* A GPU name the cache file cannot hold is said, not stored. */
static void test_record_unstorable(void **state)
{
    (void)state;
    memset(&experiment, 0, sizeof experiment);
    experiment.ncases = 1;
    experiment.cases[0] = one_case();
    tune_cache c;
    memset(&c, 0, sizeof c);
    klab_row rows[] = {trial("own", "tiled", "threads=128", ROW_PASSED, 0.0030, 0.0031, "")};
    FILE *f = fmemopen(said, sizeof said, "w");
    tune_run_info s = {"GPU [weird]", "1.0", "run-7", &experiment};
    assert_int_equal(tune_record(&c, rows, 1, &s, f), 0);
    fclose(f);
    assert_int_equal(c.n, 0);
    assert_non_null(strstr(said, "threads=128: not cached: tuning cache: gpu 'GPU [weird]' cannot be stored"));
    tune_cache_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_run_has_one_entry_a_profile),
        cmocka_unit_test(test_tune_run_has_an_entry_a_configuration),
        cmocka_unit_test(test_tune_entries_capped),
        cmocka_unit_test(test_which_configuration_runs),
        cmocka_unit_test(test_best_is_the_lowest_median_of_passed_unflagged_trials),
        cmocka_unit_test(test_best_ties),
        cmocka_unit_test(test_record_puts_the_best_with_its_key),
        cmocka_unit_test(test_record_own_choice_outside_the_space),
        cmocka_unit_test(test_record_unstorable),
    };
    KLAB_RUN_TESTS(tests);
}
