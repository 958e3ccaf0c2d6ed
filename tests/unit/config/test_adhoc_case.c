/* A case made on the command line (config/adhoc_case.c): its name, its keys checked as a [case]
 * section's, the INI's [defaults] taken; and --shape / --dim kept in a run's [selection], so that
 * --resume continues the same ad-hoc case. */
#include "klab_test.h"

#include <string.h>
#include <unistd.h>

#include "app/cli.h"
#include "app/lab.h"
#include "app/lab_selection.h"
#include "config/adhoc_case.h"

static char err[2000];
static cli_opts opts;

static int parse(const char **words)
{
    int argc = 0;
    while (words[argc])
        argc++;
    return cli_parse(argc, (char **)words, &opts, err, sizeof err);
}
#define PARSE(...) parse((const char *[]){"klab", __VA_ARGS__, NULL})

static void test_names(void **state)
{
    (void)state;
    char name[CFG_NAME];
    assert_int_equal(cfg_adhoc_name("4096x8192", "", name, sizeof name, err, sizeof err), 0);
    assert_string_equal(name, "adhoc-4096x8192");
    assert_int_equal(cfg_adhoc_name("", "m=64,n=4096,k=512", name, sizeof name, err, sizeof err), 0);
    assert_string_equal(name, "adhoc-m64-n4096-k512");
    assert_int_equal(cfg_adhoc_name("2^20", "k=8", name, sizeof name, err, sizeof err), 0);
    assert_string_equal(name, "adhoc-2^20-k8");
    assert_int_equal(cfg_adhoc_name("", "", name, sizeof name, err, sizeof err), -1);
    assert_int_equal(cfg_adhoc_name("0x4", "", name, sizeof name, err, sizeof err), -1);
    assert_non_null(strstr(err, "--shape: "));
    assert_int_equal(cfg_adhoc_name("", "m=4,m=5", name, sizeof name, err, sizeof err), -1);
    assert_string_equal(err, "--dim: 'm' is given twice");
    assert_int_equal(cfg_adhoc_name("", "M=4", name, sizeof name, err, sizeof err), -1);
    assert_non_null(strstr(err, "--dim: a dimension is dim.NAME"));
}

static void test_takes_the_defaults(void **state)
{
    (void)state;
    static cfg_experiment e;
    assert_int_equal(cfg_load(KLAB_TEST_DATA "/../ini/softmax.ini", &e, err, sizeof err), 0);
    int n = e.ncases;
    assert_int_equal(cfg_add_adhoc(&e, "64x128", "", err, sizeof err), n);
    const cfg_case *c = &e.cases[n];
    assert_string_equal(c->name, "adhoc-64x128");
    assert_int_equal(c->rank, 2);
    assert_true(c->dims[0] == 64 && c->dims[1] == 128);
    assert_int_equal(c->ndtypes, e.defaults.ndtypes); /* [defaults] dtypes = fp32, fp16, bf16 */
    assert_int_equal(c->nprofiles, 2);
    assert_int_equal(cfg_add_adhoc(&e, "64x128", "", err, sizeof err), -1); /* one of that name already */
}

/* --shape and --dim in [selection], read back by --resume as the same case */
static void test_selection_round_trip(void **state)
{
    (void)state;
    static cfg_experiment cfg;
    assert_int_equal(cfg_load(KLAB_TEST_DATA "/../ini/softmax.ini", &cfg, err, sizeof err), 0);
    char meta[] = "/tmp/klab-adhoc-meta-XXXXXX";
    int fd = mkstemp(meta);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(PARSE("--plugin", "softmax", "--shape", "64x128"), 0);
    assert_string_equal(opts.adhoc_name, "adhoc-64x128");
    assert_int_equal(opts.filter.ncases, 1);
    static cli_opts made;
    made = opts;
    device_desc d;
    memset(&d, 0, sizeof d);
    assert_int_equal(lab_write_meta(meta, "R", "2026-01-01T00:00:00Z", &made, 9, &d, &cfg, 1, err, sizeof err), 0);
    static lab_selection stored;
    assert_int_equal(lab_selection_read(meta, &stored, err, sizeof err), 1);
    assert_int_equal(PARSE("--resume", "R"), 0);
    if (lab_selection_apply(&opts, &stored, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_string_equal(opts.adhoc_shape, "64x128");
    assert_string_equal(opts.adhoc_name, "adhoc-64x128");
    assert_int_equal(opts.filter.ncases, 1);
    assert_string_equal(opts.filter.cases[0], "adhoc-64x128");
    assert_int_equal(PARSE("--resume", "R", "--plugin", "softmax", "--shape", "64x256"), 0);
    assert_int_equal(lab_selection_apply(&opts, &stored, err, sizeof err), -1);
    assert_string_equal(err, "--shape: the run was made with '64x128', this command line gives '64x256'");
    unlink(meta);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_takes_the_defaults),
        cmocka_unit_test(test_selection_round_trip),
    };
    KLAB_RUN_TESTS(tests);
}
