#define _GNU_SOURCE /* sigabbrev_np, pipe2 */
#include "process/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MSG_CAP 16384

/* What the signal handler shares with the parent's loop. pid_t is an int on Linux, as is sig_atomic_t. */
_Static_assert(sizeof(pid_t) <= sizeof(sig_atomic_t), "a worker's pid must fit a sig_atomic_t");
static volatile sig_atomic_t stop_signal; /* the first SIGINT/SIGTERM, 0 before */
static volatile sig_atomic_t worker_pid;  /* the running, unreaped worker; 0 when none */
static struct sigaction default_action;

static void on_stop_signal(int sig)
{
    int saved = errno;
    if (stop_signal) {
        /* the second: end klab now, as if it had no handler (the worker dies with it: PDEATHSIG) */
        sigaction(sig, &default_action, NULL);
        raise(sig); /* blocked while this handler runs; delivered as it returns */
    } else {
        stop_signal = sig;
        pid_t w = worker_pid;
        if (w > 0)
            kill(w, SIGKILL);
    }
    errno = saved;
}

int supervise_trap_signals(void)
{
    default_action.sa_handler = SIG_DFL;
    sigemptyset(&default_action.sa_mask);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sa.sa_flags = SA_RESTART; /* the parent's own writes (stdout, CSV) must not fail with EINTR */
    const int sigs[2] = {SIGINT, SIGTERM};
    for (int i = 0; i < 2; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) != 0)
            return -1;
        if (old.sa_handler == SIG_IGN)
            continue; /* started with it ignored (nohup, a background job of a script): keep it so */
        if (sigaction(sigs[i], &sa, NULL) != 0)
            return -1;
    }
    return 0;
}

int supervise_interrupted(void)
{
    return stop_signal;
}

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

/* The worker's transport. A worker nobody reads must not run on, orphaned, on the GPU: a failed
   write (EPIPE: the parent is gone; SIGPIPE is ignored so that the write fails instead of killing
   without a word) ends the worker here, saying why where someone may still look. */
static int pipe_send(void *user, wire_type type, const void *payload, uint32_t length)
{
    if (wire_send(*(const int *)user, type, payload, length) == 0)
        return 0;
    char msg[200];
    int n = snprintf(msg, sizeof msg, "klab worker %d: cannot report to klab (%s): stopping\n", (int)getpid(),
                     strerror(errno));
    if (n > 0 && write(STDERR_FILENO, msg, (size_t)n) < 0) {
        /* nowhere left to say it */
    }
    _exit(WIRE_EXIT_SEND_FAILED);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The child after fork: never returns. */
static void worker_main(worker_fn fn, void *arg, int fd, pid_t parent, const sigset_t *mask)
{
    /* Die with the parent, whatever the worker is doing (a hung kernel sends nothing that could
       fail). The parent may have died before this line: then getppid() is no longer its pid. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(WIRE_EXIT_SEND_FAILED);
    /* the parent's handlers would kill the parent's idea of a worker: a worker ends as any process */
    const int sigs[2] = {SIGINT, SIGTERM};
    for (int i = 0; i < 2; i++) {
        struct sigaction cur;
        if (sigaction(sigs[i], NULL, &cur) == 0 && cur.sa_handler == on_stop_signal)
            sigaction(sigs[i], &default_action, NULL);
    }
    sigprocmask(SIG_SETMASK, mask, NULL);
    signal(SIGPIPE, SIG_IGN);
    job_out o = {pipe_send, &fd};
    int code = fn(arg, &o);
    if (code == WIRE_EXIT_CONTEXT_LOST)
        pipe_send(&fd, WIRE_LOST, NULL, 0); /* the status alone could be a plugin's exit(10) */
    fflush(stdout);
    fflush(stderr);
    _exit(code); /* never run the parent's atexit handlers or flush its stdio copies */
}

/* Waits until the worker has exited, without reaping it (its pid stays its own for the signal
   handler). The watchdog still holds: a worker that closed its pipe and runs on is silent too. */
static void await_exit(pid_t pid, double deadline, worker_outcome *out)
{
    for (;;) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        int rc = waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT | WNOHANG);
        if (rc == 0 && si.si_pid == pid)
            return;
        if (rc < 0 && errno != EINTR)
            return;
        if (!out->timed_out && out->timeout_s > 0 && now_s() >= deadline) {
            kill(pid, SIGKILL);
            out->timed_out = 1;
        }
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
}

int supervise_fn(worker_fn fn, void *arg, int isolate, double timeout_s, const supervise_hooks *h,
                 worker_outcome *out)
{
    memset(out, 0, sizeof *out);
    out->timeout_s = timeout_s;
    if (stop_signal) {
        out->interrupted = stop_signal;
        return -1;
    }
    if (!isolate) {
        direct d = {h};
        job_out o = {direct_send, &d};
        out->exit_code = fn(arg, &o);
        out->context_lost = out->exit_code == WIRE_EXIT_CONTEXT_LOST; /* a return, not a plugin's exit() */
        return 0;
    }
    char *buf = malloc(MSG_CAP);
    int fds[2];
    /* close-on-exec: a process a plugin starts must not hold the pipe open after its worker dies */
    if (!buf || pipe2(fds, O_CLOEXEC) != 0) {
        free(buf);
        return -1;
    }
    /* SIGINT/SIGTERM wait from the last check to the worker's pid being known: the handler must find
       the worker to kill, and the child must never run the parent's handler */
    sigset_t stop, old;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigprocmask(SIG_BLOCK, &stop, &old);
    if (stop_signal) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        close(fds[0]);
        close(fds[1]);
        free(buf);
        out->interrupted = stop_signal;
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        worker_main(fn, arg, fds[1], parent, &old);
    }
    if (pid > 0)
        worker_pid = pid;
    sigprocmask(SIG_SETMASK, &old, NULL);
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        free(buf);
        return -1;
    }
    double deadline = now_s() + timeout_s;
    int lost = 0;
    for (;;) {
        if (stop_signal)
            break; /* the handler has killed the worker */
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
        rc = wire_recv(fds[0], &hd, buf, MSG_CAP, out->broken_why, sizeof out->broken_why);
        if (rc == 0)
            break;
        if (rc < 0) {
            kill(pid, SIGKILL); /* a garbled stream: the worker is not trusted to go on */
            out->broken = 1;
            break;
        }
        deadline = now_s() + timeout_s; /* the watchdog times silence, not the unit */
        lost |= hd.type == WIRE_LOST;
        h->on_message(h->user, &hd, buf);
    }
    close(fds[0]);
    free(buf);
    await_exit(pid, deadline, out);
    /* forget the pid before it is reaped and can be reused: the handler must never kill a stranger */
    sigprocmask(SIG_BLOCK, &stop, &old);
    worker_pid = 0;
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    sigprocmask(SIG_SETMASK, &old, NULL);
    out->interrupted = stop_signal;
    if (WIFSIGNALED(status)) {
        out->signaled = 1;
        out->signal = WTERMSIG(status);
    } else if (WIFEXITED(status)) {
        out->exit_code = WEXITSTATUS(status);
        out->context_lost = lost && out->exit_code == WIRE_EXIT_CONTEXT_LOST;
    }
    return 0;
}

static void signal_name(int sig, char *buf, size_t len)
{
    const char *abbrev = sigabbrev_np(sig);
    if (abbrev)
        snprintf(buf, len, "SIG%s", abbrev);
    else
        snprintf(buf, len, "signal %d", sig);
}

void worker_outcome_text(const worker_outcome *o, char *buf, size_t len)
{
    char sig[32];
    if (o->interrupted) {
        signal_name(o->interrupted, sig, sizeof sig);
        snprintf(buf, len, "was stopped: klab got %s", sig);
    } else if (o->timed_out)
        snprintf(buf, len, "timed out after %g s of silence", o->timeout_s);
    else if (o->broken)
        snprintf(buf, len, "%s (killed)", o->broken_why);
    else if (o->context_lost)
        snprintf(buf, len, "CUDA context lost");
    else if (o->signaled) {
        signal_name(o->signal, sig, sizeof sig);
        snprintf(buf, len, "killed by %s", sig);
    } else if (o->exit_code)
        snprintf(buf, len, "exited with status %d", o->exit_code);
    else
        buf[0] = 0;
}
