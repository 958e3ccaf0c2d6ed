/* host/verify.c's comparisons as they were before the pool (commit 6020066), word for word but for
 * the v0_ names: the oracle test_verify_threads compares today's figures with, byte for byte. Every
 * figure a row takes from verify_compare (rel_l2_err, max_abs_err, the count of bad elements, the
 * message naming the first) must come out as this one-thread code gave it. */
#include "verify_v0.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "host/dtype.h"

double v0_verify_rms(const double *x, size_t n)
{
    if (n == 0)
        return 0;
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i] * x[i];
    return sqrt(s / (double)n);
}

verify_verdict v0_verify_reference_fit(const double *ref, size_t n, double input_rms, verify_result *r)
{
    memset(r, 0, sizeof *r);
    for (size_t i = 0; i < n; i++)
        if (!isfinite(ref[i])) {
            r->verdict = VERIFY_REFUSED;
            snprintf(r->msg, sizeof r->msg, "reference not finite at element %zu", i);
            return r->verdict;
        }
    r->ref_rms = v0_verify_rms(ref, n);
    if (n > 0 && (r->ref_rms == 0 || r->ref_rms < 1e-6 * input_rms)) {
        r->verdict = VERIFY_REFUSED;
        snprintf(r->msg, sizeof r->msg,
                 "reference nearly zero (rms %.3g against input rms %.3g): an output of zeros would pass",
                 r->ref_rms, input_rms);
        return r->verdict;
    }
    r->verdict = VERIFY_PASS;
    return r->verdict;
}

/* Integers: every element equal to its reference, the first difference named. */
static verify_verdict v0_compare_exact(const char *name, const double *ref, const void *raw, klab_dtype d, size_t n,
                                    const size_t *index, verify_result *r)
{
    double err2 = 0, ref2 = 0, maxabs = 0, first_got = 0, first_want = 0;
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        double got = dtype_load(d, raw, i), want = ref[i], e = fabs(got - want);
        err2 += e * e;
        ref2 += want * want;
        if (e > maxabs)
            maxabs = e;
        if (got != want && bad++ == 0) {
            first = i;
            first_got = got;
            first_want = want;
        }
    }
    r->max_abs_err = maxabs;
    r->rel_l2_err = ref2 > 0 ? sqrt(err2 / ref2) : (err2 > 0 ? INFINITY : 0);
    r->bad = bad;
    if (!bad) {
        r->verdict = VERIFY_PASS;
        return r->verdict;
    }
    r->verdict = VERIFY_MISMATCH;
    snprintf(r->msg, sizeof r->msg, "%s: %zu of %zu elements differ (integers compare exactly; first [%zu] = %.17g, want %.17g)",
             name, bad, n, index ? index[first] : first, first_got, first_want);
    return r->verdict;
}

verify_verdict v0_verify_compare(const char *name, const double *ref, const void *raw, klab_dtype d,
                              size_t n, const size_t *index, double tol, verify_result *r)
{
    memset(r, 0, sizeof *r);
    r->tol = tol;
    double ref_rms = v0_verify_rms(ref, n);
    r->ref_rms = ref_rms;
    if (dtype_is_integer(d)) {
        r->tol = 0;
        return v0_compare_exact(name, ref, raw, d, n, index, r);
    }
    double err2 = 0, ref2 = 0, maxabs = 0;
    size_t nonfinite = 0, bad = 0, first = (size_t)-1;
    double first_got = 0, first_want = 0;
    int all_zero = 1;
    size_t esize = klab_dtype_size(d);
    /* widened in blocks through dtype_to_double (its tables), not element by element */
    enum { BLOCK = 4096 };
    double got_block[BLOCK];
    for (size_t i = 0; i < n; i++) {
        if (i % BLOCK == 0)
            dtype_to_double(d, (const char *)raw + i * esize, got_block, n - i < BLOCK ? n - i : BLOCK);
        double got = got_block[i % BLOCK], want = ref[i];
        if (got != 0)
            all_zero = 0;
        if (!isfinite(got)) {
            nonfinite++;
            if (first == (size_t)-1) {
                first = i;
                first_got = got;
                first_want = want;
            }
            continue;
        }
        double e = fabs(got - want);
        err2 += e * e;
        ref2 += want * want;
        if (e > maxabs)
            maxabs = e;
        if (e > 4 * tol * (fabs(want) + ref_rms)) {
            bad++;
            if (first == (size_t)-1) {
                first = i;
                first_got = got;
                first_want = want;
            }
        }
    }
    size_t at = first == (size_t)-1 ? 0 : index ? index[first] : first;
    r->max_abs_err = maxabs;
    r->rel_l2_err = ref2 > 0 ? sqrt(err2 / ref2) : (err2 > 0 ? INFINITY : 0);
    r->bad = bad + nonfinite;
    if (nonfinite) {
        r->verdict = VERIFY_NONFINITE;
        r->rel_l2_err = NAN;
        snprintf(r->msg, sizeof r->msg, "%s: %zu of %zu elements not finite (first [%zu] = %g, want %.6g)",
                 name, nonfinite, n, at, first_got, first_want);
    } else if (all_zero && n > 0) {
        r->verdict = VERIFY_MISMATCH;
        snprintf(r->msg, sizeof r->msg, "%s: output is all zeros (relative error %.3g > %.3g)", name,
                 r->rel_l2_err, tol);
    } else if (r->rel_l2_err > tol || bad) {
        r->verdict = VERIFY_MISMATCH;
        if (bad)
            snprintf(r->msg, sizeof r->msg,
                     "%s: relative error %.3g (tolerance %.3g), %zu of %zu elements off (first [%zu] = %.6g, want %.6g)",
                     name, r->rel_l2_err, tol, bad, n, at, first_got, first_want);
        else
            snprintf(r->msg, sizeof r->msg, "%s: relative error %.3g over tolerance %.3g", name,
                     r->rel_l2_err, tol);
    } else {
        r->verdict = VERIFY_PASS;
    }
    return r->verdict;
}
