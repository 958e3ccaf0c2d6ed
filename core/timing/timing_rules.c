/* The timer's rules as pure functions, so they are tested without a GPU: how many runs a batched
 * sample holds, when escaped work or a too-fast median is flagged, and how a row names its mode. */
#include <math.h>
#include <stdio.h>

#include "timing/timing.h"

/* A batched sample pays the event pair's own cost (about one launch floor) once for N runs. With
   N x (run - floor) >= 100 floors, that cost is at most 1 % of the sample, and so of the per-run time
   it reports. The rotated copies then occupy about 100 floors' worth of traffic (2.6 us x 4.8 TB/s x
   100 = 1.25 GB on an H200 at full bandwidth): they fit beside any case that fits at all. */
#define BATCH_FLOOR_FACTOR 100.0
#define BATCH_MIN 2
#define BATCH_MAX 1000
/* Queued runs wait in the stream's launch queue behind the blocking kernel; a queue that fills
   stalls the host until the kernel gives up. 128 launches (and their graphs' nodes) stay well inside
   it; a sample that still times out halves the batch. */
#define QUEUE_MAX 128

/* The escape check's threshold, from the H200 (2026-11-22, docs/timing.md): honest profiles of klab's
   GPU tests read up to 3.6 us of excess (least of five pairs against a spin of their own length),
   escaping ones 27 us (10 % of a 263 us run) and more. 6 us clears the honest tail with a margin;
   5 % of the run catches a tenth escaping, where the old rule let a quarter through. A small escape
   under 6 us falls to the floor rule instead (a median under the empty launch). */
#define ESCAPE_ABS_MS 0.006
#define ESCAPE_REL 0.05

/* The floor is a median of empty launches measured at the start of the case; a real kernel cannot
   come in under it, but the floor itself moves by a few percent from one measurement to the next. */
#define FLOOR_MARGIN 0.90

int timing_choose_batch(double one_run_ms, double floor_ms, int owns_graph)
{
    int cap = owns_graph ? QUEUE_MAX : BATCH_MAX;
    if (!(floor_ms > 0) || !isfinite(one_run_ms))
        return BATCH_MIN;
    double work = one_run_ms - floor_ms;
    if (!(work > floor_ms / 50)) /* an empty-looking run: as many as allowed */
        work = floor_ms / 50;
    double n = ceil(BATCH_FLOOR_FACTOR * floor_ms / work);
    if (n < BATCH_MIN)
        return BATCH_MIN;
    return n > cap ? cap : (int)n;
}

int timing_escape_flagged(double excess_ms, double event_ms)
{
    double limit = ESCAPE_REL * event_ms > ESCAPE_ABS_MS ? ESCAPE_REL * event_ms : ESCAPE_ABS_MS;
    return excess_ms > limit;
}

int timing_below_floor(double median_ms, double floor_ms)
{
    return floor_ms > 0 && median_ms < FLOOR_MARGIN * floor_ms;
}

void timing_row_mode(const subject *s, const timing_opts *o, char *l2, size_t l2len, char *launch,
                     size_t launchlen, int *batch, double *footprint, char *note, size_t notelen)
{
    snprintf(l2, l2len, "%s", o->mode == TIMING_HOT ? "hot" : "cold");
    *batch = 1;
    *footprint = 0;
    note[0] = 0;
    if (s->steps > 0) {
        snprintf(launch, launchlen, "steps");
        return;
    }
    if (o->mode != TIMING_BATCHED) {
        snprintf(launch, launchlen, "stream");
        return;
    }
    snprintf(launch, launchlen, "%s", s->owns_graph ? "queued" : "batched");
    *batch = s->batch > 0 ? s->batch : 1;
    if (s->rotated)
        *footprint = s->footprint;
    else
        snprintf(note, notelen, "%s", s->batch_note);
}

int timing_l2_residue(size_t limit_bytes, size_t window_bytes, double hit_ratio, int hit_persisting, char *why,
                      size_t whylen)
{
    if (limit_bytes == 0 && window_bytes == 0)
        return 0;
    char limit[160] = "", window[200] = "";
    if (limit_bytes)
        snprintf(limit, sizeof limit, "a persisting-L2 limit of %zu bytes (cudaLimitPersistingL2CacheSize)",
                 limit_bytes);
    if (window_bytes)
        snprintf(window, sizeof window, "an access-policy window of %zu bytes (hitRatio %.2g, %s) on the timed stream",
                 window_bytes, hit_ratio, hit_persisting ? "persisting" : "not persisting");
    snprintf(why, whylen,
             "run() left %s%s%s behind: lines it keeps in L2 would carry one sample's data into the next (a cold "
             "sample must find none); klab reset %s, and the row is not timed",
             limit, limit[0] && window[0] ? " and " : "", window, limit[0] && window[0] ? "both" : "it");
    return 1;
}
