/* Comparing a device output with the float64 reference. Pure CPU code.
 *
 * The rule, for tolerance tau (per dtype, or the plugin's own):
 *   - every element finite where the reference is (NaN never passes; the poison left in an unwritten
 *     element is NaN, so unwritten outputs fail here);
 *   - relative L2 error ||out - ref|| / ||ref|| <= tau;
 *   - each element |out - ref| <= 4 tau (|ref| + rms(ref)): magnitude-aware, so a tiny reference
 *     value is judged against the scale of the whole output, not against zero.
 * An output of all zeros has relative error 1 and fails every case. A reference whose RMS is under
 * 1e-6 of the inputs' (or exactly zero) cannot tell a right kernel from one that writes zeros: the
 * case itself is refused. Integer outputs (int32, int64) must match exactly: any difference is a
 * mismatch, whatever the tolerance. */
#ifndef KLAB_VERIFY_H
#define KLAB_VERIFY_H

#include <stddef.h>

#include "klab/plugin.h"

typedef enum verify_verdict {
    VERIFY_PASS = 0,
    VERIFY_MISMATCH,   /* finite but outside tolerance */
    VERIFY_NONFINITE,  /* NaN or Inf where the reference is finite */
    VERIFY_REFUSED     /* the reference itself is unfit: nearly zero or not finite */
} verify_verdict;

typedef struct verify_result {
    verify_verdict verdict;
    double rel_l2_err;
    double max_abs_err;
    double ref_rms;
    double tol;
    size_t bad;      /* elements failing the element rule or not finite */
    char msg[256];   /* what failed, with the first bad element */
} verify_result;

/* The tolerance of an output of dtype `d` when the plugin gives none: fp32 1e-5, fp16 2e-3, bf16 1.6e-2,
   fp8 e4m3 6.25e-2, fp8 e5m2 1.25e-1; 0 (exact) for integers. */
double verify_default_tol(klab_dtype d);

/* The tolerance an output of dtype `d` is judged by in this case: the plugin's own (its tolerance
   hook, where it gives one above 0), else verify_default_tol; 0 for integers. */
double verify_case_tol(const klab_plugin *desc, const klab_case *kcase, klab_dtype d);

/* RMS of a double array (0 for n == 0). */
double verify_rms(const double *x, size_t n);

/* Checks that the reference is fit to judge with: returns VERIFY_PASS or VERIFY_REFUSED with msg. */
verify_verdict verify_reference_fit(const double *ref, size_t n, double input_rms, verify_result *r);

/* Compares `n` raw elements of dtype `d` against `ref`. `name` names the tensor in messages; `index`,
   when not NULL, is the element index of each position (a sampled comparison), so a message names the
   element, not its place in the sample. */
verify_verdict verify_compare(const char *name, const double *ref, const void *raw, klab_dtype d,
                              size_t n, const size_t *index, double tol, verify_result *r);

const char *verify_verdict_name(verify_verdict v);

#endif
