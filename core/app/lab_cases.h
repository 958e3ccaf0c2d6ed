/* The cases a command line selects in the INIs it reads: the ad-hoc case of --shape and --dim added to
 * each, and every --case name found in one of them. A --case that matches nothing used to select
 * nothing without a word, so that a typo ran no case and --validate still said ok. */
#ifndef KLAB_LAB_CASES_H
#define KLAB_LAB_CASES_H

#include <stddef.h>
#include <stdint.h>

#include "app/cli.h"

typedef struct lab_cases {
    uint64_t found;  /* bit i: --case i named a case of an INI read */
    char known[1536]; /* the cases of the INIs read, for the refusal: "ini/a.ini: x, y; ini/b.ini: z" */
} lab_cases;

/* Adds the ad-hoc case to cfg and notes which --case names it has. 0, or -1 with why in err (a
   plugin whose INI sizes its cases by dim.NAME alone, given --shape; a case of that name already). */
int lab_cases_add(const cli_opts *o, cfg_experiment *cfg, lab_cases *k, char *err, size_t errlen);

/* After every INI: 0, or -1 naming the --case that matched no case, with the cases there are. */
int lab_cases_check(const cli_opts *o, const lab_cases *k, char *err, size_t errlen);

#endif
