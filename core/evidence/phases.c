#include "evidence/phases.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/ini_walk.h"

double phases_clock_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int phases_add(run_phases *p, const char *plugin, const char *phase, double ms)
{
    if (!(ms >= 0) || !isfinite(ms) || strlen(plugin) >= sizeof p->e[0].plugin || strlen(phase) >= sizeof p->e[0].phase)
        return -1;
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->e[i].plugin, plugin) == 0 && strcmp(p->e[i].phase, phase) == 0) {
            p->e[i].ms += ms;
            return 0;
        }
    if (p->n == PHASES_MAX)
        return -1;
    phase_total *e = &p->e[p->n++];
    snprintf(e->plugin, sizeof e->plugin, "%s", plugin);
    snprintf(e->phase, sizeof e->phase, "%s", phase);
    e->ms = ms;
    return 0;
}

int phases_any(const run_phases *p)
{
    return p->n > 0 || p->wall_ms > 0;
}

void phases_write(FILE *fp, const run_phases *p)
{
    if (!phases_any(p))
        return;
    fprintf(fp, "\n[phases]\n; host clock (CLOCK_MONOTONIC) per plugin and phase, for planning runs; not kernel "
                "times\n");
    if (p->wall_ms > 0)
        fprintf(fp, "wall_ms = %.1f\n", p->wall_ms);
    for (int i = 0; i < p->n; i++)
        fprintf(fp, "%s.%s_ms = %.1f\n", p->e[i].plugin, p->e[i].phase, p->e[i].ms);
}

int phases_top(const run_phases *p, int *idx, int k)
{
    int n = 0;
    for (int i = 0; i < p->n; i++) {
        /* insertion into the k best so far: k is a handful */
        int at = n;
        while (at > 0 && p->e[idx[at - 1]].ms < p->e[i].ms)
            at--;
        if (at >= k)
            continue;
        for (int j = (n < k ? n : k - 1); j > at; j--)
            idx[j] = idx[j - 1];
        idx[at] = i;
        if (n < k)
            n++;
    }
    return n;
}

void phases_line(const run_phases *p, int k, char *buf, size_t len)
{
    int idx[16];
    if (k > 16)
        k = 16;
    int n = phases_top(p, idx, k);
    size_t o = 0;
#define PUT(...) (o += (size_t)snprintf(buf + o, o < len ? len - o : 0, __VA_ARGS__))
    buf[0] = 0;
    if (p->wall_ms > 0)
        PUT("time: %.1f s wall", p->wall_ms / 1e3);
    else
        PUT("time: wall not known");
    for (int i = 0; i < n; i++) {
        const phase_total *e = &p->e[idx[i]];
        PUT("%s %s %s %.1f s", i ? "," : "; most in", e->plugin, e->phase, e->ms / 1e3);
        if (p->wall_ms > 0)
            PUT(" (%.0f %%)", 100 * e->ms / p->wall_ms);
    }
#undef PUT
}

/* ---- reading ---- */

typedef struct phases_walk {
    const char *path, *plugin, *prefix;
    run_phases *p;
    int in;
} phases_walk;

static int walk_section(void *user, int line, const char *name, char *why, size_t whylen)
{
    (void)line, (void)why, (void)whylen;
    phases_walk *w = user;
    w->in = strcmp(name, "phases") == 0;
    return 0;
}

static int walk_key(void *user, int line, const char *key, const char *v, int continued, char *why, size_t whylen)
{
    (void)line;
    phases_walk *w = user;
    if (!w->in)
        return 0;
    char *end;
    errno = 0;
    double ms = strtod(v, &end);
    size_t kl = strlen(key);
    if (continued || !*v || *end || errno || !isfinite(ms) || ms < 0) {
        snprintf(why, whylen, "[phases] key '%s': '%s' is not a number of milliseconds", key, v);
        return -1;
    }
    if (kl < 4 || strcmp(key + kl - 3, "_ms") != 0) {
        snprintf(why, whylen, "[phases] key '%s' does not end in _ms", key);
        return -1;
    }
    char plugin[128], phase[128];
    if (w->plugin) {
        snprintf(plugin, sizeof plugin, "%s", w->plugin);
        snprintf(phase, sizeof phase, "%s%.*s", w->prefix ? w->prefix : "", (int)(kl - 3), key);
    } else if (strcmp(key, "wall_ms") == 0) {
        if (ms > w->p->wall_ms)
            w->p->wall_ms = ms;
        return 0;
    } else {
        const char *dot = strrchr(key, '.');
        if (!dot || dot == key || (size_t)(dot - key) >= sizeof plugin) {
            snprintf(why, whylen, "[phases] key '%s' is not PLUGIN.PHASE_ms", key);
            return -1;
        }
        snprintf(plugin, sizeof plugin, "%.*s", (int)(dot - key), key);
        snprintf(phase, sizeof phase, "%.*s", (int)(key + kl - 3 - dot - 1), dot + 1);
    }
    if (!phase[0] || phases_add(w->p, plugin, phase, ms) != 0) {
        snprintf(why, whylen, "[phases] key '%s': not kept (a name too long, or too many phases)", key);
        return -1;
    }
    return 0;
}

int phases_read(const char *path, const char *plugin, const char *prefix, run_phases *p, char *err, size_t errlen)
{
    phases_walk w = {path, plugin, prefix, p, 0};
    static const ini_walk_ops ops = {walk_section, walk_key};
    return ini_walk(path, &ops, &w, INI_WALK_CUT_LONG, err, errlen);
}
