/* Folders of experiment and decision files read into one set (experiment.h): the shipped folder and
 * the ones a command line adds beside it. */
#include "report/experiment.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/dir_list.h"

/* One folder's files appended to s, each replacing the one of its name already there. */
static int read_dir(const char *dir, exp_set *s, char *notes, size_t noteslen, char *err, size_t errlen)
{
    char **names;
    char path[4096 + 300];
    int n = dir_list(dir, ".exp.ini", &names);
    if (n < 0) {
        snprintf(err, errlen, "%s: cannot read: %s", dir, strerror(errno));
        return -1;
    }
    exp_experiment *grown = realloc(s->exps, (size_t)(s->nexps + n + 1) * sizeof *s->exps);
    int rc = grown ? 0 : -1;
    if (grown)
        s->exps = grown;
    else
        snprintf(err, errlen, "out of memory");
    for (int i = 0; rc == 0 && i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        exp_experiment *e = &s->exps[s->nexps];
        rc = exp_load_experiment(path, e, err, errlen);
        if (rc)
            break;
        exp_experiment *old = (exp_experiment *)exp_find(s, e->name);
        if (old && old != e) {
            if (notes)
                snprintf(notes + strlen(notes), noteslen - strlen(notes), "experiment %s: %s replaces %s\n", e->name,
                         e->path, old->path);
            *old = *e;
        } else {
            s->nexps++;
        }
    }
    dir_list_free(names, n);
    if (rc)
        return -1;
    char ddir[4096 + 16];
    snprintf(ddir, sizeof ddir, "%s/decisions", dir);
    n = dir_list(ddir, ".ini", &names);
    if (n <= 0)
        return 0; /* experiments without decisions: pages, no matrix */
    exp_decision *dgrown = realloc(s->decs, (size_t)(s->ndecs + n) * sizeof *s->decs);
    if (!dgrown) {
        dir_list_free(names, n);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    s->decs = dgrown;
    for (int i = 0; rc == 0 && i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", ddir, names[i]);
        exp_decision *d = &s->decs[s->ndecs];
        rc = exp_load_decision(path, d, err, errlen);
        if (rc)
            break;
        int k = 0;
        while (k < s->ndecs && strcmp(s->decs[k].name, d->name) != 0)
            k++;
        if (k < s->ndecs) {
            if (notes)
                snprintf(notes + strlen(notes), noteslen - strlen(notes), "decision %s: %s replaces %s\n", d->name,
                         d->path, s->decs[k].path);
            s->decs[k] = *d;
        } else {
            s->ndecs++;
        }
    }
    dir_list_free(names, n);
    return rc;
}

static const char *file_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* by file name, as one folder's listing orders them */
static int by_exp_file(const void *a, const void *b)
{
    return strcmp(file_name(((const exp_experiment *)a)->path), file_name(((const exp_experiment *)b)->path));
}

static int by_dec_file(const void *a, const void *b)
{
    return strcmp(file_name(((const exp_decision *)a)->path), file_name(((const exp_decision *)b)->path));
}

int exp_load_dirs(const char *const *dirs, int ndirs, exp_set *s, char *notes, size_t noteslen, char *err,
                  size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (notes && noteslen)
        notes[0] = 0;
    char real[16][PATH_MAX];
    for (int i = 0; i < ndirs; i++) {
        int seen = 0;
        if (i < 16 && realpath(dirs[i], real[i]))
            for (int k = 0; k < i && !seen; k++)
                seen = strcmp(real[i], real[k]) == 0;
        else if (i < 16)
            real[i][0] = 0;
        if (!seen && read_dir(dirs[i], s, notes, noteslen, err, errlen) != 0) {
            exp_set_free(s); /* a malformed file: nothing loaded is kept (the caller frees no set it got -1 for) */
            return -1;
        }
    }
    /* the order one folder's listing gives, whichever folder a file came from */
    if (s->nexps)
        qsort(s->exps, (size_t)s->nexps, sizeof *s->exps, by_exp_file);
    if (s->ndecs)
        qsort(s->decs, (size_t)s->ndecs, sizeof *s->decs, by_dec_file);
    for (int i = 0; i < s->ndecs; i++) {
        const exp_decision *d = &s->decs[i];
        for (int k = 0; k < d->nexps; k++)
            if (!exp_find(s, d->exps[k])) {
                snprintf(err, errlen, "%s:%d: [decision] key 'experiments': no experiment '%s' (no %s.exp.ini in %s%s)",
                         d->path, d->exps_line, d->exps[k], d->exps[k], dirs[0], ndirs > 1 ? " or beside it" : "");
                exp_set_free(s);
                return -1;
            }
    }
    return 0;
}

int exp_load_dir(const char *dir, exp_set *s, char *err, size_t errlen)
{
    return exp_load_dirs(&dir, 1, s, NULL, 0, err, errlen);
}

const exp_experiment *exp_find(const exp_set *s, const char *name)
{
    for (int i = 0; i < s->nexps; i++)
        if (strcmp(s->exps[i].name, name) == 0)
            return &s->exps[i];
    return NULL;
}

void exp_set_free(exp_set *s)
{
    free(s->exps);
    free(s->decs);
    memset(s, 0, sizeof *s);
}
