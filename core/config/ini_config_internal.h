/* What the parts of ini_config share while a file is read: the parse state, the error it records,
 * and the bits of the case keys. Not for use outside ini_config*.c; the interface is ini_config.h.
 */
#ifndef KLAB_INI_CONFIG_INTERNAL_H
#define KLAB_INI_CONFIG_INTERNAL_H

#include <stddef.h>

#include "config/ini_config.h"
#include "config/ini_source.h"

enum {
    CFG_SET_SHAPE = 1u << 0,
    CFG_SET_DTYPES = 1u << 1,
    CFG_SET_PROFILES = 1u << 2,
    CFG_SET_WARMUP = 1u << 3,
    CFG_SET_MIN_REPS = 1u << 4,
    CFG_SET_MAX_REPS = 1u << 5,
    CFG_SET_PRECISION = 1u << 6,
    CFG_SET_BUDGET = 1u << 7,
    CFG_SET_STEPS = 1u << 8,
    CFG_SET_CONFIG = 1u << 9,
};

/* Longest line accepted; inih's own buffer (INI_MAX_LINE, 200 in Debian's build) must hold it and
   its line ending, and a longer line must be an error on that line rather than a silently cut value. */
#define CFG_MAX_LINE 196

enum section_kind { SEC_NONE, SEC_EXPERIMENT, SEC_DEFAULTS, SEC_CASE, SEC_UNKNOWN };

typedef struct parse_state {
    cfg_experiment *e;
    ini_source src;
    int line;
    enum section_kind kind;
    cfg_case *cur; /* the section keys go to: defaults or a case */
    char section[CFG_MAX_LINE + 1];
    unsigned seen_experiment_keys;
    char err[1024];
    int failed;
} parse_state;

/* Records "path:line: msg" unless an error is recorded already: the first is the one to fix first. */
void cfg_fail(parse_state *ps, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ini_values.c: the values of keys. Each reports through cfg_fail and returns <0 (or 1 for
   cfg_too_long) when the value is refused. */
char *cfg_trim(char *s);
int cfg_valid_name(const char *s);
int cfg_lower_or_digit(char ch);
int cfg_too_long(parse_state *ps, const char *key, const char *what, const char *v, size_t cap);
int cfg_parse_int(parse_state *ps, const char *key, const char *v, int lo, int hi, int *out);
int cfg_parse_double(parse_state *ps, const char *key, const char *v, double lo, double hi, double *out);
int cfg_split_list(parse_state *ps, const char *key, char *v, char **items, int max);

/* ini_case.c: the keys of [defaults] and [case NAME], and what a case takes from [defaults]. */
void cfg_case_key(parse_state *ps, cfg_case *c, const char *key, const char *value);
int cfg_inherit(cfg_case *c, const cfg_case *d);
int cfg_key_where(const cfg_case *c, unsigned bit, char *sec, size_t len);

#endif
