/* klab --resume on a GPU, through the real binary (lab_resume.h): a run of vector_add's GPU-test INI is
 * stopped with SIGINT once its second unit has begun (the first unit's rows whole in the .partial CSV
 * and its line in the .progress file), then resumed: the resumed CSV has the rows of a whole run (the
 * same cases, dtypes and profiles, each once, all passed), the first unit's rows byte for byte as the
 * interrupted run wrote them, one seed throughout, meta.ini untouched, and no .partial or .progress
 * file left. A complete run resumed keeps its CSV as it is.
 *
 * Without a GPU the whole program is skipped with the reason (exit 77). INI: tests/gpu/ini/vector_add.ini. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "evidence/csv_sink.h"
#include "evidence/progress_file.h"
#include "klab_gpu.h"

static char *slurp(const char *path)
{
    size_t len;
    char *text = file_read_all(path, &len);
    if (!text)
        fail_msg("cannot read %s", path);
    return text;
}

static void path_in(char *buf, size_t len, const char *run, const char *name)
{
    snprintf(buf, len, "%s/%s/%s", kg_out_dir, run, name);
}

/* klab started with args; SIGINT once its output holds `when`; its output and exit status. */
static klab_result interrupted(const char *const *args, const char *when)
{
    int fd;
    pid_t pid = kr_spawn(args, " (SIGINT once it prints the second unit)", &fd);
    size_t cap = 1 << 20, len = 0;
    klab_result r = {0, malloc(cap), 0};
    assert_non_null(r.out);
    int sent = 0;
    for (;;) {
        ssize_t got = read(fd, r.out + len, cap - len - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        len += (size_t)got;
        r.out[len] = 0;
        if (!sent && strstr(r.out, when)) {
            kill(pid, SIGINT);
            sent = 1;
        }
        assert_true(len + 1 < cap);
    }
    close(fd);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    kr_echo(r.out);
    printf("# exit status %d\n", r.rc);
    if (!sent)
        fail_msg("klab never printed '%s'", when);
    return r;
}

/* Every (case, dtype, profile) of a is in b once, and b has no other. */
static void same_keys(const csv *a, const csv *b)
{
    assert_int_equal(a->n, b->n);
    for (int i = 0; i < a->n; i++) {
        int found = 0;
        for (int k = 0; k < b->n; k++)
            found += !strcmp(a->rows[i].kcase, b->rows[k].kcase) && !strcmp(a->rows[i].dtype, b->rows[k].dtype) &&
                     !strcmp(a->rows[i].profile, b->rows[k].profile);
        if (found != 1)
            fail_msg("%s %s %s is %d times in the resumed run", a->rows[i].kcase, a->rows[i].dtype,
                     a->rows[i].profile, found);
    }
}

static void test_interrupted_then_resumed(void **state)
{
    (void)state;
    USE_PLUGINS("vector_add");
    klab_result whole = RUN("whole", "--plugin", "vector_add");
    assert_int_equal(whole.rc, 0);
    free(whole.out);

    const char *args[] = {"--plugin-path", kg_plugin_dir, "--ini-dir", KLAB_GPU_INI_DIR, "--out", kg_out_dir,
                          "--run-id", "cut", "--plugin", "vector_add", NULL};
    klab_result r = interrupted(args, "[vector_add 2/");
    assert_int_equal(r.rc, 130);
    free(r.out);
    char csv_path[PATH_MAX + 64], partial[PATH_MAX + 80], progress[PATH_MAX + 80], meta[PATH_MAX + 64];
    path_in(csv_path, sizeof csv_path, "cut", "vector_add.csv");
    path_in(partial, sizeof partial, "cut", "vector_add.csv.partial");
    path_in(progress, sizeof progress, "cut", "vector_add.progress");
    path_in(meta, sizeof meta, "cut", "meta.ini");
    assert_int_equal(access(csv_path, F_OK), -1);
    progress_mark m;
    long long keep_log;
    char err[1200];
    if (progress_last(progress, partial, &m, &keep_log, err, sizeof err) != 1)
        fail_msg("the interrupted run's progress file names no whole unit (%s)", err);
    assert_true(m.unit >= 0 && m.rows > 0);
    char *before = slurp(partial), *meta_before = slurp(meta);
    before[m.bytes] = 0; /* the header and the whole units */

    r = KLAB("--resume", "out/cut");
    assert_int_equal(r.rc, 0);
    char line[200];
    snprintf(line, sizeof line, "klab: vector_add: %d of ", m.unit + 1);
    kr_expect_in(r.out, line);
    kr_expect_in(r.out, "units kept from ");
    free(r.out);
    char *after = slurp(csv_path), *meta_after = slurp(meta);
    if (strncmp(after, before, strlen(before)) != 0)
        fail_msg("the kept units' rows were not kept byte for byte");
    assert_string_equal(meta_after, meta_before);
    assert_int_equal(access(partial, F_OK), -1);
    assert_int_equal(access(progress, F_OK), -1);
    csv a = read_rows("whole", "vector_add"), b = read_rows("cut", "vector_add");
    same_keys(&a, &b);
    for (int i = 0; i < b.n; i++) {
        expect_status(&b.rows[i], ROW_PASSED, NULL);
        assert_string_equal(b.rows[i].run_id, "cut");
        if (b.rows[i].seed != b.rows[0].seed)
            fail_msg("row %d has seed %llu, row 0 %llu: the resumed units must use the run's seed", i,
                     (unsigned long long)b.rows[i].seed, (unsigned long long)b.rows[0].seed);
    }
    free(a.rows);
    free(b.rows);
    free(before);
    free(after);
    free(meta_before);
    free(meta_after);
}

static void test_complete_run_kept(void **state)
{
    (void)state;
    USE_PLUGINS("vector_add");
    klab_result r = RUN("done", "--plugin", "vector_add", "--case", "copy-l2");
    assert_int_equal(r.rc, 0);
    free(r.out);
    char path[PATH_MAX + 64];
    path_in(path, sizeof path, "done", "vector_add.csv");
    char *before = slurp(path);
    r = KLAB("--resume", "done", "--out", "out");
    assert_int_equal(r.rc, 0);
    kr_expect_in(r.out, "klab: vector_add: its CSV is complete: 1 rows kept\n");
    kr_expect_in(r.out, ": 1 plugin, 1 rows, 0 not passed");
    char *after = slurp(path);
    assert_string_equal(after, before);
    free(before);
    free(after);
    free(r.out);
}

int main(void)
{
    KLAB_SKIP_WITHOUT_GPU();
    const struct CMUnitTest tests[] = {
        KR_TEST(test_interrupted_then_resumed),
        KR_TEST(test_complete_run_kept),
    };
    KLAB_RUN_TESTS(tests);
}
