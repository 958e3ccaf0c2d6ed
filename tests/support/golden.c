#include "golden.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/file_read.h"

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The input files of the current directory, sorted; *n of them (malloc'd, each malloc'd). */
static char **inputs(const char *suffix, int *n)
{
    DIR *d = opendir(".");
    char **names = NULL;
    int cap = 0;
    *n = 0;
    if (!d)
        return NULL;
    size_t sl = strlen(suffix);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t l = strlen(e->d_name);
        if (l <= sl || strcmp(e->d_name + l - sl, suffix) != 0)
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            names = realloc(names, (size_t)cap * sizeof *names);
            if (!names)
                abort();
        }
        names[(*n)++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)*n, sizeof *names, by_name);
    return names;
}

/* Where the rendering and the .expected file first differ, as "line L" for the TAP diagnostic. */
static long first_diff_line(const char *a, size_t an, const char *b, size_t bn)
{
    long line = 1;
    for (size_t i = 0; i < an && i < bn && a[i] == b[i]; i++)
        line += a[i] == '\n';
    return line;
}

static int write_file(const char *path, const char *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int rc = fwrite(bytes, 1, len, f) == len ? 0 : -1;
    return fclose(f) == 0 ? rc : -1;
}

int golden_main(int argc, char **argv, const char *suffix, golden_render render)
{
    int write = argc == 3 && strcmp(argv[2], "--write") == 0;
    if (argc < 2 || argc > 3 || (argc == 3 && !write)) {
        fprintf(stderr, "usage: %s DIR [--write]\n", argv[0]);
        return 2;
    }
    if (chdir(argv[1]) != 0) {
        perror(argv[1]);
        return 2;
    }
    int n;
    char **names = inputs(suffix, &n);
    if (n == 0) {
        fprintf(stderr, "%s: no *%s files\n", argv[1], suffix);
        return 2;
    }
    printf("1..%d\n", n);
    int failed = 0;
    for (int i = 0; i < n; i++) {
        char *got = NULL;
        size_t got_len = 0;
        FILE *out = open_memstream(&got, &got_len);
        if (!out)
            abort();
        int rc = render(names[i], out);
        fclose(out);
        char expected[1024];
        snprintf(expected, sizeof expected, "%s.expected", names[i]);
        if (rc != 0) {
            printf("not ok %d - %s: not rendered\n", i + 1, names[i]);
            failed++;
        } else if (write) {
            int w = write_file(expected, got, got_len);
            printf("%sok %d - %s written\n", w == 0 ? "" : "not ", i + 1, expected);
            failed += w != 0;
        } else {
            char why[512];
            size_t want_len = 0;
            char *want = file_read_whole(expected, (size_t)1 << 24, &want_len, why, sizeof why);
            if (!want) {
                printf("not ok %d - %s: %s (%s %s --write makes it)\n", i + 1, names[i], why, argv[0], argv[1]);
                failed++;
            } else if (want_len != got_len || memcmp(want, got, got_len) != 0) {
                printf("not ok %d - %s differs from %s at line %ld (%s %s --write, then review the diff)\n",
                       i + 1, names[i], expected, first_diff_line(want, want_len, got, got_len), argv[0], argv[1]);
                printf("# got:\n");
                for (const char *p = got; p < got + got_len;) {
                    const char *e = memchr(p, '\n', (size_t)(got + got_len - p));
                    int l = (int)(e ? e - p : got + got_len - p);
                    printf("#   %.*s\n", l, p);
                    p += l + 1;
                }
                failed++;
            } else {
                printf("ok %d - %s\n", i + 1, names[i]);
            }
            free(want);
        }
        free(got);
        free(names[i]);
    }
    free(names);
    return failed ? 1 : 0;
}
