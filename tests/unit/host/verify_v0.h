/* The comparisons of host/verify.c before the pool (tests/unit/host/verify_v0.c): the oracle of
 * test_verify_threads. */
#ifndef KLAB_VERIFY_V0_H
#define KLAB_VERIFY_V0_H

#include "host/verify.h"

double v0_verify_rms(const double *x, size_t n);
verify_verdict v0_verify_reference_fit(const double *ref, size_t n, double input_rms, verify_result *r);
verify_verdict v0_verify_compare(const char *name, const double *ref, const void *raw, klab_dtype d, size_t n,
                                 const size_t *index, double tol, verify_result *r);

#endif
