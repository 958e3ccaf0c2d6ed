/* core/supervisor.c: workers that die with their parent, SIGINT/SIGTERM to klab, the silence watchdog
 * and the worker's outcome in words (issue "Timer 2 and integrity", "Workers that die with their
 * parent").
 *
 *   in this process  supervise_fn() with worker bodies that talk steadily (no timeout: the watchdog
 *                    times silence), go silent (killed), call exit(10) (not "context lost"), return
 *                    WIRE_EXIT_CONTEXT_LOST (LOST, then "CUDA context lost"), or send a ROW of 12
 *                    bytes (refused unread, the worker killed); and, in a forked process so that the
 *                    handlers stay out of the others, SIGTERM while a worker runs and a second SIGINT
 *   the klab binary  `klab --validate` of crash_hang (its work hook never returns, in a worker):
 *                    SIGKILL to klab leaves no worker after 1 s; SIGTERM and SIGINT end klab with
 *                    143 and 130, the worker gone, one line saying so. crash_exit10 is "exited with
 *                    status 10".
 *   on a GPU         a run of crash_stall (its second case stalls in setup) stopped by SIGTERM or
 *                    SIGINT keeps the first case's row in crash_stall.csv.partial, no crash_stall.csv;
 *                    SIGKILL leaves no worker. Skipped, with the reason, without a GPU.
 *
 * The test makes itself the subreaper of klab's orphans (PR_SET_CHILD_SUBREAPER), so a worker that
 * outlives klab becomes this process's child and can be waited for, and killed if it must be. */
#define _GNU_SOURCE /* prctl's PR_SET_CHILD_SUBREAPER */
#include <cuda_runtime.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "evidence/csv_read.h"
#include "klab_bg.h"
#include "klab_run.h"
#include "klab_test.h"
#include "process/supervisor.h"

/* ==== supervise_fn in this process ==== */

typedef struct seen {
    int n;
    int types[64];
    int last;
} seen;

static void on_message(void *user, const wire_header *h, const void *payload)
{
    (void)payload;
    seen *s = user;
    if (s->n < 64)
        s->types[s->n] = h->type;
    s->n++;
    s->last = h->type;
}

static int count(const seen *s, int type)
{
    int c = 0;
    for (int i = 0; i < s->n && i < 64; i++)
        c += s->types[i] == type;
    return c;
}

static void note(const job_out *o, const char *text)
{
    wire_text t;
    memset(&t, 0, sizeof t);
    snprintf(t.text, sizeof t.text, "%s", text);
    o->send(o->user, WIRE_NOTE, &t, sizeof t);
}

/* A note every 0.1 s for 1.2 s, then DONE: never 0.5 s silent. */
static int chatty(void *arg, const job_out *o)
{
    (void)arg;
    for (int i = 0; i < 12; i++) {
        note(o, "tick");
        kb_sleep(0.1);
    }
    int status = 0;
    o->send(o->user, WIRE_DONE, &status, sizeof status);
    return 0;
}

static int goes_silent(void *arg, const job_out *o)
{
    (void)arg;
    note(o, "then nothing");
    kb_sleep(30);
    return 0;
}

static int calls_exit10(void *arg, const job_out *o)
{
    (void)arg;
    note(o, "a plugin's exit(10) follows");
    exit(10);
}

static int loses_context(void *arg, const job_out *o)
{
    (void)arg;
    note(o, "the context is lost");
    return WIRE_EXIT_CONTEXT_LOST;
}

static int sends_short_row(void *arg, const job_out *o)
{
    (void)arg;
    char twelve[12] = "not a row";
    o->send(o->user, WIRE_ROW, twelve, sizeof twelve);
    kb_sleep(30); /* the parent's SIGKILL ends this at once */
    return 0;
}

static void test_watchdog_times_silence_not_the_job(void **state)
{
    (void)state;
    seen s = {0};
    supervise_hooks h = {on_message, &s};
    worker_outcome w;
    double t0 = kr_now();
    assert_int_equal(supervise_fn(chatty, NULL, 1, 0.5, &h, &w), 0);
    double took = kr_now() - t0;
    char how[200];
    worker_outcome_text(&w, how, sizeof how);
    printf("# chatty worker: %.2f s under a 0.5 s watchdog: \"%s\"\n", took, how);
    assert_false(w.timed_out);
    assert_string_equal(how, "");
    assert_true(took > 1.0); /* it ran more than twice the timeout */
    assert_int_equal(count(&s, WIRE_NOTE), 12);
    assert_int_equal(s.last, WIRE_DONE);

    memset(&s, 0, sizeof s);
    t0 = kr_now();
    assert_int_equal(supervise_fn(goes_silent, NULL, 1, 0.5, &h, &w), 0);
    took = kr_now() - t0;
    worker_outcome_text(&w, how, sizeof how);
    printf("# silent worker: ended after %.2f s: \"%s\"\n", took, how);
    assert_true(w.timed_out);
    assert_string_equal(how, "timed out after 0.5 s of silence");
    assert_true(took >= 0.5 && took < 5);
    assert_int_equal(count(&s, WIRE_NOTE), 1);
}

static void test_exit_10_is_not_context_lost(void **state)
{
    (void)state;
    seen s = {0};
    supervise_hooks h = {on_message, &s};
    worker_outcome w;
    char how[200];

    assert_int_equal(supervise_fn(calls_exit10, NULL, 1, 10, &h, &w), 0);
    worker_outcome_text(&w, how, sizeof how);
    assert_false(w.context_lost);
    assert_int_equal(w.exit_code, 10);
    assert_string_equal(how, "exited with status 10");
    assert_int_equal(count(&s, WIRE_LOST), 0);

    /* a job that returns WIRE_EXIT_CONTEXT_LOST says so with LOST, its last message */
    memset(&s, 0, sizeof s);
    assert_int_equal(supervise_fn(loses_context, NULL, 1, 10, &h, &w), 0);
    worker_outcome_text(&w, how, sizeof how);
    assert_true(w.context_lost);
    assert_string_equal(how, "CUDA context lost");
    assert_int_equal(s.last, WIRE_LOST);

    /* in this process (--no-isolate) the job's return is all there is, and a plugin's exit() would
       end klab itself: the return is trusted */
    memset(&s, 0, sizeof s);
    assert_int_equal(supervise_fn(loses_context, NULL, 0, 10, &h, &w), 0);
    assert_true(w.context_lost);
}

static void test_wrong_length_is_refused_and_the_worker_killed(void **state)
{
    (void)state;
    seen s = {0};
    supervise_hooks h = {on_message, &s};
    worker_outcome w;
    char how[300], want[300];
    double t0 = kr_now();
    assert_int_equal(supervise_fn(sends_short_row, NULL, 1, 30, &h, &w), 0);
    double took = kr_now() - t0;
    worker_outcome_text(&w, how, sizeof how);
    printf("# \"%s\" after %.2f s\n", how, took);
    assert_true(w.broken);
    snprintf(want, sizeof want, "sent a ROW of 12 bytes, expected %zu (killed)", sizeof(klab_row));
    assert_string_equal(how, want);
    assert_int_equal(s.n, 0); /* never handed on */
    assert_true(w.signaled && w.signal == SIGKILL);
    assert_true(took < 5); /* killed at once, not by the 30 s watchdog */
}

/* The handlers live in the process that installs them: these run in a child of their own, and
   report by exit status (0: as expected; otherwise the step that went wrong). */
static int raise_on_note(void *arg, const job_out *o)
{
    (void)arg;
    note(o, "running");
    kb_sleep(30); /* the parent's handler ends this at once */
    return 0;
}

static void raise_sigterm(void *user, const wire_header *h, const void *payload)
{
    (void)payload;
    if (h->type == WIRE_NOTE)
        raise(SIGTERM); /* as if `kill klab` came while the worker runs */
    ((seen *)user)->n++;
}

static int in_child(int (*fn)(void))
{
    fflush(stdout);
    pid_t p = fork();
    if (p == 0)
        _exit(fn());
    int status;
    while (waitpid(p, &status, 0) < 0 && errno == EINTR)
        ;
    return status;
}

static int sigterm_during_a_worker(void)
{
    if (supervise_trap_signals() != 0)
        return 1;
    seen s = {0};
    supervise_hooks h = {raise_sigterm, &s};
    worker_outcome w;
    double t0 = kr_now();
    if (supervise_fn(raise_on_note, NULL, 1, 30, &h, &w) != 0)
        return 2;
    if (kr_now() - t0 > 5)
        return 3; /* the 30 s watchdog, not the handler, ended it */
    char how[200];
    worker_outcome_text(&w, how, sizeof how);
    if (w.interrupted != SIGTERM || supervise_interrupted() != SIGTERM || strcmp(how, "was stopped: klab got SIGTERM"))
        return 4;
    if (!w.signaled || w.signal != SIGKILL)
        return 5;
    /* no further worker starts */
    if (supervise_fn(raise_on_note, NULL, 1, 30, &h, &w) != -1 || w.interrupted != SIGTERM || s.n != 1)
        return 6;
    return 0;
}

static int second_sigint_kills(void)
{
    if (supervise_trap_signals() != 0)
        return 1;
    raise(SIGINT);
    if (supervise_interrupted() != SIGINT)
        return 2; /* the first one was not caught */
    raise(SIGINT);
    return 3; /* still alive after the second */
}

static void test_signals_stop_the_worker_then_klab(void **state)
{
    (void)state;
    int st = in_child(sigterm_during_a_worker);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fail_msg("SIGTERM during a worker: step %d went wrong (status 0x%x)", WIFEXITED(st) ? WEXITSTATUS(st) : -1, st);
    st = in_child(second_sigint_kills);
    if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGINT)
        fail_msg("a second SIGINT did not end the process by SIGINT (status 0x%x, step %d)", st,
                 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/* A plugin folder with crash_hang.so and an INI for it: `klab --validate` of it hangs in a worker. */
static void hang_setup(char *dir, char *inis)
{
    char path[PATH_MAX + 64];
    kr_mkdir("plugins", dir, PATH_MAX);
    kr_mkdir("ini", inis, PATH_MAX);
    kr_link_plugin(dir, KLAB_TEST_PLUGINS "/crash_hang.so");
    snprintf(path, sizeof path, "%s/crash_hang.ini", inis);
    kr_write_file(path, "[experiment]\nplugin = crash_hang\n\n[case 1024]\n");
}

#define VALIDATE_HANG(b, dir, inis) \
    BG(b, "--validate", "--timeout", "60", "--plugin-path", dir, "--ini-dir", inis, "--plugin", "crash_hang")

static void test_worker_dies_with_killed_klab(void **state)
{
    (void)state;
    char dir[PATH_MAX], inis[PATH_MAX];
    hang_setup(dir, inis);
    static bg b;
    VALIDATE_HANG(&b, dir, inis);
    pid_t worker = child_of(b.pid, 10);
    if (!worker) {
        bg_wait(&b, 0);
        fail_msg("klab started no worker");
    }
    kb_sleep(0.2); /* into the hanging hook */
    assert_int_equal(kill(b.pid, SIGKILL), 0);
    double t0 = kr_now();
    int st;
    int gone = gone_within(worker, 1.0, &st);
    double took = kr_now() - t0;
    assert_int_equal(bg_wait(&b, 5), 128 + SIGKILL);
    if (!gone)
        fail_msg("worker %d still ran 1 s after klab was killed", (int)worker);
    printf("# worker %d gone %.3f s after klab was killed\n", (int)worker, took);
    /* reaped here, as klab's orphan: ended by the parent-death signal, not by anything else */
    assert_int_not_equal(st, -1);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGKILL);
}

static void stop_validate_with(int sig, int want_rc, const char *line)
{
    char dir[PATH_MAX], inis[PATH_MAX];
    hang_setup(dir, inis);
    static bg b;
    VALIDATE_HANG(&b, dir, inis);
    pid_t worker = child_of(b.pid, 10);
    if (!worker) {
        bg_wait(&b, 0);
        fail_msg("klab started no worker");
    }
    kb_sleep(0.2);
    assert_int_equal(kill(b.pid, sig), 0);
    double t0 = kr_now();
    int rc = bg_wait(&b, 5);
    int st;
    int gone = gone_within(worker, 1.0, &st);
    printf("# klab ended %.3f s after the signal\n", kr_now() - t0);
    assert_int_equal(rc, want_rc);
    if (!gone)
        fail_msg("worker %d outlived klab", (int)worker);
    kr_expect_in(b.out, line);
    kr_expect_not_in(b.out, "checked:"); /* no summary of work not done */
    kr_expect_not_in(b.out, "timed out");
    /* once: the worker's death is not reported a second time as a plugin failure */
    kr_expect_not_in(b.out, "FAILED");
}

static void test_sigterm_stops_klab_and_its_worker(void **state)
{
    (void)state;
    stop_validate_with(SIGTERM, 143, "klab: interrupted by SIGTERM: the worker was stopped; nothing was written\n");
}

static void test_sigint_stops_klab_and_its_worker(void **state)
{
    (void)state;
    stop_validate_with(SIGINT, 130, "klab: interrupted by SIGINT: the worker was stopped; nothing was written\n");
}

static void test_plugin_exit_10_reads_as_exit_10(void **state)
{
    (void)state;
    char dir[PATH_MAX], inis[PATH_MAX], path[PATH_MAX + 64], want[PATH_MAX + 200];
    kr_mkdir("plugins", dir, sizeof dir);
    kr_mkdir("ini", inis, sizeof inis);
    kr_link_plugin(dir, KLAB_TEST_PLUGINS "/crash_exit10.so");
    snprintf(path, sizeof path, "%s/crash_exit10.ini", inis);
    kr_write_file(path, "[experiment]\nplugin = crash_exit10\n\n[case 1024]\n");
    klab_result r = KLAB("--validate", "--plugin-path", dir, "--ini-dir", inis, "--plugin", "crash_exit10");
    snprintf(want, sizeof want, "FAILED  %s/crash_exit10.so: the worker exited with status 10 while checking it\n", dir);
    kr_expect_in(r.out, want);
    kr_expect_not_in(r.out, "context");
    assert_int_equal(r.rc, 1);
    free(r.out);
}

/* ==== on a GPU: a run stopped half way ==== */

static int no_gpu(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0)
        return 0;
    printf("# no CUDA device here: a run cannot start, so its partial CSV cannot be seen\n");
    return 1;
}

/* crash_stall's run: case quick passes through (one row), case stall never leaves setup. Returns the
   worker's pid once klab reports it is setting up "stall". */
static pid_t stall_run(bg *b, char *out)
{
    char dir[PATH_MAX], inis[PATH_MAX], path[PATH_MAX + 64];
    kr_mkdir("plugins", dir, sizeof dir);
    kr_mkdir("ini", inis, sizeof inis);
    snprintf(out, PATH_MAX, "%s/out", kr_tmp);
    kr_link_plugin(dir, KLAB_TEST_PLUGINS "/crash_stall.so");
    snprintf(path, sizeof path, "%s/crash_stall.ini", inis);
    kr_write_file(path, "[experiment]\nplugin = crash_stall\n\n[case quick]\nshape = 1024\n\n[case stall]\nshape = 1024\n");
    BG(b, "--plugin-path", dir, "--ini-dir", inis, "--out", out, "--run-id", "stopped", "--plugin", "crash_stall",
       "--timeout", "60");
    if (bg_read(b, "[crash_stall 2/2] stall fp32\n", 120) != 1) {
        bg_wait(b, 0);
        fail_msg("klab never reached case stall");
    }
    pid_t worker = child_of(b->pid, 5);
    if (!worker) {
        bg_wait(b, 0);
        fail_msg("no worker");
    }
    kb_sleep(0.2); /* into the stalled setup */
    return worker;
}

static void stop_run_with(int sig, int want_rc)
{
    if (no_gpu())
        skip();
    static bg b;
    char out[PATH_MAX], partial[PATH_MAX + 100], final[PATH_MAX + 100], want[2 * PATH_MAX + 300], err[1200];
    pid_t worker = stall_run(&b, out);
    assert_int_equal(kill(b.pid, sig), 0);
    int rc = bg_wait(&b, 10);
    int st;
    int gone = gone_within(worker, 1.0, &st);
    assert_int_equal(rc, want_rc);
    if (!gone)
        fail_msg("worker %d outlived klab", (int)worker);
    snprintf(partial, sizeof partial, "%s/stopped/crash_stall.csv.partial", out);
    snprintf(final, sizeof final, "%s/stopped/crash_stall.csv", out);
    snprintf(want, sizeof want,
             "klab: interrupted by %s: the worker was stopped; crash_stall's rows so far (1) are in %s, and there "
             "is no crash_stall.csv\n",
             sig == SIGINT ? "SIGINT" : "SIGTERM", partial);
    kr_expect_in(b.out, want);
    kr_expect_not_in(b.out, "FAILED");
    struct stat sb;
    assert_int_equal(stat(final, &sb), -1);
    klab_row *rows = NULL;
    int n = csv_read_rows(partial, &rows, err, sizeof err);
    if (n < 0)
        fail_msg("%s", err);
    assert_int_equal(n, 1);
    assert_string_equal(rows[0].kcase, "quick");
    assert_string_equal(rows[0].profile, "only");
    free(rows);
}

static void test_sigterm_keeps_the_rows_in_csv_partial(void **state)
{
    (void)state;
    stop_run_with(SIGTERM, 143);
}

static void test_sigint_keeps_the_rows_in_csv_partial(void **state)
{
    (void)state;
    stop_run_with(SIGINT, 130);
}

static void test_run_worker_dies_with_killed_klab(void **state)
{
    (void)state;
    if (no_gpu())
        skip();
    static bg b;
    char out[PATH_MAX];
    pid_t worker = stall_run(&b, out);
    assert_int_equal(kill(b.pid, SIGKILL), 0);
    int st;
    int gone = gone_within(worker, 1.0, &st);
    bg_wait(&b, 5);
    if (!gone)
        fail_msg("worker %d (holding the GPU) still ran 1 s after klab was killed", (int)worker);
    assert_true(st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
}

int main(void)
{
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
        perror("prctl(PR_SET_CHILD_SUBREAPER)");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_watchdog_times_silence_not_the_job),
        cmocka_unit_test(test_exit_10_is_not_context_lost),
        cmocka_unit_test(test_wrong_length_is_refused_and_the_worker_killed),
        cmocka_unit_test(test_signals_stop_the_worker_then_klab),
        KR_TEST(test_worker_dies_with_killed_klab),
        KR_TEST(test_sigterm_stops_klab_and_its_worker),
        KR_TEST(test_sigint_stops_klab_and_its_worker),
        KR_TEST(test_plugin_exit_10_reads_as_exit_10),
        KR_TEST(test_sigterm_keeps_the_rows_in_csv_partial),
        KR_TEST(test_sigint_keeps_the_rows_in_csv_partial),
        KR_TEST(test_run_worker_dies_with_killed_klab),
    };
    KLAB_RUN_TESTS(tests);
}
