#include "config/ini_walk.h"

#include <ctype.h>
#include <ini.h>
#include <stdio.h>
#include <string.h>

#include "config/ini_source.h"

typedef struct walk {
    const ini_walk_ops *ops;
    void *user;
    int flags;
    ini_source src;
    int line;
    int in_section, have_key; /* inih continues a key only after one in the same section */
    int continuation;         /* the line just read is an indented continuation */
    int failed;
    char why[768];
} walk;

static void failf(walk *w, const char *msg)
{
    if (w->failed)
        return;
    w->failed = 1;
    snprintf(w->why, sizeof w->why, "%s", msg);
}

static char *reader(char *str, int num, void *stream)
{
    walk *w = stream;
    if (w->failed)
        return NULL; /* the first error is the one reported */
    char line[4096];
    long n = ini_source_line(&w->src, line, sizeof line);
    if (n < 0)
        return NULL;
    w->line++;
    int cap = num - 1 < INI_WALK_LINE ? num - 1 : INI_WALK_LINE;
    if (n > cap) {
        if (!(w->flags & INI_WALK_CUT_LONG)) {
            char msg[96];
            snprintf(msg, sizeof msg, "line longer than %d characters (continue a value on indented lines)", cap);
            failf(w, msg);
            return NULL;
        }
        n = cap;
        line[n] = 0;
    }
    long bad = ini_source_bad_byte(line, n);
    if (bad >= 0) {
        char what[32], msg[128];
        const char *tail = ini_source_byte_name((unsigned char)line[bad], what, sizeof what);
        snprintf(msg, sizeof msg, "%s at column %ld%s", what, bad + 1, tail);
        failf(w, msg);
        return NULL;
    }
    memcpy(str, line, (size_t)n + 1);
    const char *t = line;
    while (*t == ' ' || *t == '\t')
        t++;
    w->continuation = t > line && *t && *t != ';' && *t != '#' && w->have_key;
    if (*t == '[') {
        const char *close = strchr(t, ']');
        if (!close) {
            failf(w, "section header without ']'");
            return NULL;
        }
        char name[INI_WALK_LINE + 1];
        snprintf(name, sizeof name, "%.*s", (int)(close - t - 1), t + 1);
        char *s = name, *e = name + strlen(name);
        while (isspace((unsigned char)*s))
            s++;
        while (e > s && isspace((unsigned char)e[-1]))
            *--e = 0;
        w->in_section = 1;
        w->have_key = 0;
        char why[512] = "";
        if (w->ops->section(w->user, w->line, s, why, sizeof why) != 0)
            failf(w, why);
    }
    return str;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    walk *w = user;
    (void)section; /* the reader saw the header, with its line */
    if (w->failed)
        return 1;
    if (!w->in_section) {
        char msg[300];
        snprintf(msg, sizeof msg, "key '%.200s' before any section", name);
        failf(w, msg);
        return 1;
    }
    w->have_key = 1;
    char why[512] = "";
    if (w->ops->key(w->user, w->line, name, value, w->continuation, why, sizeof why) != 0)
        failf(w, why);
    return 1; /* errors are ours to report, with the line: never a bare inih line number */
}

int ini_walk(const char *path, const ini_walk_ops *ops, void *user, int flags, char *err, size_t errlen)
{
    walk w;
    memset(&w, 0, sizeof w);
    w.ops = ops;
    w.user = user;
    w.flags = flags;
    if (ini_source_open(&w.src, path, err, errlen) != 0)
        return -1;
    int rc = ini_parse_stream(reader, &w, handler, &w);
    ini_source_close(&w.src);
    if (w.failed) {
        snprintf(err, errlen, "%s:%d: %s", path, w.line, w.why);
        return -1;
    }
    if (rc > 0) {
        snprintf(err, errlen, "%s:%d: syntax error: expected [section], key = value or a ; comment", path, rc);
        return -1;
    }
    if (rc < 0) {
        snprintf(err, errlen, "%s: cannot read (inih error %d)", path, rc);
        return -1;
    }
    return 0;
}
