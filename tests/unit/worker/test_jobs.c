/* The jobs a worker runs (core/worker/jobs.c) where no GPU is needed, run in this process with their
 * messages captured: describe and validate a stub plugin (fixtures/plugins/abi/abi_good), --tune's
 * summary and --verbose listing of its configurations, a plugin refused by the loader and an INI
 * refused against the plugin, and a run job that stops at either refusal before it opens a device.
 * The messages and their order are the protocol the parent reads (docs/workers.md). */
#include "klab_test.h"

#include <string.h>

#include "klab_run.h"
#include "worker/jobs.h"

#define PLUGIN(stem) KLAB_TEST_PLUGINS "/" stem ".so"

/* ---- the messages a job sends, in order ---- */

static char log_[16384]; /* one line a message: its type, and the text of a text message */
static int done_status;

static int capture(void *user, wire_type t, const void *payload, uint32_t length)
{
    (void)user;
    static const char *const names[] = {[WIRE_HELLO] = "HELLO",   [WIRE_PLUGIN] = "PLUGIN", [WIRE_REFUSED] = "REFUSED",
                                        [WIRE_NOTE] = "NOTE",     [WIRE_FATAL] = "FATAL",   [WIRE_DONE] = "DONE",
                                        [WIRE_DEVICE] = "DEVICE", [WIRE_UNIT] = "UNIT",     [WIRE_ROW] = "ROW"};
    const char *name = (size_t)t < sizeof names / sizeof names[0] && names[t] ? names[t] : "OTHER";
    size_t at = strlen(log_);
    if (t == WIRE_REFUSED || t == WIRE_NOTE || t == WIRE_FATAL)
        snprintf(log_ + at, sizeof log_ - at, "%s %.*s\n", name, (int)strnlen(payload, length),
                 (const char *)payload);
    else
        snprintf(log_ + at, sizeof log_ - at, "%s\n", name);
    if (t == WIRE_DONE)
        memcpy(&done_status, payload, sizeof done_status);
    return 0;
}

static const job_out out = {capture, NULL};

static cfg_experiment exp_; /* large: off the stack */
static job j;

/* A job of `kind` for the plugin `so`, with the INI `text` (NULL: none) written to kr_tmp; tune 2 is
   --tune --verbose. */
static int execute(job_kind kind, const char *so, const char *ini_text, int tune)
{
    memset(&j, 0, sizeof j);
    log_[0] = 0;
    done_status = -1;
    j.kind = kind;
    j.tune = tune > 0;
    j.verbose = tune > 1;
    snprintf(j.plugin_path, sizeof j.plugin_path, "%s", so);
    if (ini_text) {
        char path[PATH_MAX + 16], err[1024];
        snprintf(path, sizeof path, "%s/x.ini", kr_tmp);
        kr_write_file(path, ini_text);
        if (cfg_load(path, &exp_, err, sizeof err) != 0)
            fail_msg("%s", err);
        j.cfg = &exp_;
    }
    return job_execute(&j, &out);
}

static const char good_ini[] = "[experiment]\nplugin = abi_good\n"
                               "[defaults]\ndtypes = fp32, bf16\n"
                               "[case 64x64]\n"
                               "[case only-slow]\nshape = 128\nprofiles = slow\n";

static void test_describe(void **state)
{
    (void)state;
    assert_int_equal(execute(JOB_DESCRIBE, PLUGIN("abi_good"), NULL, 0), 0);
    assert_string_equal(log_, "HELLO\nPLUGIN\nDONE\n");
    assert_int_equal(done_status, 0);
}

static void test_describe_refused(void **state)
{
    (void)state;
    assert_int_equal(execute(JOB_DESCRIBE, PLUGIN("abi_no_entry"), NULL, 0), 0);
    kr_expect_in(log_, "HELLO\nREFUSED ");
    kr_expect_in(log_, "abi_no_entry.so");
    kr_expect_not_in(log_, "PLUGIN");
    kr_expect_not_in(log_, "DONE");
}

static void test_validate_lists_cases(void **state)
{
    (void)state;
    assert_int_equal(execute(JOB_VALIDATE, PLUGIN("abi_good"), good_ini, 0), 0);
    assert_string_equal(log_, "HELLO\nPLUGIN\n"
                              "NOTE   case 64x64          shape 64x64        dtypes fp32,bf16      profiles slow,fast, "
                              "0.0 MB moved at fp32\n"
                              "NOTE   case only-slow      shape 128          dtypes fp32,bf16      profiles slow, 0.0 "
                              "MB moved at fp32\n"
                              "NOTE   6 rows (case x dtype x profile)\n"
                              "DONE\n");
    assert_int_equal(done_status, 0);
}

static void test_validate_tune_lists_configurations(void **state)
{
    (void)state;
    /* a line a case: each space's size, and the rows a tune run of the case writes */
    assert_int_equal(execute(JOB_VALIDATE, PLUGIN("abi_good"), good_ini, 1), 0);
    kr_expect_in(log_, "NOTE   case 64x64          shape 64x64        dtypes fp32,bf16       tune: 10 rows; "
                       "configurations: fast fp32,bf16 3\n");
    kr_expect_in(log_, "tune: 2 rows; configurations: none (no profile has a tuning space)\n");
    kr_expect_in(log_, "NOTE   klab --tune: 12 rows (each configuration, and each profile's own choice); every "
                       "configuration: --verbose\nDONE\n");
    kr_expect_not_in(log_, "block=");

    /* --verbose: every configuration a line */
    assert_int_equal(execute(JOB_VALIDATE, PLUGIN("abi_good"), good_ini, 2), 0);
    kr_expect_in(log_, "NOTE     profile fast fp32,bf16: 3 configurations; its own choice block=128\n"
                       "NOTE         0  block=64\nNOTE         1  block=128\nNOTE         2  block=256\n");
    /* 64x64: slow, fast's own choice and its 3, in 2 dtypes; only-slow: slow in 2 */
    kr_expect_in(log_, "NOTE   klab --tune: 12 rows (each configuration, and each profile's own choice)\nDONE\n");
}

static void test_validate_refuses_what_the_plugin_lacks(void **state)
{
    (void)state;
    assert_int_equal(execute(JOB_VALIDATE, PLUGIN("abi_good"),
                             "[experiment]\nplugin = abi_good\n[case 64]\nprofiles = slow, nosuch\n", 0),
                     0);
    kr_expect_in(log_, "HELLO\nPLUGIN\nREFUSED ");
    kr_expect_in(log_, "x.ini:4: [case 64] key 'profiles': ");
    kr_expect_in(log_, "nosuch");
    kr_expect_not_in(log_, "DONE");
}

/* A run job refused before its device: the same messages with or without a GPU, and no DEVICE. */
static void test_run_stops_at_a_refusal(void **state)
{
    (void)state;
    assert_int_equal(execute(JOB_RUN, PLUGIN("abi_good"), "[experiment]\nplugin = abi_good\n[case 64]\ndtypes = fp16\n",
                             0),
                     0);
    kr_expect_in(log_, "HELLO\nPLUGIN\nREFUSED ");
    kr_expect_in(log_, "fp16");
    kr_expect_not_in(log_, "DEVICE");
    kr_expect_not_in(log_, "UNIT");

    assert_int_equal(execute(JOB_RUN, PLUGIN("abi_major3"), good_ini, 0), 0);
    kr_expect_in(log_, "HELLO\nREFUSED ");
    kr_expect_not_in(log_, "DEVICE");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KR_TEST(test_describe),
        KR_TEST(test_describe_refused),
        KR_TEST(test_validate_lists_cases),
        KR_TEST(test_validate_tune_lists_configurations),
        KR_TEST(test_validate_refuses_what_the_plugin_lacks),
        KR_TEST(test_run_stops_at_a_refusal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
