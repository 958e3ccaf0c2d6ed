#include "host/discovery.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int exe_path(char *buf, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    buf[n > 0 ? n : 0] = 0;
    return n > 0 ? 0 : -1;
}

int exe_dir(char *buf, size_t len)
{
    if (exe_path(buf, len) != 0)
        return -1;
    char *slash = strrchr(buf, '/');
    if (slash)
        *slash = 0;
    return 0;
}

static void add_dir(char (*list)[4096], int *n, const char *dir)
{
    if (!dir || !*dir || *n == DISC_MAX_DIRS)
        return;
    char real[4096];
    const char *use = realpath(dir, real) ? real : dir;
    for (int i = 0; i < *n; i++)
        if (strcmp(list[i], use) == 0)
            return;
    snprintf(list[(*n)++], 4096, "%s", use);
}

static void add_path_list(char (*list)[4096], int *n, const char *colon_list)
{
    if (!colon_list)
        return;
    char buf[8192];
    snprintf(buf, sizeof buf, "%s", colon_list);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ":", &save); tok; tok = strtok_r(NULL, ":", &save))
        add_dir(list, n, tok);
}

void discovery_init(discovery *d, const char *const *plugin_paths, int npaths, const char *ini_dir)
{
    memset(d, 0, sizeof *d);
    char exe[4096], tmp[4200];
    int have_exe = exe_dir(exe, sizeof exe) == 0;
    for (int i = 0; i < npaths; i++)
        add_dir(d->dirs, &d->ndirs, plugin_paths[i]);
    add_path_list(d->dirs, &d->ndirs, getenv("KLAB_PLUGIN_PATH"));
    if (have_exe) {
        snprintf(tmp, sizeof tmp, "%s/plugins", exe);
        add_dir(d->dirs, &d->ndirs, tmp);
        snprintf(tmp, sizeof tmp, "%s/../lib/klab/plugins", exe);
        add_dir(d->dirs, &d->ndirs, tmp);
    }
    add_dir(d->ini_dirs, &d->nini, ini_dir);
    add_path_list(d->ini_dirs, &d->nini, getenv("KLAB_INI_PATH"));
    d->nini_user = d->nini;
    if (have_exe) {
        snprintf(tmp, sizeof tmp, "%s/ini", exe);
        add_dir(d->ini_dirs, &d->nini, tmp);
        snprintf(tmp, sizeof tmp, "%s/../share/klab/ini", exe);
        add_dir(d->ini_dirs, &d->nini, tmp);
    }
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void discovery_scan(discovery *d)
{
    d->nplugins = 0;
    for (int i = 0; i < d->ndirs; i++) {
        DIR *dir = opendir(d->dirs[i]);
        if (!dir)
            continue;
        char *names[DISC_MAX_PLUGINS];
        int n = 0;
        struct dirent *ent;
        while ((ent = readdir(dir)) && n < DISC_MAX_PLUGINS) {
            size_t len = strlen(ent->d_name);
            if (len > 3 && strcmp(ent->d_name + len - 3, ".so") == 0 && ent->d_name[0] != '.')
                names[n++] = strdup(ent->d_name);
        }
        closedir(dir);
        qsort(names, (size_t)n, sizeof names[0], cmp_names);
        for (int k = 0; k < n; k++) {
            char stem[64];
            snprintf(stem, sizeof stem, "%.*s", (int)(strlen(names[k]) - 3), names[k]);
            char path[4096 + 256];
            snprintf(path, sizeof path, "%s/%s", d->dirs[i], names[k]);
            free(names[k]);
            found_plugin *prev = NULL;
            for (int j = 0; j < d->nplugins; j++)
                if (strcmp(d->plugins[j].name, stem) == 0)
                    prev = &d->plugins[j];
            if (prev) {
                if (!prev->shadows[0])
                    snprintf(prev->shadows, sizeof prev->shadows, "%s", path);
                continue;
            }
            if (d->nplugins == DISC_MAX_PLUGINS)
                continue;
            found_plugin *f = &d->plugins[d->nplugins++];
            memset(f, 0, sizeof *f);
            snprintf(f->name, sizeof f->name, "%s", stem);
            snprintf(f->path, sizeof f->path, "%s", path);
            snprintf(f->dir, sizeof f->dir, "%s", d->dirs[i]);
        }
    }
}

const found_plugin *discovery_find(const discovery *d, const char *name)
{
    for (int i = 0; i < d->nplugins; i++)
        if (strcmp(d->plugins[i].name, name) == 0)
            return &d->plugins[i];
    return NULL;
}

static int try_ini(const char *dir, const char *plugin, char *path, size_t len)
{
    struct stat st;
    snprintf(path, len, "%s/%s.ini", dir, plugin);
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) ? 0 : -1;
}

int discovery_ini(const discovery *d, const char *plugin, char *path, size_t len)
{
    for (int i = 0; i < d->nini_user; i++)
        if (try_ini(d->ini_dirs[i], plugin, path, len) == 0)
            return 0;
    const found_plugin *f = discovery_find(d, plugin);
    if (f && try_ini(f->dir, plugin, path, len) == 0)
        return 0;
    for (int i = d->nini_user; i < d->nini; i++)
        if (try_ini(d->ini_dirs[i], plugin, path, len) == 0)
            return 0;
    return -1;
}
