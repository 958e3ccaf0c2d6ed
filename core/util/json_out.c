#include "util/json_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int json_open(json_out *j)
{
    memset(j, 0, sizeof *j);
    j->fp = open_memstream(&j->buf, &j->len);
    return j->fp ? 0 : -1;
}

int json_open_document(json_out *j, const char *schema)
{
    if (json_open(j) != 0)
        return -1;
    j->finite_only = 1;
    json_object(j, NULL);
    json_str(j, "schema", schema);
    return 0;
}

char *json_close(json_out *j)
{
    int bad = ferror(j->fp) || j->depth != 0 || j->overflow;
    if (fclose(j->fp) != 0)
        bad = 1;
    if (bad) {
        free(j->buf);
        return NULL;
    }
    return j->buf;
}

static void quoted(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(fp, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(fp, "\\u%04x", *p);
        else
            fputc(*p, fp);
    }
    fputc('"', fp);
}

/* The comma and the key before a value at the current level. */
static void lead(json_out *j, const char *key)
{
    if (j->items[j->depth]++)
        fputc(',', j->fp);
    if (key) {
        quoted(j->fp, key);
        fputc(':', j->fp);
    }
}

static void open_level(json_out *j, const char *key, char open, char close)
{
    lead(j, key);
    fputc(open, j->fp);
    if (j->depth + 1 == JSON_MAX_DEPTH) {
        j->overflow = 1;
        return;
    }
    j->depth++;
    j->items[j->depth] = 0;
    j->close[j->depth] = close;
}

void json_object(json_out *j, const char *key)
{
    open_level(j, key, '{', '}');
}

void json_array(json_out *j, const char *key)
{
    open_level(j, key, '[', ']');
}

void json_end(json_out *j)
{
    if (j->depth == 0) {
        j->overflow = 1; /* more ends than opens */
        return;
    }
    fputc(j->close[j->depth--], j->fp);
}

void json_str(json_out *j, const char *key, const char *v)
{
    lead(j, key);
    quoted(j->fp, v ? v : "");
}

void json_num(json_out *j, const char *key, double v)
{
    lead(j, key);
    if (j->finite_only && !isfinite(v))
        fputs("null", j->fp);
    else if (isnan(v))
        fputs("NaN", j->fp);
    else if (isinf(v))
        fputs(v > 0 ? "Infinity" : "-Infinity", j->fp);
    else
        fprintf(j->fp, "%.17g", v);
}

void json_int(json_out *j, const char *key, long long v)
{
    lead(j, key);
    fprintf(j->fp, "%lld", v);
}

void json_bool(json_out *j, const char *key, int v)
{
    lead(j, key);
    fputs(v ? "true" : "false", j->fp);
}

int json_print(json_out *j, FILE *fp)
{
    char *text = json_close(j);
    if (!text)
        return -1;
    fprintf(fp, "%s\n", text);
    free(text);
    return 0;
}

void json_names(json_out *j, const char *key, const char *joined)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", joined ? joined : "");
    json_array(j, key);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
        json_str(j, NULL, t);
    json_end(j);
}
