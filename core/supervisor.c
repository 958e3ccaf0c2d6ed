#define _GNU_SOURCE /* sigabbrev_np */
#include "supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MSG_CAP 16384

typedef struct direct {
    const supervise_hooks *h;
} direct;

/* In-process transport: deliver each message straight to the handler. */
static int direct_send(void *user, wire_type type, const void *payload, uint32_t length)
{
    const direct *d = user;
    wire_header h = {WIRE_MAGIC, WIRE_VERSION, (uint16_t)type, length};
    d->h->on_message(d->h->user, &h, payload);
    return 0;
}

static int pipe_send(void *user, wire_type type, const void *payload, uint32_t length)
{
    return wire_send(*(int *)user, type, payload, length);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int supervise(const job *j, int isolate, double timeout_s, const supervise_hooks *h, worker_outcome *out)
{
    memset(out, 0, sizeof *out);
    out->timeout_s = timeout_s;
    if (!isolate) {
        direct d = {h};
        job_out o = {direct_send, &d};
        out->exit_code = job_execute(j, &o);
        return 0;
    }
    int fds[2];
    /* close-on-exec: a process a plugin starts must not hold the pipe open after its worker dies */
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        signal(SIGPIPE, SIG_IGN);
        int fd = fds[1];
        job_out o = {pipe_send, &fd};
        int code = job_execute(j, &o);
        fflush(stderr);
        _exit(code); /* never run the parent's atexit handlers or flush its stdio copies */
    }
    close(fds[1]);
    char *buf = malloc(MSG_CAP);
    double deadline = now_s() + timeout_s;
    int broken = 0;
    for (;;) {
        double left = deadline - now_s();
        if (timeout_s > 0 && left <= 0) {
            kill(pid, SIGKILL);
            out->timed_out = 1;
            break;
        }
        struct pollfd p = {fds[0], POLLIN, 0};
        int rc = poll(&p, 1, timeout_s > 0 ? (int)(left * 1000) + 1 : -1);
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc == 0)
            continue; /* the deadline check above fires */
        wire_header hd;
        rc = buf ? wire_recv(fds[0], &hd, buf, MSG_CAP) : -1;
        if (rc <= 0) {
            broken = rc < 0;
            break;
        }
        if (hd.type == WIRE_UNIT)
            deadline = now_s() + timeout_s;
        h->on_message(h->user, &hd, buf);
    }
    if (broken)
        kill(pid, SIGKILL); /* a garbled stream: the worker is not trusted to go on */
    close(fds[0]);
    free(buf);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (out->timed_out)
        return 0;
    if (WIFSIGNALED(status)) {
        out->signaled = 1;
        out->signal = WTERMSIG(status);
    } else if (WIFEXITED(status)) {
        out->exit_code = WEXITSTATUS(status);
    }
    return 0;
}

void worker_outcome_text(const worker_outcome *o, char *buf, size_t len)
{
    if (o->timed_out)
        snprintf(buf, len, "timed out after %g s", o->timeout_s);
    else if (o->signaled) {
        const char *abbrev = sigabbrev_np(o->signal);
        snprintf(buf, len, "killed by SIG%s", abbrev ? abbrev : "?");
    } else if (o->exit_code == WIRE_EXIT_CONTEXT_LOST)
        snprintf(buf, len, "CUDA context lost");
    else if (o->exit_code)
        snprintf(buf, len, "exited with status %d", o->exit_code);
    else
        buf[0] = 0;
}
