/* A unit's rows without a GPU (core/worker/unit_rows.c): the rows its entries make and what they carry,
 * the skips a device gives (compute capability, exact architectures), each entry's configuration
 * (the case's, the tuning cache's, a stale cache entry's NOTE, one the space lacks), and the verdicts
 * of a verified run and of a timed subject on their rows, every outcome of each. The GPU work between
 * them (setup, reference, the runs) is the GPU tests'. */
#include "klab_test.h"

#include <string.h>

#include "worker/case_instance.h"
#include "worker/unit_rows.h"

/* ---- a plugin, a device, a job and a case, by hand ---- */

static int space_size = 3;
static const char *const names[] = {"tile=64", "tile=128", "tile=256"};

static const char *tiled_config(const klab_case *kcase, int index)
{
    (void)kcase;
    if (index < 0)
        return "tile=128";
    return index < space_size ? names[index] : NULL;
}

static const int hopper_only[] = {90, 0};

/* Filled in place: desc.profiles points into lp itself. */
static void plugin(loaded_plugin *out)
{
    loaded_plugin lp;
    memset(&lp, 0, sizeof lp);
    lp.profiles[0] = (klab_profile){.name = "baseline"};
    lp.profiles[1] = (klab_profile){.name = "tiled", .config = tiled_config};
    lp.profiles[2] = (klab_profile){.name = "wgmma", .archs = hopper_only};
    lp.nprofiles = 3;
    lp.desc.name = "fake";
    lp.desc.version = "1";
    lp.desc.min_cc = 80;
    *out = lp;
    out->desc.profiles = out->profiles;
}

static device_info device(int cc)
{
    device_info d;
    memset(&d, 0, sizeof d);
    d.ordinal = 1;
    d.cc = cc;
    snprintf(d.name, sizeof d.name, "Fake GPU");
    snprintf(d.uuid, sizeof d.uuid, "GPU-0000");
    return d;
}

static cfg_case one_case(const char *config)
{
    cfg_case c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "small");
    snprintf(c.shape, sizeof c.shape, "64x64");
    snprintf(c.config, sizeof c.config, "%s", config);
    return c;
}

static const klab_case kcase = {.struct_size = sizeof(klab_case), .name = "small", .rank = 2, .dims = {64, 64}};

/* The notes a unit sends, one after another in one buffer. */
static char notes[4096];

static int capture(void *user, wire_type t, const void *payload, uint32_t length)
{
    (void)user;
    if (t == WIRE_NOTE)
        snprintf(notes + strlen(notes), sizeof notes - strlen(notes), "%.*s\n", (int)length, (const char *)payload);
    return 0;
}

static const job_out out = {capture, NULL};

typedef struct fixture {
    loaded_plugin lp;
    device_info dev;
    job j;
    cfg_case c;
    unit_entry e[UNIT_MAX_ENTRIES];
    int ne;
    unit_rows ur;
} fixture;

static fixture fx; /* large: off the stack */

/* The rows of case c on a device of compute capability cc, a plain run (tune 0) or a tune run. */
static void make(int cc, const char *config, int tune)
{
    memset(&fx, 0, sizeof fx);
    notes[0] = 0;
    plugin(&fx.lp);
    fx.dev = device(cc);
    snprintf(fx.j.run_id, sizeof fx.j.run_id, "R1");
    fx.j.topts.seed = 42;
    fx.j.tune = tune;
    fx.c = one_case(config);
    int left;
    fx.ne = unit_entries_make(&fx.lp, &fx.c, &fx.j.filter, &kcase, tune, fx.e, UNIT_MAX_ENTRIES, &left);
    unit_rows_init(&fx.ur, &fx.j, &fx.lp, &fx.dev, &fx.c, KLAB_FP16);
    unit_rows_for_entries(&fx.ur, fx.e, fx.ne);
}

/* ---- the rows an entry makes ---- */

static void test_a_row_an_entry_named_for_the_run(void **state)
{
    (void)state;
    make(90, "", 0);
    assert_int_equal(fx.ur.n, 3);
    assert_string_equal(fx.ur.label, "fake small fp16");
    const char *profiles[] = {"baseline", "tiled", "wgmma"};
    for (int i = 0; i < 3; i++) {
        const klab_row *r = &fx.ur.rows[i];
        assert_string_equal(r->profile, profiles[i]);
        assert_string_equal(r->run_id, "R1");
        assert_string_equal(r->plugin, "fake");
        assert_string_equal(r->kcase, "small");
        assert_string_equal(r->shape, "64x64");
        assert_string_equal(r->dtype, "fp16");
        assert_string_equal(r->l2, "cold");
        assert_string_equal(r->launch, "stream");
        assert_int_equal(r->seed, 42);
        assert_true(r->has_gpu && r->gpu_index == 1);
        assert_string_equal(r->gpu_uuid, "GPU-0000");
        assert_string_equal(r->flags, "");
        assert_true(unit_row_open(r));
    }
    assert_int_equal(unit_rows_open(&fx.ur), 3);
}

static void test_mode_and_quick_are_in_every_row(void **state)
{
    (void)state;
    memset(&fx, 0, sizeof fx);
    plugin(&fx.lp);
    fx.dev = device(90);
    fx.c = one_case("");
    fx.j.topts.mode = TIMING_BATCHED;
    fx.j.quick = 1;
    unit_rows_init(&fx.ur, &fx.j, &fx.lp, &fx.dev, &fx.c, KLAB_FP32);
    klab_row *r = unit_row_new(&fx.ur, "torch.matmul");
    assert_string_equal(r->launch, "batched");
    assert_string_equal(r->l2, "cold");
    assert_true(row_has_flag(r, ROW_FLAG_QUICK));
    fx.j.topts.mode = TIMING_HOT;
    fx.j.quick = 0;
    r = unit_row_new(&fx.ur, "x");
    assert_string_equal(r->l2, "hot");
    assert_string_equal(r->launch, "stream");
    assert_false(row_has_flag(r, ROW_FLAG_QUICK));
}

static void test_tune_run_rows_are_trials(void **state)
{
    (void)state;
    make(90, "", 1);
    /* baseline; tiled's own choice and its three configurations; wgmma */
    assert_int_equal(fx.ur.n, 6);
    assert_false(row_has_flag(&fx.ur.rows[0], TUNE_FLAG_TRIAL));
    assert_true(row_has_flag(&fx.ur.rows[1], TUNE_FLAG_TRIAL) && row_has_flag(&fx.ur.rows[1], TUNE_FLAG_OWN));
    for (int i = 2; i < 5; i++)
        assert_true(row_has_flag(&fx.ur.rows[i], TUNE_FLAG_TRIAL) && !row_has_flag(&fx.ur.rows[i], TUNE_FLAG_OWN));
    unit_rows_pick_configs(&fx.ur, fx.e, fx.ne, &kcase, NULL, &out);
    assert_string_equal(fx.ur.rows[1].config, "tile=128");
    assert_string_equal(fx.ur.rows[2].config, "tile=64");
    assert_string_equal(fx.ur.rows[4].config, "tile=256");
    assert_string_equal(fx.ur.rows[0].config, "");
}

/* ---- the device ---- */

static void test_device_below_min_cc_skips_every_row(void **state)
{
    (void)state;
    make(75, "", 0);
    unit_rows_skip_for_device(&fx.ur, fx.e, fx.ne);
    for (int i = 0; i < fx.ur.n; i++) {
        assert_int_equal(fx.ur.rows[i].status, ROW_SKIPPED);
        assert_string_equal(fx.ur.rows[i].reason, "needs compute capability 8.0; device 1 (Fake GPU) is 7.5");
    }
    assert_int_equal(unit_rows_open(&fx.ur), 0);
}

static void test_exact_archs_skip_their_profile_only(void **state)
{
    (void)state;
    make(100, "", 0);
    unit_rows_skip_for_device(&fx.ur, fx.e, fx.ne);
    assert_true(unit_row_open(&fx.ur.rows[0]) && unit_row_open(&fx.ur.rows[1]));
    assert_int_equal(fx.ur.rows[2].status, ROW_SKIPPED);
    assert_string_equal(fx.ur.rows[2].reason, "has machine code for sm_90 only; device 1 (Fake GPU) is 10.0");
    make(90, "", 0);
    unit_rows_skip_for_device(&fx.ur, fx.e, fx.ne);
    assert_int_equal(unit_rows_open(&fx.ur), 3);
}

static void test_fail_open_leaves_decided_rows(void **state)
{
    (void)state;
    make(100, "", 0);
    unit_rows_skip_for_device(&fx.ur, fx.e, fx.ne);
    unit_rows_fail_open(&fx.ur, ROW_FAILED, "setup: %s", "out of memory");
    assert_int_equal(fx.ur.rows[0].status, ROW_FAILED);
    assert_string_equal(fx.ur.rows[0].reason, "setup: out of memory");
    assert_int_equal(fx.ur.rows[2].status, ROW_SKIPPED); /* the skip stands */
}

/* ---- configurations ---- */

static void test_config_own_case_and_missing(void **state)
{
    (void)state;
    make(90, "", 0);
    unit_rows_pick_configs(&fx.ur, fx.e, fx.ne, &kcase, NULL, &out);
    assert_string_equal(fx.ur.rows[1].config, "tile=128"); /* the plugin's own choice, named */
    assert_int_equal(fx.e[1].config, -1);
    assert_string_equal(fx.ur.rows[0].config, ""); /* no tuning space: nothing named */

    make(90, "tile=256", 0);
    unit_rows_pick_configs(&fx.ur, fx.e, fx.ne, &kcase, NULL, &out);
    assert_int_equal(fx.e[1].config, 2);
    assert_string_equal(fx.ur.rows[1].config, "tile=256");
    assert_true(unit_row_open(&fx.ur.rows[1]));

    make(90, "tile=7", 0);
    unit_rows_pick_configs(&fx.ur, fx.e, fx.ne, &kcase, NULL, &out);
    assert_int_equal(fx.ur.rows[1].status, ROW_FAILED);
    assert_string_equal(fx.ur.rows[1].config, "tile=7");
    assert_string_equal(fx.ur.rows[1].reason,
                        "config 'tile=7' is not in the tuning space of profile 'tiled' (3 configurations)");
    assert_true(unit_row_open(&fx.ur.rows[0])); /* the others run */
}

/* A cache holding `config` for the fixture's tiled profile. */
static void cache_with(tune_cache *tc, const char *config)
{
    memset(tc, 0, sizeof *tc);
    snprintf(tc->path, sizeof tc->path, "/cache.ini");
    tune_entry te;
    memset(&te, 0, sizeof te);
    tune_key_make(&te.key, "Fake GPU", "fake", "1", &fx.c, "fp16", "tiled");
    snprintf(te.config, sizeof te.config, "%s", config);
    char err[256];
    assert_int_equal(tune_cache_put(tc, &te, err, sizeof err), 0);
}

static void test_config_from_the_cache_and_stale(void **state)
{
    (void)state;
    tune_cache tc;
    make(90, "", 0);
    cache_with(&tc, "tile=64");
    unit_rows_pick_configs(&fx.ur, fx.e, fx.ne, &kcase, &tc, &out);
    assert_int_equal(fx.e[1].config, 0);
    assert_string_equal(fx.ur.rows[1].config, "tile=64");
    assert_true(row_has_flag(&fx.ur.rows[1], TUNE_FLAG_TUNED));
    assert_string_equal(notes, "");
    tune_cache_free(&tc);

    make(90, "", 0);
    cache_with(&tc, "tile=9999");
    unit_rows_pick_configs(&fx.ur, fx.e, fx.ne, &kcase, &tc, &out);
    assert_int_equal(fx.e[1].config, -1);
    assert_string_equal(fx.ur.rows[1].config, "tile=128");
    assert_false(row_has_flag(&fx.ur.rows[1], TUNE_FLAG_TUNED));
    assert_true(unit_row_open(&fx.ur.rows[1]));
    assert_string_equal(notes, "fake small fp16 tiled: the tuning cache's config 'tile=9999' is not in the tuning "
                               "space any more (3 configurations): a stale entry of /cache.ini, not used; the "
                               "plugin's own choice runs (klab --tune finds a new one)\n");
    tune_cache_free(&tc);

    make(90, "tile=256", 0); /* the case's config wins over the cache's */
    cache_with(&tc, "tile=64");
    unit_rows_pick_configs(&fx.ur, fx.e, fx.ne, &kcase, &tc, &out);
    assert_string_equal(fx.ur.rows[1].config, "tile=256");
    assert_false(row_has_flag(&fx.ur.rows[1], TUNE_FLAG_TUNED));
    tune_cache_free(&tc);
}

static void test_skipped_row_gets_no_config(void **state)
{
    (void)state;
    make(75, "tile=7", 0);
    unit_rows_skip_for_device(&fx.ur, fx.e, fx.ne);
    unit_rows_pick_configs(&fx.ur, fx.e, fx.ne, &kcase, NULL, &out);
    assert_int_equal(fx.ur.rows[1].status, ROW_SKIPPED); /* not failed for its config too */
    assert_string_equal(fx.ur.rows[1].config, "");
}

/* ---- verdicts ---- */

static const verify_result last = {.rel_l2_err = 1e-3, .max_abs_err = 0.5, .tol = 1e-2};

static klab_row *fresh(void)
{
    make(90, "", 0);
    return &fx.ur.rows[0];
}

static void test_verified_run_outcomes(void **state)
{
    (void)state;
    klab_row *r = fresh();
    assert_int_equal(unit_row_verified(r, INST_OK, "", &last, 4096, 0, ""), 1);
    assert_true(unit_row_open(r) && r->has_err);
    assert_true(r->rel_l2_err == 1e-3 && r->max_abs_err == 0.5 && r->tol == 1e-2);
    assert_int_equal(r->verified_elems, 4096);

    r = fresh();
    assert_int_equal(unit_row_verified(r, INST_ERROR, "run: KLAB_ERROR", &last, 4096, 0, ""), 0);
    assert_int_equal(r->status, ROW_FAILED);
    assert_string_equal(r->reason, "run: KLAB_ERROR");
    assert_false(r->has_err); /* no comparison to report */

    r = fresh();
    assert_int_equal(unit_row_verified(r, INST_REFUSED, "reference nearly zero", &last, 4096, 0, ""), 0);
    assert_int_equal(r->status, ROW_REFUSED);
    assert_false(r->has_err);

    r = fresh();
    assert_int_equal(unit_row_verified(r, INST_MISMATCH, "y: rel_l2 0.5 > tol", &last, 4096, 1, ""), 0);
    assert_int_equal(r->status, ROW_INCORRECT);
    assert_string_equal(r->reason, "y: rel_l2 0.5 > tol; and it changed its inputs");
    assert_true(r->has_err);

    r = fresh();
    assert_int_equal(unit_row_verified(r, INST_OK, "", &last, 4096, 1, ""), 0);
    assert_int_equal(r->status, ROW_INCORRECT);
    assert_string_equal(r->reason, "input modified: run changed its inputs (checksum differs after one run)");

    r = fresh();
    assert_int_equal(unit_row_verified(r, INST_OK, "", &last, 4096, -1, "reading x back: CUDA error 700"), 0);
    assert_int_equal(r->status, ROW_FAILED);
    assert_string_equal(r->reason, "reading x back: CUDA error 700");
}

static void test_timed_subject_outcomes(void **state)
{
    (void)state;
    static const struct {
        subject_state st;
        row_status want;
    } cases[] = {{SUBJ_FAILED, ROW_FAILED}, {SUBJ_INCORRECT, ROW_INCORRECT}, {SUBJ_ESCAPED, ROW_FLAGGED}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        subject sb;
        memset(&sb, 0, sizeof sb);
        sb.state = cases[i].st;
        snprintf(sb.why, sizeof sb.why, "why %zu", i);
        klab_row *r = fresh();
        assert_int_equal(unit_row_timed(r, &sb, 0, ""), 0);
        assert_int_equal(r->status, cases[i].want);
        assert_string_equal(r->reason, sb.why);
    }
    subject ok;
    memset(&ok, 0, sizeof ok);
    klab_row *r = fresh();
    assert_int_equal(unit_row_timed(r, &ok, 0, ""), 1);
    assert_true(unit_row_open(r));
    r = fresh();
    assert_int_equal(unit_row_timed(r, &ok, 1, ""), 0);
    assert_int_equal(r->status, ROW_INCORRECT);
    assert_string_equal(r->reason, "input modified during timing (checksum differs after the timed runs)");
    r = fresh();
    assert_int_equal(unit_row_timed(r, &ok, -1, "could not read x"), 0);
    assert_int_equal(r->status, ROW_FAILED);
    assert_string_equal(r->reason, "could not read x");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_row_an_entry_named_for_the_run),
        cmocka_unit_test(test_mode_and_quick_are_in_every_row),
        cmocka_unit_test(test_tune_run_rows_are_trials),
        cmocka_unit_test(test_device_below_min_cc_skips_every_row),
        cmocka_unit_test(test_exact_archs_skip_their_profile_only),
        cmocka_unit_test(test_fail_open_leaves_decided_rows),
        cmocka_unit_test(test_config_own_case_and_missing),
        cmocka_unit_test(test_config_from_the_cache_and_stale),
        cmocka_unit_test(test_skipped_row_gets_no_config),
        cmocka_unit_test(test_verified_run_outcomes),
        cmocka_unit_test(test_timed_subject_outcomes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
