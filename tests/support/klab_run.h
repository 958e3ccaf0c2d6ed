/* Running the real klab binary from a test: a private temporary folder, plugin folders of symlinks,
 * INI files, and klab's exit status and output (echoed as TAP comments, so ctest --output-on-failure
 * shows them). Shared by the isolation and GPU tests. */
#ifndef KLAB_RUN_H
#define KLAB_RUN_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct klab_result {
    int rc;       /* exit status; 128 + signal if klab itself was killed */
    char *out;    /* stdout and stderr together */
    double secs;  /* wall time */
} klab_result;

/* This test's temporary folder (real path), made by kr_setup_tmp and removed by kr_teardown_tmp
   (cmocka setup/teardown signatures). */
extern char kr_tmp[PATH_MAX];
int kr_setup_tmp(void **state);
int kr_teardown_tmp(void **state);
/* A test in a temporary folder of its own (kr_tmp): a test that makes folders needs one (kr_mkdir). */
#define KR_TEST(f) cmocka_unit_test_setup_teardown(f, kr_setup_tmp, kr_teardown_tmp)

const char *kr_mkdir(const char *rel, char *buf, size_t len); /* kr_tmp/rel, made */
void kr_link_plugin(const char *dir, const char *target);     /* dir/basename(target) -> target */
void kr_write_file(const char *path, const char *text);

/* When not 0, each klab started below gets SIGALRM after this many seconds (exit status 142): a test
   of something that used to hang fails instead of waiting for ctest's timeout. */
extern unsigned kr_alarm_s;

/* Runs KLAB_EXE with args (NULL-terminated) in kr_tmp, no core files, without the caller's
   KLAB_PLUGIN_PATH / KLAB_INI_PATH. */
klab_result kr_run(const char *const *args);
#define KLAB(...) kr_run((const char *const[]){__VA_ARGS__, NULL})

/* Starts KLAB_EXE with args (NULL-terminated) as kr_run does, without waiting: echoes the command line
   as a TAP comment, `tail` appended; returns its pid, *fd the read end of its stdout and stderr. */
pid_t kr_spawn(const char *const *args, const char *tail, int *fd);

/* out, a line at a time, as TAP comments (ctest --output-on-failure shows them). */
void kr_echo(const char *out);

double kr_now(void); /* CLOCK_MONOTONIC, in seconds */

void kr_expect_in(const char *haystack, const char *needle);
void kr_expect_not_in(const char *haystack, const char *needle);

#endif
