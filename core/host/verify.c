#include "host/verify.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/dtype.h"
#include "host/parallel.h"

/* Loose enough for an unfused profile that rounds twice to the dtype, tight enough that garbage,
   a missed row or a wrong constant fails: fp16's unit roundoff is 4.9e-4, bf16's 3.9e-3, e4m3's
   6.25e-2 (3 mantissa bits) and e5m2's 1.25e-1 (2 bits): an fp8 output rounded once is within one
   unit roundoff of the reference. */
double verify_default_tol(klab_dtype d)
{
    switch (d) {
    case KLAB_FP32: return 1e-5;
    case KLAB_FP16: return 2e-3;
    case KLAB_BF16: return 1.6e-2;
    case KLAB_FP8_E4M3: return 6.25e-2;
    case KLAB_FP8_E5M2: return 1.25e-1;
    default: return 0; /* integers: exact */
    }
}

double verify_case_tol(const klab_plugin *desc, const klab_case *kcase, klab_dtype d)
{
    if (dtype_is_integer(d))
        return 0;
    double tol = desc->tolerance ? desc->tolerance(kcase) : 0;
    return tol > 0 ? tol : verify_default_tol(d);
}

double verify_rms(const double *x, size_t n)
{
    if (n == 0)
        return 0;
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i] * x[i];
    return sqrt(s / (double)n);
}

/* The comparisons' figures come from two kinds of loop. Sums of squares are one chain of additions
   in element order, as they always were: any other order changes their last bits, and with them
   rel_l2_err in the CSV. Those chains stay serial (the two of a comparison run side by side, one a
   thread; with one or two threads, the error's chain rides along the single pass as it always did).
   Everything else (widening, finiteness, the element rule, counts, the first failure, the
   maximum error) gives the same answer in any order, and runs on the pool in chunks of CHUNK
   elements, each chunk's findings combined in chunk order: first failure the earliest, maximum by
   the same `>` as the serial loop. */
enum { BLOCK = 4096, CHUNK = 16 * BLOCK };

/* One chunk's findings; SIZE_MAX: none in the chunk. */
typedef struct scan {
    size_t first;      /* the first element not finite (fit) or failing (compare) */
    double first_got, first_want;
    size_t nonfinite, bad;
    double maxabs;
    int all_zero;
} scan;

/* Runs `fn` over [0, n) in CHUNK pieces, one scan each, into *parts (the job's own pointer, which fn
   reads). *parts is allocated, or `one` when there is a single piece or no memory for more: then
   [0, n) is scanned here as piece 0, the same answer on one thread. Returns the number of pieces. */
static size_t scan_all(size_t n, parallel_fn fn, void *job, scan **parts, scan *one)
{
    size_t nc = parallel_chunks(n, CHUNK);
    *parts = nc > 1 ? malloc(nc * sizeof **parts) : NULL;
    if (*parts) {
        parallel_for(n, CHUNK, fn, job);
        return nc;
    }
    *parts = one;
    fn(job, 0, n);
    return 1;
}

typedef struct fit_job {
    const double *ref;
    scan *parts;
} fit_job;

static void fit_chunk(void *arg, size_t begin, size_t end)
{
    const fit_job *j = arg;
    scan *s = &j->parts[begin / CHUNK];
    s->first = SIZE_MAX;
    for (size_t i = begin; i < end; i++)
        if (!isfinite(j->ref[i])) {
            s->first = i;
            break;
        }
}

verify_verdict verify_reference_fit(const double *ref, size_t n, double input_rms, verify_result *r)
{
    memset(r, 0, sizeof *r);
    scan one;
    fit_job j = {ref, NULL};
    size_t nc = scan_all(n, fit_chunk, &j, &j.parts, &one);
    size_t first = SIZE_MAX;
    for (size_t c = 0; c < nc && first == SIZE_MAX; c++)
        first = j.parts[c].first;
    if (j.parts != &one)
        free(j.parts);
    if (first != SIZE_MAX) {
        r->verdict = VERIFY_REFUSED;
        snprintf(r->msg, sizeof r->msg, "reference not finite at element %zu", first);
        return r->verdict;
    }
    r->ref_rms = verify_rms(ref, n);
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

/* Integers: every element equal to its reference, the first difference named. Serial: no plugin has
   a large integer output. */
static verify_verdict compare_exact(const char *name, const double *ref, const void *raw, klab_dtype d, size_t n,
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

typedef struct cmp_job {
    const double *ref;
    const char *raw;
    klab_dtype d;
    size_t n, esize;
    double tol, ref_rms;
    double chains[2]; /* sum of want^2 over every element; sum of e^2 over the finite outputs */
    int one_pass;     /* [0, n) is one chunk, run in this thread: it adds chain 1 itself, in order */
    scan *parts;
} cmp_job;

/* The two sums of squares, each one chain in element order: chain 0 is verify_rms's sum (ref_rms,
   and the denominator: over finite outputs it is the same sum, and with any output not finite the
   error is NaN whatever it holds); chain 1 the squared errors of the finite outputs. */
static void chain(void *arg, size_t which, size_t end)
{
    (void)end;
    cmp_job *j = arg;
    double s = 0;
    if (which == 0) {
        for (size_t i = 0; i < j->n; i++)
            s += j->ref[i] * j->ref[i];
    } else {
        double got[BLOCK];
        for (size_t b = 0; b < j->n; b += BLOCK) {
            size_t m = j->n - b < BLOCK ? j->n - b : BLOCK;
            dtype_to_double(j->d, j->raw + b * j->esize, got, m);
            for (size_t k = 0; k < m; k++) {
                if (!isfinite(got[k]))
                    continue;
                double e = fabs(got[k] - j->ref[b + k]);
                s += e * e;
            }
        }
    }
    j->chains[which] = s;
}

/* Everything but the sums, for one chunk: what the serial loop found in these elements. */
static void compare_chunk(void *arg, size_t begin, size_t end)
{
    cmp_job *j = arg;
    scan *s = &j->parts[begin / CHUNK];
    *s = (scan){SIZE_MAX, 0, 0, 0, 0, 0, 1};
    double got[BLOCK], err2 = 0;
    for (size_t b = begin; b < end; b += BLOCK) {
        size_t m = end - b < BLOCK ? end - b : BLOCK;
        dtype_to_double(j->d, j->raw + b * j->esize, got, m);
        for (size_t k = 0; k < m; k++) {
            size_t i = b + k;
            double want = j->ref[i];
            if (got[k] != 0)
                s->all_zero = 0;
            if (!isfinite(got[k])) {
                s->nonfinite++;
                if (s->first == SIZE_MAX) {
                    s->first = i;
                    s->first_got = got[k];
                    s->first_want = want;
                }
                continue;
            }
            double e = fabs(got[k] - want);
            if (j->one_pass)
                err2 += e * e;
            if (e > s->maxabs)
                s->maxabs = e;
            if (e > 4 * j->tol * (fabs(want) + j->ref_rms)) {
                s->bad++;
                if (s->first == SIZE_MAX) {
                    s->first = i;
                    s->first_got = got[k];
                    s->first_want = want;
                }
            }
        }
    }
    if (j->one_pass)
        j->chains[1] = err2;
}

verify_verdict verify_compare(const char *name, const double *ref, const void *raw, klab_dtype d,
                              size_t n, const size_t *index, double tol, verify_result *r)
{
    memset(r, 0, sizeof *r);
    r->tol = tol;
    if (dtype_is_integer(d)) {
        r->ref_rms = verify_rms(ref, n);
        r->tol = 0;
        return compare_exact(name, ref, raw, d, n, index, r);
    }
    /* Up to two threads, or one chunk: chain 0, then a single pass that adds chain 1 as it goes (the
       loop as it always was). From three threads: the chains side by side, then the chunks. The
       second form reads the output twice; with two threads that cost what the second thread saved
       (2^26 fp32 on a 2-core machine: 330-370 ms against 230-360 in one pass). The figures are the
       same either way. */
    scan one;
    cmp_job j = {ref, raw, d, n, klab_dtype_size(d), tol, 0, {0, 0}, 0, &one};
    j.one_pass = parallel_threads() <= 2 || parallel_chunks(n, CHUNK) <= 1;
    if (j.one_pass)
        chain(&j, 0, 1);
    else
        parallel_for(2, 1, chain, &j);
    j.ref_rms = sqrt(j.chains[0] / (double)(n ? n : 1));
    size_t nc = 1;
    if (j.one_pass)
        compare_chunk(&j, 0, n);
    else
        nc = scan_all(n, compare_chunk, &j, &j.parts, &one);
    double ref_rms = n == 0 ? 0 : j.ref_rms, err2 = j.chains[1], ref2 = j.chains[0];
    r->ref_rms = ref_rms;
    double maxabs = 0, first_got = 0, first_want = 0;
    size_t nonfinite = 0, bad = 0, first = SIZE_MAX;
    int all_zero = 1;
    for (size_t c = 0; c < nc; c++) {
        const scan *s = &j.parts[c];
        nonfinite += s->nonfinite;
        bad += s->bad;
        all_zero &= s->all_zero;
        if (s->maxabs > maxabs)
            maxabs = s->maxabs;
        if (first == SIZE_MAX && s->first != SIZE_MAX) {
            first = s->first;
            first_got = s->first_got;
            first_want = s->first_want;
        }
    }
    if (j.parts != &one)
        free(j.parts);
    size_t at = first == SIZE_MAX ? 0 : index ? index[first] : first;
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

const char *verify_verdict_name(verify_verdict v)
{
    switch (v) {
    case VERIFY_PASS: return "pass";
    case VERIFY_MISMATCH: return "mismatch";
    case VERIFY_NONFINITE: return "nonfinite";
    case VERIFY_REFUSED: return "refused";
    default: return "?";
    }
}
