/* Fault isolation and the command line, through the real klab binary (KLAB_EXE) as a subprocess.
 *
 * Each test builds its own plugin folder in a temporary directory: symlinks to only the plugins it
 * needs (tests/fixtures/plugins/crash/, built into KLAB_TEST_PLUGINS, and the build's vector_add.so), and
 * its own INI folder, so nothing depends on the repository's ini/ files. The klab under test still
 * searches the build's plugins/ (beside the executable) after --plugin-path; where that matters the
 * test selects plugins with --plugin.
 *
 *   list     a plugin whose entry segfaults and one whose library constructor aborts are REFUSED
 *            with the signal that killed their worker; the good plugins are listed in full; exit 1
 *   validate a plugin whose work hook hangs is killed by the watchdog (--timeout 2) and reported,
 *            and the INI files after it are still validated; exit 1
 *   cli      a broken --config INI is reported as file:line with its key, exit 2, before any GPU
 *            work; --plugin nosuch exits 2 naming the plugins found; a run without a GPU exits 3
 */
#include <cuda_runtime.h>
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "klab_run.h"
#include "klab_test.h"

/* The `klab --list` block of one plugin: from its "\n  NAME " heading to the next blank line. */
static char *list_block(const char *out, const char *name, char *buf, size_t len)
{
    char head[128];
    snprintf(head, sizeof head, "\n  %s ", name);
    const char *b = strstr(out, head);
    if (!b) {
        fail_msg("plugin %s is not listed", name);
        return buf; /* not reached; GCC does not know cmocka's fail_msg returns no further */
    }
    const char *e = strstr(b + 1, "\n\n");
    size_t n = e ? (size_t)(e - b) : strlen(b);
    snprintf(buf, len, "%.*s", (int)n, b);
    return buf;
}

/* ---- klab --list ---- */

static void test_list_survives_crashing_plugins(void **state)
{
    (void)state;
    char dir[PATH_MAX], inis[PATH_MAX], want[PATH_MAX + 256], block[8192];
    kr_mkdir("plugins", dir, sizeof dir);
    kr_mkdir("ini", inis, sizeof inis);
    kr_link_plugin(dir, KLAB_TEST_PLUGINS "/crash_entry.so");
    kr_link_plugin(dir, KLAB_TEST_PLUGINS "/crash_ctor.so");
    kr_link_plugin(dir, KLAB_TEST_PLUGINS "/crash_good.so");
    kr_link_plugin(dir, KLAB_BINARY_DIR "/plugins/vector_add.so");

    klab_result r = KLAB("--list", "--plugin-path", dir, "--ini-dir", inis);

    /* each crash costs only its own worker, and is named with the signal that ended it */
    snprintf(want, sizeof want, "REFUSED %s/crash_entry.so: killed by SIGSEGV\n", dir);
    kr_expect_in(r.out, want);
    snprintf(want, sizeof want, "REFUSED %s/crash_ctor.so: killed by SIGABRT\n", dir);
    kr_expect_in(r.out, want);
    kr_expect_in(r.out, "(it crashed while loading: its library constructor or klab_plugin_entry)");

    /* the good ones, in full */
    list_block(r.out, "crash_good", block, sizeof block);
    kr_expect_in(block, "2.0.1  (plugin ABI 2.1)");
    kr_expect_in(block, "behaves, whatever its neighbours do");
    kr_expect_in(block, "profile plain");
    kr_expect_in(block, "the obvious loop  [baseline]");
    kr_expect_in(block, "profile clever");
    kr_expect_in(block, "dtypes: fp32 fp16   params: k");
    snprintf(want, sizeof want, "file: %s/crash_good.so", dir);
    kr_expect_in(block, want);
    kr_expect_not_in(block, "REFUSED");

    list_block(r.out, "vector_add", block, sizeof block);
    kr_expect_in(block, "profile naive");
    kr_expect_in(block, "profile vectorized");
    kr_expect_in(block, "profile memcpy");
    kr_expect_in(block, "dtypes: fp32 fp16 bf16   params: op");
    snprintf(want, sizeof want, "file: %s/vector_add.so", dir);
    kr_expect_in(block, want);

    /* exactly the two crashing ones of this folder were refused (the build's own plugins/, searched
       after it, is not this test's business) */
    snprintf(want, sizeof want, "REFUSED %s/", dir);
    int refused = 0;
    for (const char *p = strstr(r.out, want); p; p = strstr(p + 1, want))
        refused++;
    assert_int_equal(refused, 2);
    kr_expect_in(r.out, " refused\n");
    assert_int_equal(r.rc, 1);
    free(r.out);
}

/* ---- klab --validate ---- */

static void test_validate_survives_hanging_plugin(void **state)
{
    (void)state;
    char dir[PATH_MAX], inis[PATH_MAX], path[PATH_MAX + 64], want[PATH_MAX + 256];
    kr_mkdir("plugins", dir, sizeof dir);
    kr_mkdir("ini", inis, sizeof inis);
    kr_link_plugin(dir, KLAB_TEST_PLUGINS "/crash_hang.so");
    kr_link_plugin(dir, KLAB_TEST_PLUGINS "/crash_good.so");
    kr_link_plugin(dir, KLAB_BINARY_DIR "/plugins/vector_add.so");
    snprintf(path, sizeof path, "%s/crash_hang.ini", inis);
    kr_write_file(path, "[experiment]\nplugin = crash_hang\n\n[case 1024]\n");
    snprintf(path, sizeof path, "%s/crash_good.ini", inis);
    kr_write_file(path, "[experiment]\nplugin = crash_good\n\n[defaults]\ndtypes = fp32, fp16\n\n"
                     "[case small]\nshape = 64x32\nparam.k = 3\n\n[case one]\nshape = 7\nprofiles = clever\n");
    snprintf(path, sizeof path, "%s/vector_add.ini", inis);
    kr_write_file(path, "[experiment]\nplugin = vector_add\n\n[case tiny]\nshape = 2^12\nparam.op = add\n");

    /* crash_hang first: the two after it show that validation goes on */
    klab_result r = KLAB("--validate", "--timeout", "2", "--plugin-path", dir, "--ini-dir", inis, "--plugin",
                         "crash_hang,crash_good,vector_add");

    snprintf(want, sizeof want, "FAILED  %s/crash_hang.so: the worker timed out after 2 s of silence while checking it\n", dir);
    kr_expect_in(r.out, want);
    const char *hang = strstr(r.out, want);
    snprintf(want, sizeof want, "ok      %s/crash_good.ini\n", inis);
    kr_expect_in(r.out, want);
    assert_true(strstr(r.out, want) > hang);
    snprintf(want, sizeof want, "ok      %s/vector_add.ini\n", inis);
    kr_expect_in(r.out, want);
    assert_true(strstr(r.out, want) > hang);
    snprintf(want, sizeof want, "ok      %s/crash_hang.ini", inis);
    kr_expect_not_in(r.out, want);
    /* crash_good's cases went through its work hook, in a worker of their own */
    kr_expect_in(r.out, "profiles plain,clever, 0.0 MB moved at fp32");
    kr_expect_in(r.out, "profiles clever, 0.0 MB moved at fp32");
    kr_expect_in(r.out, "3 INI files checked: 0 invalid, 1 plugin refused");
    assert_int_equal(r.rc, 1);
    /* the watchdog, not the test's own timeout, ended the hang */
    assert_true(r.secs >= 2.0);
    assert_true(r.secs < 60.0);
    free(r.out);
}

/* ---- the command line and INI errors ---- */

static void test_broken_config_is_a_usage_error(void **state)
{
    (void)state;
    char dir[PATH_MAX], out[PATH_MAX + 16], ini[PATH_MAX + 16], want[PATH_MAX + 256];
    struct stat st;
    kr_mkdir("plugins", dir, sizeof dir);
    kr_link_plugin(dir, KLAB_BINARY_DIR "/plugins/vector_add.so");
    snprintf(ini, sizeof ini, "%s/broken.ini", kr_tmp);
    snprintf(out, sizeof out, "%s/out", kr_tmp);
    kr_write_file(ini, "[experiment]\nplugin = vector_add\n\n[case small]\nshape = 2^10\nwarmup = lots\n");

    /* a run: the INI is parsed before the GPU is looked for, so this machine's GPU (or none) never
       comes into it */
    klab_result r = KLAB("--config", ini, "--plugin-path", dir, "--out", out);
    snprintf(want, sizeof want, "klab: %s:6: [case small] key 'warmup': 'lots' is not a whole number\n", ini);
    kr_expect_in(r.out, want);
    kr_expect_not_in(r.out, "no CUDA device");
    kr_expect_not_in(r.out, "timing needs a GPU");
    assert_int_equal(r.rc, 2);
    assert_int_equal(stat(out, &st), -1); /* no run folder was made */
    free(r.out);

    /* the same through --validate */
    r = KLAB("--validate", "--config", ini, "--plugin-path", dir);
    snprintf(want, sizeof want, "INVALID %s:6: [case small] key 'warmup': 'lots' is not a whole number\n", ini);
    kr_expect_in(r.out, want);
    assert_int_equal(r.rc, 2);
    free(r.out);
}

static void test_unknown_plugin_names_the_found_ones(void **state)
{
    (void)state;
    char dir[PATH_MAX], out[PATH_MAX + 16], line[4096];
    kr_mkdir("plugins", dir, sizeof dir);
    kr_link_plugin(dir, KLAB_TEST_PLUGINS "/crash_good.so");
    kr_link_plugin(dir, KLAB_BINARY_DIR "/plugins/vector_add.so");
    snprintf(out, sizeof out, "%s/out", kr_tmp);

    klab_result r = KLAB("--plugin", "nosuch", "--plugin-path", dir, "--out", out);
    const char *at = strstr(r.out, "klab: no plugin 'nosuch' found (found:");
    if (!at)
        fail_msg("no \"no plugin 'nosuch' found\" line");
    const char *nl = strchr(at, '\n');
    snprintf(line, sizeof line, "%.*s", nl ? (int)(nl - at) : (int)strlen(at), at);
    kr_expect_in(line, " crash_good");
    kr_expect_in(line, " vector_add");
    kr_expect_in(line, "see klab --list");
    kr_expect_not_in(r.out, "no CUDA device");
    assert_int_equal(r.rc, 2);
    free(r.out);
}

static void test_run_without_gpu_exits_3(void **state)
{
    (void)state;
    int count = 0;
    if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) {
        printf("# this machine has %d CUDA device(s): the no-GPU exit status cannot be seen here\n", count);
        skip();
    }
    char dir[PATH_MAX], inis[PATH_MAX], out[PATH_MAX + 16], path[PATH_MAX + 64];
    kr_mkdir("plugins", dir, sizeof dir);
    kr_mkdir("ini", inis, sizeof inis);
    kr_link_plugin(dir, KLAB_BINARY_DIR "/plugins/vector_add.so");
    snprintf(path, sizeof path, "%s/vector_add.ini", inis);
    kr_write_file(path, "[experiment]\nplugin = vector_add\n\n[case tiny]\nshape = 2^12\nparam.op = add\n");
    snprintf(out, sizeof out, "%s/out", kr_tmp);

    klab_result r = KLAB("--plugin", "vector_add", "--plugin-path", dir, "--ini-dir", inis, "--out", out);
    kr_expect_in(r.out, "klab: no CUDA device");
    kr_expect_in(r.out, "timing needs a GPU");
    assert_int_equal(r.rc, 3);
    free(r.out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KR_TEST(test_list_survives_crashing_plugins),
        KR_TEST(test_validate_survives_hanging_plugin),
        KR_TEST(test_broken_config_is_a_usage_error),
        KR_TEST(test_unknown_plugin_names_the_found_ones),
        KR_TEST(test_run_without_gpu_exits_3),
    };
    KLAB_RUN_TESTS(tests);
}
