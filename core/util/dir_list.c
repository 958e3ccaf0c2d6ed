#include "util/dir_list.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int wanted(const char *dir, const char *name, const char *suffix)
{
    if (name[0] == '.')
        return 0;
    if (suffix) {
        size_t len = strlen(name), s = strlen(suffix);
        return len > s && strcmp(name + len - s, suffix) == 0;
    }
    char p[8192];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int dir_list(const char *dir, const char *suffix, char ***names)
{
    *names = NULL;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!wanted(dir, e->d_name, suffix))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            char **p = realloc(*names, (size_t)cap * sizeof *p);
            if (!p)
                break;
            *names = p;
        }
        if (((*names)[n] = strdup(e->d_name)))
            n++;
    }
    closedir(d);
    if (n)
        qsort(*names, (size_t)n, sizeof **names, cmp_name);
    return n;
}

void dir_list_free(char **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}
