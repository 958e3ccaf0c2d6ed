/* See klab_bg.h. */
#define _GNU_SOURCE
#include "klab_bg.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "klab_run.h"
#include "klab_test.h"

void kb_sleep(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

void bg_start(bg *b, const char *const *args)
{
    b->len = 0;
    b->out[0] = 0;
    b->pid = kr_spawn(args, " &", &b->fd);
    fcntl(b->fd, F_SETFL, O_NONBLOCK);
}

int bg_read(bg *b, const char *text, double secs)
{
    double end = kr_now() + secs;
    for (;;) {
        if (text && strstr(b->out, text))
            return 1;
        double left = end - kr_now();
        if (left <= 0)
            return 0;
        struct pollfd p = {b->fd, POLLIN, 0};
        if (poll(&p, 1, (int)(left * 1000) + 1) <= 0)
            continue;
        ssize_t got = read(b->fd, b->out + b->len, sizeof b->out - 1 - b->len);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (got <= 0)
            return text && strstr(b->out, text) ? 1 : -1;
        b->len += (size_t)got;
        b->out[b->len] = 0;
    }
}

int bg_wait(bg *b, double secs)
{
    double end = kr_now() + secs;
    int status = 0, rc = -1;
    for (;;) {
        pid_t r = waitpid(b->pid, &status, WNOHANG);
        if (r == b->pid) {
            rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            break;
        }
        if (kr_now() > end) {
            kill(b->pid, SIGKILL);
            waitpid(b->pid, &status, 0);
            break;
        }
        kb_sleep(0.005);
    }
    bg_read(b, NULL, 0.5); /* an orphaned worker would hold the pipe open: never wait long */
    close(b->fd);
    kr_echo(b->out);
    printf("# exit status %d\n", rc);
    fflush(stdout);
    return rc;
}

pid_t child_of(pid_t parent, double secs)
{
    double end = kr_now() + secs;
    do {
        DIR *d = opendir("/proc");
        assert_non_null(d);
        for (struct dirent *e; (e = readdir(d));) {
            char path[300], buf[512];
            if (e->d_name[0] < '1' || e->d_name[0] > '9')
                continue;
            snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
            int fd = open(path, O_RDONLY);
            if (fd < 0)
                continue;
            ssize_t n = read(fd, buf, sizeof buf - 1);
            close(fd);
            if (n <= 0)
                continue;
            buf[n] = 0;
            const char *rp = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
            char st;
            int ppid;
            if (rp && sscanf(rp + 1, " %c %d", &st, &ppid) == 2 && ppid == parent) {
                pid_t pid = atoi(e->d_name);
                closedir(d);
                return pid;
            }
        }
        closedir(d);
        kb_sleep(0.01);
    } while (kr_now() < end);
    return 0;
}

int gone_within(pid_t pid, double secs, int *status)
{
    double end = kr_now() + secs;
    *status = -1;
    for (;;) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) {
            *status = st;
            return 1;
        }
        if (r < 0 && errno == ECHILD && kill(pid, 0) < 0 && errno == ESRCH)
            return 1;
        if (kr_now() > end)
            break;
        kb_sleep(0.005);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return 0;
}
