/* The one place an INI case becomes the klab_case a plugin sees: name, shape, dtype, the params and
 * named dims the descriptor declares, and the steps of a verified sequence. The worker's units, the
 * validate job and libklab_bench all build through it, so `klab --validate` describes exactly the
 * case a run sets up. */
#ifndef KLAB_CASE_BUILD_H
#define KLAB_CASE_BUILD_H

#include "config/ini_config.h"
#include "klab/plugin.h"

typedef struct built_case {
    klab_case kcase; /* points into params[] and named[] below, and at the cfg_case's strings */
    klab_param params[CFG_MAX_PARAMS];
    klab_dim named[CFG_MAX_DIMS];
} built_case;

/* Builds the case in place (it points into itself: never copy a built_case by value; the cfg_case
   must outlive it). Params and dims the descriptor does not list are left out; a step plugin's steps
   are the INI's, else its default_steps; any other plugin's are 1. */
void case_build(built_case *b, const cfg_case *c, klab_dtype dtype, const klab_plugin *desc);

/* The case as the tuning cache keys it (tune_cache.h), written by the worker that looks a case up and
   by the parent that records it: the dims ("4096x8192"; nothing for a case of named dims only), then
   each param KEY=VALUE in the INI's order, each dim.NAME=VALUE, and steps=N when the INI sets steps,
   joined by ';' ("4096x8192;eps=1e-6;dim.k=4096;steps=64"). What changes the problem changes the
   signature; the case's name (a key of its own), its timing keys and its config do not. One longer
   than len - 1 keeps its beginning and ends in '~' and a 16-digit hash of the whole, so two long
   signatures are never made equal by cutting them. */
void case_signature(const cfg_case *c, char *buf, size_t len);

#endif
