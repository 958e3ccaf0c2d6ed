/* klab's one JSON writer: libklab_bench's answers to Python (an INI's cases, a plugin's descriptor, a
 * row's statistics) and the --json documents of klab's commands (docs/outputs.md). One document in a
 * malloc'd string. A document, not ctypes structs, so the Python side mirrors no C layout and a new
 * field breaks no caller. Strings are escaped as JSON wants; numbers are written exactly (%.17g), a
 * non-finite one as NaN or Infinity, which Python's json reads, or as null with finite_only (strict
 * JSON, for any reader). */
#ifndef KLAB_JSON_OUT_H
#define KLAB_JSON_OUT_H

#include <stdio.h>

#define JSON_MAX_DEPTH 8

typedef struct json_out {
    FILE *fp; /* open_memstream over buf */
    char *buf;
    size_t len;
    int depth;
    int items[JSON_MAX_DEPTH]; /* values written at each open level: a comma before all but the first */
    char close[JSON_MAX_DEPTH]; /* the bracket that ends each open level */
    int overflow;               /* opened deeper than JSON_MAX_DEPTH: json_close refuses the text */
    int finite_only;            /* set after json_open: NaN and infinities written as null */
} json_out;

/* 0, or -1 when out of memory. */
int json_open(json_out *j);
/* A klab command's --json document: json_open, non-finite numbers as null, the outer object begun
   with its "schema" (e.g. "klab.list/1"). 0, or -1 out of memory. */
int json_open_document(json_out *j, const char *schema);
/* The text (free it), or NULL when writing failed; j is closed either way. */
char *json_close(json_out *j);

/* Each value goes into the innermost open object under `key`, or into the array (key NULL). */
void json_object(json_out *j, const char *key);
void json_array(json_out *j, const char *key);
void json_end(json_out *j); /* closes the innermost object or array */
void json_str(json_out *j, const char *key, const char *v);
void json_num(json_out *j, const char *key, double v);
void json_int(json_out *j, const char *key, long long v);
void json_bool(json_out *j, const char *key, int v);
/* "a,b,c" (a comma-joined list, as the wire carries a plugin's) as an array of strings under key */
void json_names(json_out *j, const char *key, const char *joined);

/* Closes j and writes its text and a line break to fp: 0, or -1 when writing failed. */
int json_print(json_out *j, FILE *fp);

#endif
