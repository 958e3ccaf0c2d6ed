#define _GNU_SOURCE /* nftw's FTW_DEPTH and FTW_PHYS */
#include "klab_run.h"

#include <errno.h>
#include <ftw.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "klab_test.h"

char kr_tmp[PATH_MAX];
unsigned kr_alarm_s;

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

int kr_setup_tmp(void **state)
{
    (void)state;
    char templ[] = "/tmp/klab-test-XXXXXX";
    if (!mkdtemp(templ) || !realpath(templ, kr_tmp))
        return -1;
    return 0;
}

int kr_teardown_tmp(void **state)
{
    (void)state;
    if (kr_tmp[0])
        nftw(kr_tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    kr_tmp[0] = 0;
    return 0;
}

const char *kr_mkdir(const char *rel, char *buf, size_t len)
{
    if (!kr_tmp[0])
        fail_msg("kr_mkdir(%s): no temporary folder (register the test with KR_TEST)", rel);
    snprintf(buf, len, "%s/%s", kr_tmp, rel);
    assert_int_equal(mkdir(buf, 0755), 0);
    return buf;
}

void kr_link_plugin(const char *dir, const char *target)
{
    const char *base = strrchr(target, '/');
    char link[PATH_MAX + 64];
    snprintf(link, sizeof link, "%s/%s", dir, base ? base + 1 : target);
    if (symlink(target, link) != 0) {
        fail_msg("symlink %s -> %s: %s", link, target, strerror(errno));
    }
}

void kr_write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
}

double kr_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

pid_t kr_spawn(const char *const *args, const char *tail, int *fd)
{
    const char *argv[64];
    int n = 0;
    argv[n++] = KLAB_EXE;
    for (; *args && n < 63; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    printf("# $ klab");
    for (int i = 1; i < n; i++)
        printf(" %s", argv[i]);
    printf("%s\n", tail);
    fflush(stdout);

    int fds[2];
    assert_int_equal(pipe(fds), 0);
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
        if (chdir(kr_tmp) != 0)
            _exit(126);
        if (kr_alarm_s > 0)
            alarm(kr_alarm_s); /* kept across execv: a klab that hangs dies of SIGALRM (rc 142) */
        execv(KLAB_EXE, (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    *fd = fds[0];
    return pid;
}

void kr_echo(const char *out)
{
    for (const char *line = out; *line;) {
        const char *nl = strchr(line, '\n');
        int l = nl ? (int)(nl - line) : (int)strlen(line);
        printf("#   %.*s\n", l, line);
        line += l + (nl ? 1 : 0);
    }
}

klab_result kr_run(const char *const *args)
{
    klab_result r = {-1, NULL, 0};
    double t0 = kr_now();
    int fd;
    pid_t pid = kr_spawn(args, "", &fd);
    size_t cap = 1 << 16, len = 0;
    r.out = malloc(cap);
    assert_non_null(r.out);
    for (;;) {
        if (len + 4096 > cap) {
            cap *= 2;
            r.out = realloc(r.out, cap);
            assert_non_null(r.out);
        }
        ssize_t got = read(fd, r.out + len, cap - len - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        len += (size_t)got;
    }
    r.out[len] = 0;
    close(fd);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    r.secs = kr_now() - t0;
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    /* the output, as TAP comments: shown by ctest --output-on-failure */
    kr_echo(r.out);
    printf("# exit status %d after %.1f s\n", r.rc, r.secs);
    fflush(stdout);
    return r;
}

void kr_expect_in(const char *haystack, const char *needle)
{
    if (!strstr(haystack, needle))
        fail_msg("expected to find \"%s\" in klab's output", needle);
}

void kr_expect_not_in(const char *haystack, const char *needle)
{
    if (strstr(haystack, needle))
        fail_msg("did not expect \"%s\" in klab's output", needle);
}

