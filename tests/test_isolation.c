/* Fault isolation and the command line, through the real klab binary (KLAB_EXE) as a subprocess.
 *
 * Each test builds its own plugin folder in a temporary directory: symlinks to only the plugins it
 * needs (tests/plugins/crash/, built into KLAB_TEST_PLUGINS, and the build's vector_add.so), and
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
#define _GNU_SOURCE /* nftw's FTW_DEPTH and FTW_PHYS */
#include <cuda_runtime.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "klab_test.h"

/* ---- helpers ---- */

typedef struct klab_result {
    int rc;       /* exit status; 128 + signal if klab itself was killed */
    char *out;    /* stdout and stderr together */
    double secs;  /* wall time */
} klab_result;

static char tmp[PATH_MAX]; /* this test's temporary directory (real path) */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int setup_tmp(void **state)
{
    (void)state;
    char templ[] = "/tmp/klab-isolation-XXXXXX";
    if (!mkdtemp(templ) || !realpath(templ, tmp))
        return -1;
    return 0;
}

static int teardown_tmp(void **state)
{
    (void)state;
    if (tmp[0])
        nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    tmp[0] = 0;
    return 0;
}

/* tmp/rel, made as a folder */
static const char *mkdir_in_tmp(const char *rel, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", tmp, rel);
    assert_int_equal(mkdir(buf, 0755), 0);
    return buf;
}

static void link_plugin(const char *dir, const char *target)
{
    const char *base = strrchr(target, '/');
    char link[PATH_MAX + 64];
    snprintf(link, sizeof link, "%s/%s", dir, base ? base + 1 : target);
    if (symlink(target, link) != 0) {
        fail_msg("symlink %s -> %s: %s", link, target, strerror(errno));
    }
}

static void write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Runs KLAB_EXE with args (NULL-terminated) in tmp, no core files, without the caller's
   KLAB_PLUGIN_PATH / KLAB_INI_PATH. Echoes the command and its output as TAP comments. */
static klab_result run_klab(const char *const *args)
{
    klab_result r = {-1, NULL, 0};
    const char *argv[64];
    int n = 0;
    argv[n++] = KLAB_EXE;
    for (; *args && n < 63; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    printf("# $ klab");
    for (int i = 1; i < n; i++)
        printf(" %s", argv[i]);
    printf("\n");
    fflush(stdout);

    int fds[2];
    assert_int_equal(pipe(fds), 0);
    double t0 = now_s();
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        unsetenv("KLAB_PLUGIN_PATH");
        unsetenv("KLAB_INI_PATH");
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        close(fds[1]);
        if (chdir(tmp) != 0)
            _exit(126);
        execv(KLAB_EXE, (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    size_t cap = 1 << 16, len = 0;
    r.out = malloc(cap);
    assert_non_null(r.out);
    for (;;) {
        if (len + 4096 > cap) {
            cap *= 2;
            r.out = realloc(r.out, cap);
            assert_non_null(r.out);
        }
        ssize_t got = read(fds[0], r.out + len, cap - len - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        len += (size_t)got;
    }
    r.out[len] = 0;
    close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    r.secs = now_s() - t0;
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    /* the output, as TAP comments: shown by ctest --output-on-failure */
    for (char *line = r.out; *line;) {
        char *nl = strchr(line, '\n');
        int l = nl ? (int)(nl - line) : (int)strlen(line);
        printf("#   %.*s\n", l, line);
        line += l + (nl ? 1 : 0);
    }
    printf("# exit status %d after %.1f s\n", r.rc, r.secs);
    fflush(stdout);
    return r;
}

#define KLAB(...) run_klab((const char *const[]){__VA_ARGS__, NULL})

static void expect_in(const char *haystack, const char *needle)
{
    if (!strstr(haystack, needle))
        fail_msg("expected to find \"%s\" in klab's output", needle);
}

static void expect_not_in(const char *haystack, const char *needle)
{
    if (strstr(haystack, needle))
        fail_msg("did not expect \"%s\" in klab's output", needle);
}

/* The `klab --list` block of one plugin: from its "\n  NAME " heading to the next blank line. */
static char *list_block(const char *out, const char *name, char *buf, size_t len)
{
    char head[128];
    snprintf(head, sizeof head, "\n  %s ", name);
    const char *b = strstr(out, head);
    if (!b)
        fail_msg("plugin %s is not listed", name);
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
    mkdir_in_tmp("plugins", dir, sizeof dir);
    mkdir_in_tmp("ini", inis, sizeof inis);
    link_plugin(dir, KLAB_TEST_PLUGINS "/crash_entry.so");
    link_plugin(dir, KLAB_TEST_PLUGINS "/crash_ctor.so");
    link_plugin(dir, KLAB_TEST_PLUGINS "/crash_good.so");
    link_plugin(dir, KLAB_BINARY_DIR "/plugins/vector_add.so");

    klab_result r = KLAB("--list", "--plugin-path", dir, "--ini-dir", inis);

    /* each crash costs only its own worker, and is named with the signal that ended it */
    snprintf(want, sizeof want, "REFUSED %s/crash_entry.so: killed by SIGSEGV\n", dir);
    expect_in(r.out, want);
    snprintf(want, sizeof want, "REFUSED %s/crash_ctor.so: killed by SIGABRT\n", dir);
    expect_in(r.out, want);
    expect_in(r.out, "(it crashed while loading: its library constructor or klab_plugin_entry)");

    /* the good ones, in full */
    list_block(r.out, "crash_good", block, sizeof block);
    expect_in(block, "2.0.1  (plugin ABI 1.0)");
    expect_in(block, "behaves, whatever its neighbours do");
    expect_in(block, "profile plain");
    expect_in(block, "the obvious loop  [baseline]");
    expect_in(block, "profile clever");
    expect_in(block, "dtypes: fp32 fp16   params: k");
    snprintf(want, sizeof want, "file: %s/crash_good.so", dir);
    expect_in(block, want);
    expect_not_in(block, "REFUSED");

    list_block(r.out, "vector_add", block, sizeof block);
    expect_in(block, "profile naive");
    expect_in(block, "profile vectorized");
    expect_in(block, "profile memcpy");
    expect_in(block, "dtypes: fp32 fp16 bf16   params: op");
    snprintf(want, sizeof want, "file: %s/vector_add.so", dir);
    expect_in(block, want);

    /* exactly the two crashing ones of this folder were refused (the build's own plugins/, searched
       after it, is not this test's business) */
    snprintf(want, sizeof want, "REFUSED %s/", dir);
    int refused = 0;
    for (const char *p = strstr(r.out, want); p; p = strstr(p + 1, want))
        refused++;
    assert_int_equal(refused, 2);
    expect_in(r.out, " refused\n");
    assert_int_equal(r.rc, 1);
    free(r.out);
}

/* ---- klab --validate ---- */

static void test_validate_survives_hanging_plugin(void **state)
{
    (void)state;
    char dir[PATH_MAX], inis[PATH_MAX], path[PATH_MAX + 64], want[PATH_MAX + 256];
    mkdir_in_tmp("plugins", dir, sizeof dir);
    mkdir_in_tmp("ini", inis, sizeof inis);
    link_plugin(dir, KLAB_TEST_PLUGINS "/crash_hang.so");
    link_plugin(dir, KLAB_TEST_PLUGINS "/crash_good.so");
    link_plugin(dir, KLAB_BINARY_DIR "/plugins/vector_add.so");
    snprintf(path, sizeof path, "%s/crash_hang.ini", inis);
    write_file(path, "[experiment]\nplugin = crash_hang\n\n[case 1024]\n");
    snprintf(path, sizeof path, "%s/crash_good.ini", inis);
    write_file(path, "[experiment]\nplugin = crash_good\n\n[defaults]\ndtypes = fp32, fp16\n\n"
                     "[case small]\nshape = 64x32\nparam.k = 3\n\n[case one]\nshape = 7\nprofiles = clever\n");
    snprintf(path, sizeof path, "%s/vector_add.ini", inis);
    write_file(path, "[experiment]\nplugin = vector_add\n\n[case tiny]\nshape = 2^12\nparam.op = add\n");

    /* crash_hang first: the two after it show that validation goes on */
    klab_result r = KLAB("--validate", "--timeout", "2", "--plugin-path", dir, "--ini-dir", inis, "--plugin",
                         "crash_hang,crash_good,vector_add");

    snprintf(want, sizeof want, "FAILED  %s/crash_hang.so: the worker timed out after 2 s while checking it\n", dir);
    expect_in(r.out, want);
    const char *hang = strstr(r.out, want);
    snprintf(want, sizeof want, "ok      %s/crash_good.ini\n", inis);
    expect_in(r.out, want);
    assert_true(strstr(r.out, want) > hang);
    snprintf(want, sizeof want, "ok      %s/vector_add.ini\n", inis);
    expect_in(r.out, want);
    assert_true(strstr(r.out, want) > hang);
    snprintf(want, sizeof want, "ok      %s/crash_hang.ini", inis);
    expect_not_in(r.out, want);
    /* crash_good's cases went through its work hook, in a worker of their own */
    expect_in(r.out, "profiles plain,clever, 0.0 MB moved at fp32");
    expect_in(r.out, "profiles clever, 0.0 MB moved at fp32");
    expect_in(r.out, "3 INI files checked: 0 invalid, 1 plugin refused");
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
    mkdir_in_tmp("plugins", dir, sizeof dir);
    link_plugin(dir, KLAB_BINARY_DIR "/plugins/vector_add.so");
    snprintf(ini, sizeof ini, "%s/broken.ini", tmp);
    snprintf(out, sizeof out, "%s/out", tmp);
    write_file(ini, "[experiment]\nplugin = vector_add\n\n[case small]\nshape = 2^10\nwarmup = lots\n");

    /* a run: the INI is parsed before the GPU is looked for, so this machine's GPU (or none) never
       comes into it */
    klab_result r = KLAB("--config", ini, "--plugin-path", dir, "--out", out);
    snprintf(want, sizeof want, "klab: %s:6: [case small] key 'warmup': 'lots' is not a whole number\n", ini);
    expect_in(r.out, want);
    expect_not_in(r.out, "no CUDA device");
    expect_not_in(r.out, "timing needs a GPU");
    assert_int_equal(r.rc, 2);
    assert_int_equal(stat(out, &st), -1); /* no run folder was made */
    free(r.out);

    /* the same through --validate */
    r = KLAB("--validate", "--config", ini, "--plugin-path", dir);
    snprintf(want, sizeof want, "INVALID %s:6: [case small] key 'warmup': 'lots' is not a whole number\n", ini);
    expect_in(r.out, want);
    assert_int_equal(r.rc, 2);
    free(r.out);
}

static void test_unknown_plugin_names_the_found_ones(void **state)
{
    (void)state;
    char dir[PATH_MAX], out[PATH_MAX + 16], line[4096];
    mkdir_in_tmp("plugins", dir, sizeof dir);
    link_plugin(dir, KLAB_TEST_PLUGINS "/crash_good.so");
    link_plugin(dir, KLAB_BINARY_DIR "/plugins/vector_add.so");
    snprintf(out, sizeof out, "%s/out", tmp);

    klab_result r = KLAB("--plugin", "nosuch", "--plugin-path", dir, "--out", out);
    const char *at = strstr(r.out, "klab: no plugin 'nosuch' found (found:");
    if (!at)
        fail_msg("no \"no plugin 'nosuch' found\" line");
    const char *nl = strchr(at, '\n');
    snprintf(line, sizeof line, "%.*s", nl ? (int)(nl - at) : (int)strlen(at), at);
    expect_in(line, " crash_good");
    expect_in(line, " vector_add");
    expect_in(line, "see klab --list");
    expect_not_in(r.out, "no CUDA device");
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
    mkdir_in_tmp("plugins", dir, sizeof dir);
    mkdir_in_tmp("ini", inis, sizeof inis);
    link_plugin(dir, KLAB_BINARY_DIR "/plugins/vector_add.so");
    snprintf(path, sizeof path, "%s/vector_add.ini", inis);
    write_file(path, "[experiment]\nplugin = vector_add\n\n[case tiny]\nshape = 2^12\nparam.op = add\n");
    snprintf(out, sizeof out, "%s/out", tmp);

    klab_result r = KLAB("--plugin", "vector_add", "--plugin-path", dir, "--ini-dir", inis, "--out", out);
    expect_in(r.out, "klab: no CUDA device");
    expect_in(r.out, "timing needs a GPU");
    assert_int_equal(r.rc, 3);
    free(r.out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_list_survives_crashing_plugins, setup_tmp, teardown_tmp),
        cmocka_unit_test_setup_teardown(test_validate_survives_hanging_plugin, setup_tmp, teardown_tmp),
        cmocka_unit_test_setup_teardown(test_broken_config_is_a_usage_error, setup_tmp, teardown_tmp),
        cmocka_unit_test_setup_teardown(test_unknown_plugin_names_the_found_ones, setup_tmp, teardown_tmp),
        cmocka_unit_test_setup_teardown(test_run_without_gpu_exits_3, setup_tmp, teardown_tmp),
    };
    KLAB_RUN_TESTS(tests);
}
