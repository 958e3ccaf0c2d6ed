/* A case as JSON, every key as klab resolved it: libklab_bench's kb_ini_json and klab --validate --json
 * write the same object, so a tool reading either reads one schema. */
#include "config/case_json.h"

#include <stdio.h>

#include "host/dtype.h"

/* The case's keys as klab resolved them, [defaults] folded in; a key's line is where the file gives
   it (its case or [defaults]), 0 where neither does. */
void case_json(json_out *j, const cfg_case *c, unsigned dtype_mask)
{
    json_object(j, NULL);
    json_str(j, "name", c->name);
    json_int(j, "line", c->line);
    json_str(j, "shape", c->rank ? c->shape : "");
    json_array(j, "dims");
    for (int k = 0; k < c->rank; k++)
        json_int(j, NULL, c->dims[k]);
    json_end(j);
    json_array(j, "dtypes");
    for (int k = 0; k < c->ndtypes; k++)
        if (!dtype_mask || (dtype_mask & KLAB_DTYPE_BIT(c->dtypes[k])))
            json_str(j, NULL, dtype_name(c->dtypes[k]));
    json_end(j);
    json_array(j, "profiles");
    for (int k = 0; k < c->nprofiles; k++)
        json_str(j, NULL, c->profiles[k]);
    json_end(j);
    json_int(j, "warmup", c->warmup);
    json_int(j, "min_reps", c->stop.min_reps);
    json_int(j, "max_reps", c->stop.max_reps);
    json_num(j, "precision", c->stop.precision);
    json_num(j, "budget_ms", c->stop.budget_ms);
    json_int(j, "steps", c->steps);
    json_str(j, "config", c->config);
    json_object(j, "params");
    for (int k = 0; k < c->nparams; k++)
        json_str(j, c->param_key[k], c->param_val[k]);
    json_end(j);
    json_object(j, "named");
    for (int k = 0; k < c->ndims_named; k++)
        json_int(j, c->dim_key[k], c->dim_val[k]);
    json_end(j);
    json_object(j, "lines");
    const char *name;
    for (int k = 0; (name = cfg_case_key_name(k)) != NULL; k++)
        if (cfg_case_key_line(c, name))
            json_int(j, name, cfg_case_key_line(c, name));
    char key[CFG_NAME + 8];
    for (int k = 0; k < c->nparams; k++) {
        snprintf(key, sizeof key, "param.%s", c->param_key[k]);
        json_int(j, key, cfg_case_key_line(c, key));
    }
    for (int k = 0; k < c->ndims_named; k++) {
        snprintf(key, sizeof key, "dim.%s", c->dim_key[k]);
        json_int(j, key, cfg_case_key_line(c, key));
    }
    json_end(j);
    json_end(j);
}

