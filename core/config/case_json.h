#ifndef KLAB_CONFIG_CASE_JSON_H
#define KLAB_CONFIG_CASE_JSON_H

#include "config/ini_config.h"
#include "util/json_out.h"

/* One case as an object of j: name, line, shape, dims[] (the shape's), dtypes[] (those of dtype_mask,
   KLAB_DTYPE_BIT bits; 0: all), profiles[], the stopping keys, steps, config, params, named (dim.NAME)
   and lines (where each key was given). docs/outputs.md describes it. */
void case_json(json_out *j, const cfg_case *c, unsigned dtype_mask);

#endif
