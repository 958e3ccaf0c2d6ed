/* The row-kernel plans (plugins/lib/row/row_plan.c), on the CPU: the window a row spans, the per-shape
 * choice for the model shapes the row plugins are timed on, the validity rules, the tuning space (valid,
 * unique, holding the choice), and, by re-deriving the skeleton's index arithmetic (row_kernel.cuh) here,
 * that every plan of the space reads and writes every element of every row exactly once and nothing outside
 * it. And every `config` the INI files name is in its case's space. */
#include <string.h>

#include "klab_test.h"

#include "config/case_build.h"
#include "config/ini_config.h"
#include "row/row_plan.h"
#include "row/rope.h"

static void test_window(void **state)
{
    (void)state;
    assert_int_equal(row_window(4096, 2), 512);
    assert_int_equal(row_window(8192, 4), 2048);
    /* 8186 bytes from an offset of 14 reach into a 513th vector */
    assert_int_equal(row_window(4093, 2), 513);
    assert_int_equal(row_window(17, 4), 5);
    assert_int_equal(row_window(7, 2), 2);
    assert_int_equal(row_window(1, 4), 1);
    assert_int_equal(row_window(1, 2), 1);
}

static const char *chosen(size_t rows, size_t cols, size_t elem)
{
    row_shape s = {rows, cols, elem};
    const char *c = row_plan_config(&s, &row_limits_any, -1);
    assert_non_null(c);
    return c;
}

static void test_choice(void **state)
{
    (void)state;
    /* the first fused kernel's shape: 256 threads, 4 vectors each, one row a block */
    assert_string_equal(chosen(4096, 8192, 2), "cta=256,tpr=256,vpt=4,cluster=1,stream=0");
    /* 640 vectors in 4096 rows: 8 vectors a thread for half the threads (the rows fill the GPU) */
    assert_string_equal(chosen(4096, 5120, 2), "cta=128,tpr=128,vpt=8,cluster=1,stream=0");
    /* ... but not in 1024 rows, nor where 4 vectors a thread fill the row exactly */
    assert_string_equal(chosen(1024, 4093, 2), "cta=256,tpr=256,vpt=4,cluster=1,stream=0");
    assert_string_equal(chosen(4096, 4096, 2), "cta=128,tpr=128,vpt=4,cluster=1,stream=0");
    /* a row that fills 512 threads x 4 exactly halves too where the rows fill the GPU (2048 vectors) */
    assert_string_equal(chosen(2048, 16384, 2), "cta=256,tpr=256,vpt=8,cluster=1,stream=0");
    assert_string_equal(chosen(4096, 8192, 4), "cta=256,tpr=256,vpt=8,cluster=1,stream=0");
    assert_string_equal(chosen(1024, 16384, 2), "cta=512,tpr=512,vpt=4,cluster=1,stream=0");
    /* ... not where the op's 4-vector kernel fits two blocks of 1024 an SM (fp16, fp32 RMSNorm): 512 x 4
       and 1024 x 4 exactly stay at 4; a ragged row of the same window does not */
    row_shape fit = {2048, 16384, 2};
    assert_string_equal(row_plan_config(&fit, &row_limits_fit4, -1), "cta=512,tpr=512,vpt=4,cluster=1,stream=0");
    fit = (row_shape){4096, 8192, 4};
    assert_string_equal(row_plan_config(&fit, &row_limits_fit4, -1), "cta=512,tpr=512,vpt=4,cluster=1,stream=0");
    fit = (row_shape){2048, 16384, 4};
    assert_string_equal(row_plan_config(&fit, &row_limits_fit4, -1), "cta=1024,tpr=1024,vpt=4,cluster=1,stream=0");
    assert_string_equal(chosen(2048, 16384, 4), "cta=512,tpr=512,vpt=8,cluster=1,stream=0");
    fit = (row_shape){1024, 32768, 2};
    assert_string_equal(row_plan_config(&fit, &row_limits_fit4, -1), "cta=1024,tpr=1024,vpt=4,cluster=1,stream=0");
    fit = (row_shape){200, 16384, 4}; /* rows that do not fill the GPU: the kernel is not bounded there */
    assert_string_equal(row_plan_config(&fit, &row_limits_fit4, -1), "cta=512,tpr=512,vpt=8,cluster=1,stream=0");
    fit = (row_shape){2048, 16377, 2}; /* a window of 2048 vectors, rows not on 16-byte boundaries */
    assert_int_equal(row_window(16377, 2), 2048);
    assert_string_equal(row_plan_config(&fit, &row_limits_fit4, -1), "cta=256,tpr=256,vpt=8,cluster=1,stream=0");
    /* ... and at 256 threads x 4 exactly (1024 vectors) only for an op with heavy arithmetic (softmax) */
    row_shape exact = {4096, 8192, 2};
    assert_string_equal(row_plan_config(&exact, &row_limits_heavy, -1), "cta=128,tpr=128,vpt=8,cluster=1,stream=0");
    exact.rows = 2048;
    assert_string_equal(row_plan_config(&exact, &row_limits_heavy, -1), "cta=256,tpr=256,vpt=4,cluster=1,stream=0");
    /* rows of 64-128 KiB stream: fp32 one 128 KiB step a block, 16-bit rows and softmax two blocks of
       512 x 8 an SM; not the residual form (two tensors a row) */
    assert_string_equal(chosen(1024, 32768, 4), "cta=1024,tpr=1024,vpt=8,cluster=1,stream=1");
    assert_string_equal(chosen(512, 65536, 2), "cta=512,tpr=512,vpt=8,cluster=1,stream=1");
    row_shape fp32_long = {1024, 32768, 4};
    assert_string_equal(row_plan_config(&fp32_long, &row_limits_heavy, -1), "cta=512,tpr=512,vpt=8,cluster=1,stream=1");
    assert_string_equal(row_plan_config(&fp32_long, &row_limits_no_ring, -1), "cta=256,tpr=256,vpt=8,cluster=4,stream=0");
    /* 16-bit rows of 128-256 KiB: 1024 x 8 in two steps, not softmax's, not fp32's */
    assert_string_equal(chosen(256, 131072, 2), "cta=1024,tpr=1024,vpt=8,cluster=1,stream=1");
    row_shape half_256k = {256, 131072, 2};
    assert_string_equal(row_plan_config(&half_256k, &row_limits_heavy, -1), "cta=256,tpr=256,vpt=8,cluster=8,stream=0");
    assert_string_equal(chosen(256, 65536, 4), "cta=256,tpr=256,vpt=8,cluster=8,stream=0");
    /* 64 KiB rows in one block of 512 x 8 rather than a cluster, unless there are few rows */
    assert_string_equal(chosen(1024, 32768, 2), "cta=512,tpr=512,vpt=8,cluster=1,stream=0");
    assert_string_equal(chosen(1, 32768, 2), "cta=128,tpr=128,vpt=2,cluster=16,stream=0");
    /* short rows share 256-thread blocks of 4 vectors a thread: 64 rows of 4 threads */
    assert_string_equal(chosen(8192, 128, 2), "cta=256,tpr=4,vpt=4,cluster=1,stream=0");
    /* ... through shared memory where they do not start on 16-byte boundaries and take 1-2 threads a row
       (windows of up to 8 vectors); the longer ragged rows keep the register plan, and so does an op
       without ring hooks (the residual form) */
    assert_string_equal(chosen(65537, 17, 4), "cta=256,tpr=2,vpt=4,cluster=1,stream=0,tile=1");
    assert_string_equal(chosen(65537, 17, 2), "cta=256,tpr=1,vpt=4,cluster=1,stream=0,tile=1");
    assert_string_equal(chosen(100003, 33, 2), "cta=256,tpr=2,vpt=4,cluster=1,stream=0,tile=1");
    assert_string_equal(chosen(100003, 33, 4), "cta=256,tpr=4,vpt=4,cluster=1,stream=0");
    row_shape tiny = {65537, 17, 2};
    assert_string_equal(row_plan_config(&tiny, &row_limits_no_ring, -1), "cta=256,tpr=1,vpt=4,cluster=1,stream=0");
    /* one warp a row: no block barrier */
    assert_string_equal(chosen(4096, 1024, 2), "cta=256,tpr=32,vpt=4,cluster=1,stream=0");
    /* past 32 MiB, aligned short rows take small blocks of 2 vectors a thread (8 rows of 8 threads; one
       row of 128), ragged ones keep theirs; a heavy op's keep 4 vectors, in blocks of 64 */
    assert_string_equal(chosen(262144, 128, 2), "cta=64,tpr=8,vpt=2,cluster=1,stream=0");
    assert_string_equal(chosen(32768, 1024, 4), "cta=128,tpr=128,vpt=2,cluster=1,stream=0");
    assert_string_equal(chosen(16384, 1024, 2), "cta=256,tpr=32,vpt=4,cluster=1,stream=0");
    assert_string_equal(chosen(32769, 1023, 2), "cta=256,tpr=32,vpt=8,cluster=1,stream=0");
    row_shape sweep = {32768, 1024, 2};
    assert_string_equal(row_plan_config(&sweep, &row_limits_heavy, -1), "cta=64,tpr=32,vpt=4,cluster=1,stream=0");
    /* the residual form (two tensors a row) keeps 256-thread blocks */
    assert_string_equal(row_plan_config(&sweep, &row_limits_no_ring, -1), "cta=256,tpr=32,vpt=4,cluster=1,stream=0");
    /* a long row alone is spread over a 16-block cluster */
    assert_string_equal(chosen(1, 65536, 2), "cta=256,tpr=256,vpt=2,cluster=16,stream=0");
    /* rows past 64 KiB: the register plan's split, never the ring (measured slower on the H200: row_plan.c) */
    assert_string_equal(chosen(128, 262144, 2), "cta=256,tpr=256,vpt=8,cluster=16,stream=0");
    assert_string_equal(chosen(128, 262144, 4), "cta=512,tpr=512,vpt=8,cluster=16,stream=0");
    assert_string_equal(chosen(40, 65541, 2), "cta=256,tpr=256,vpt=8,cluster=8,stream=0");
    assert_string_equal(chosen(64, 65536, 2), "cta=256,tpr=256,vpt=8,cluster=4,stream=0");
    /* an op that cannot take ring plans (RMSNorm's residual form) has the same */
    row_shape long_rows = {512, 65536, 2};
    assert_string_equal(row_plan_config(&long_rows, &row_limits_no_ring, -1), "cta=256,tpr=256,vpt=8,cluster=4,stream=0");
    assert_string_equal(chosen(2, 262144, 4), "cta=512,tpr=512,vpt=8,cluster=16,stream=0");
    /* one vector more than 16 blocks of 64 KiB hold: streamed */
    assert_string_equal(chosen(1, 262145, 4), "cta=512,tpr=512,vpt=8,cluster=16,stream=1");
    assert_string_equal(chosen(1, 1, 4), "cta=256,tpr=1,vpt=1,cluster=1,stream=0,tile=1");
    /* an op that needs the row in one block: on chip up to 64 KiB, then refused with the reason */
    row_limits one = {1, 1, 1, 0, 0, 0};
    row_shape s = {4, 16384, 4};
    row_plan p;
    char why[300];
    assert_int_equal(row_plan_choose(&s, &one, &p, why, sizeof why), 0);
    assert_int_equal(p.cta * p.vpt, 4096);
    s.cols = 16385;
    assert_int_equal(row_plan_choose(&s, &one, &p, why, sizeof why), -1);
    assert_non_null(strstr(why, "needs the row on chip"));
    /* whole heads a thread group: 16 vectors a head of 128 fp16 */
    row_limits heads = {1, 1, 16, 0, 0, 0};
    s = (row_shape){1, 128, 2};
    assert_int_equal(row_plan_choose(&s, &heads, &p, why, sizeof why), 0);
    assert_int_equal(p.tpr, 16);
}

static void expect_bad(row_plan p, size_t rows, size_t cols, size_t elem, const row_limits *lim, const char *part)
{
    row_shape s = {rows, cols, elem};
    char why[300];
    assert_int_equal(row_plan_check(&s, lim, &p, why, sizeof why), -1);
    if (!strstr(why, part))
        fail_msg("\"%s\" lacks \"%s\"", why, part);
}

/* The small grids whose 4-vector rows take the whole-row epilogue (row_plan_few_threads, fp16 RMSNorm):
   at most 512 threads an SM; never a grid the bounded kernel takes (row_plan_bounded4 needs a full one) */
static void test_few_threads(void **state)
{
    (void)state;
    assert_true(row_plan_few_threads(8192, 4));   /* 8192x128 fp16: 4 threads a row */
    assert_true(row_plan_few_threads(1, 128));    /* 1x4096 */
    assert_true(row_plan_few_threads(ROW_PLAN_SMS * 2, 256));
    assert_false(row_plan_few_threads(ROW_PLAN_SMS * 2 + 1, 256));
    assert_false(row_plan_few_threads(4096, 32)); /* 4096x1024 fp16: 131072 threads, 0.99x there */
    for (size_t rows = 1; rows <= 1u << 20; rows *= 2)
        for (int tpr = 256; tpr <= 1024; tpr *= 2)
            assert_false(row_plan_few_threads(rows, tpr) && row_plan_bounded4(rows, tpr));
}

static void test_rules(void **state)
{
    (void)state;
    const row_limits *any = &row_limits_any;
    expect_bad((row_plan){256, 128, 4, 2, 0, 0, 0}, 1, 65536, 2, any, "takes whole blocks");
    expect_bad((row_plan){1024, 1024, 8, 1, 0, 0, 0}, 1, 8192, 4, any, "cta * vpt must be at most 4096");
    expect_bad((row_plan){256, 256, 4, 1, 0, 0, 0}, 1, 8192, 4, any, "do not cover the row");
    expect_bad((row_plan){256, 256, 2, 1, 1, 0, 0}, 1, 8192, 4, any, "4 or 8 vectors");
    expect_bad((row_plan){256, 96, 4, 1, 0, 0, 0}, 1, 128, 4, any, "power of two");
    expect_bad((row_plan){256, 256, 4, 32, 0, 0, 0}, 1, 1 << 20, 4, any, "cluster must be");
    expect_bad((row_plan){100, 4, 4, 1, 0, 0, 0}, 1, 16, 4, any, "multiple of 32");
    row_limits rope = {1, 1, 16, 0, 0, 0};
    expect_bad((row_plan){256, 256, 4, 2, 0, 0, 0}, 1, 4096, 2, &rope, "keeps a row in one block");
    expect_bad((row_plan){256, 256, 4, 1, 1, 0, 0}, 1, 8192, 2, &rope, "needs the row on chip");
    expect_bad((row_plan){256, 8, 4, 1, 0, 0, 0}, 1, 128, 2, &rope, "whole heads");
    expect_bad((row_plan){256, 256, 8, 4, 0, 1, 0}, 512, 65536, 2, any, "ring must be 0 or 2..4");
    expect_bad((row_plan){256, 256, 8, 4, 0, 5, 0}, 512, 65536, 2, any, "ring must be 0 or 2..4");
    /* 1024 x 8 only streams, and only rows of whole vectors */
    expect_bad((row_plan){1024, 1024, 8, 1, 0, 0, 0}, 512, 65536, 2, any, "at most 4096");
    expect_bad((row_plan){1024, 1024, 8, 1, 1, 0, 0}, 512, 65535, 2, any, "rows of whole 16-byte vectors");
    expect_bad((row_plan){1024, 1024, 8, 1, 1, 0, 0}, 1024, 32768, 4, &row_limits_no_ring, "read from one tensor");
    expect_bad((row_plan){256, 256, 8, 4, 0, 2, 0}, 512, 65536, 2, &row_limits_no_ring, "through registers (ring 0)");
    expect_bad((row_plan){256, 256, 8, 1, 0, 2, 0}, 512, 8192, 2, &rope, "through registers (ring 0)");
    expect_bad((row_plan){256, 256, 8, 4, 1, 2, 0}, 512, 65536, 2, any, "in shared memory (stream 0)");
    expect_bad((row_plan){256, 128, 8, 1, 0, 2, 0}, 512, 65536, 2, any, "one row (tpr = cta)");
    expect_bad((row_plan){256, 256, 2, 4, 0, 2, 0}, 512, 65536, 2, any, "takes 4 or 8 vectors");
    /* the tile plan: rows off 16-byte boundaries, in one block of at most 512 threads and 44 KiB */
    expect_bad((row_plan){256, 1, 4, 1, 0, 0, 2}, 65537, 17, 2, any, "tile must be 0 or 1");
    expect_bad((row_plan){256, 1, 4, 1, 0, 0, 1}, 65537, 17, 2, &row_limits_no_ring, "through registers (tile 0)");
    expect_bad((row_plan){256, 256, 4, 2, 0, 0, 1}, 17, 4093, 2, any, "(cluster 1, stream 0, ring 0)");
    expect_bad((row_plan){256, 256, 4, 1, 1, 0, 1}, 17, 4093, 2, any, "(cluster 1, stream 0, ring 0)");
    expect_bad((row_plan){256, 4, 4, 1, 0, 0, 1}, 8192, 128, 2, any, "do not start on 16-byte boundaries");
    expect_bad((row_plan){1024, 1, 4, 1, 0, 0, 1}, 65537, 17, 2, any, "at most 512 threads");
    expect_bad((row_plan){512, 1, 8, 1, 0, 0, 1}, 65537, 60, 2, any, "past 44 KiB");
    row_shape t = {65537, 17, 2};
    row_plan tp = {256, 1, 4, 1, 0, 0, 1};
    assert_int_equal(row_plan_tile_vectors(&t, &tp), (256 * 17 + 7) / 8 + 1);
    /* 8192 vectors a row in one block: 2 x 128 KiB of stages */
    expect_bad((row_plan){256, 256, 8, 1, 0, 2, 0}, 512, 65536, 2, any, "past 224 KiB of shared memory");
    row_shape s = {512, 65536, 2};
    row_plan p = {256, 256, 8, 2, 0, 3, 0};
    char why[300];
    assert_int_equal(row_plan_ring_bytes(&s, &p), 3 * 4096 * 16);
    assert_int_equal(row_plan_check(&s, &row_limits_any, &p, why, sizeof why), 0);
    /* a ring plan need not cover the row with its threads' vectors: it walks its shared memory */
    p = (row_plan){256, 256, 4, 4, 0, 2, 0};
    assert_int_equal(row_plan_check(&s, &row_limits_any, &p, why, sizeof why), 0);
    char buf[64];
    assert_string_equal(row_plan_format(&p, buf, sizeof buf), "cta=256,tpr=256,vpt=4,cluster=4,stream=0,ring=2");
    s = (row_shape){3, 7, 2};
    p = (row_plan){256, 1, 2, 1, 0, 0, 0};
    assert_int_equal(row_plan_check(&s, &row_limits_any, &p, why, sizeof why), 0);
}

/* The skeleton's index arithmetic (row_kernel.cuh: RowSpan, the slots of a thread, the parts of a
   cluster, the steps of a stream), re-derived: every element of each row is touched once. */
static void cover(const row_shape *s, const row_plan *p, size_t row, unsigned char *seen)
{
    const long per = (long)(16 / s->elem), st = (long)(row * s->cols), v0 = st / per, head = st - v0 * per;
    const long nwin = (head + (long)s->cols + per - 1) / per, tail = (head + (long)s->cols) % per;
    const long part = (nwin + p->cluster - 1) / p->cluster;
    for (long rank = 0; rank < p->cluster; rank++) {
        const long c0 = rank * part, c1 = c0 + part < nwin ? c0 + part : nwin;
        /* a ring plan walks its part in shared memory in steps, as a streaming plan walks it in memory */
        const long step = (long)p->vpt * p->tpr, walks = p->stream || p->ring;
        const long steps = walks ? (c1 - c0 + step - 1) / step : 1;
        if (!walks && c1 - c0 > step)
            fail_msg("rank %ld holds %ld vectors in %ld slots", rank, c1 - c0, step);
        for (long b = 0; b < steps; b++)
            for (long lane = 0; lane < p->tpr; lane++)
                for (long k = 0; k < p->vpt; k++) {
                    const long i = c0 + b * step + k * p->tpr + lane;
                    if (i >= c1)
                        continue;
                    const long lo = i == 0 ? head : 0, hi = i == nwin - 1 && tail ? tail : per;
                    for (long j = lo; j < hi; j++) {
                        const long e = (v0 + i) * per + j - st;
                        if (e < 0 || e >= (long)s->cols)
                            fail_msg("row %zu: element %ld is outside the row", row, e);
                        if (seen[e]++)
                            fail_msg("row %zu: element %ld touched twice", row, e);
                    }
                }
    }
}

static void expect_covered(const row_shape *s, const row_plan *p)
{
    unsigned char *seen = malloc(s->cols);
    const size_t rows = s->rows < 9 ? s->rows : 9; /* rows 0..8 meet every start offset of a vector */
    for (size_t r = 0; r < rows; r++) {
        memset(seen, 0, s->cols);
        cover(s, p, r, seen);
        for (size_t e = 0; e < s->cols; e++)
            if (!seen[e]) {
                char buf[64];
                fail_msg("%s: row %zu element %zu of %zu never touched", row_plan_format(p, buf, sizeof buf), r, e,
                         s->cols);
            }
    }
    free(seen);
}

static void test_space_valid_unique_and_covering(void **state)
{
    (void)state;
    static const size_t shapes[][2] = {{1, 1},     {3, 7},      {65537, 17},  {17, 4093},   {8192, 128},
                                       {5, 1001},  {7, 50257},  {1, 262145},  {2, 262144},  {1, 65536},
                                       {4096, 1024}, {33, 5120}, {128, 262144}, {1000, 4096}, {3, 20001}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (size_t elem = 2; elem <= 4; elem += 2) {
            row_shape s = {shapes[i][0], shapes[i][1], elem};
            row_plan own, p;
            char why[300], a[64], b[64];
            if (row_plan_choose(&s, &row_limits_any, &own, why, sizeof why) != 0)
                fail_msg("%zux%zu: %s", s.rows, s.cols, why);
            expect_covered(&s, &own);
            int n = 0, own_found = 0;
            for (; row_plan_space(&s, &row_limits_any, n, &p); n++) {
                if (row_plan_check(&s, &row_limits_any, &p, why, sizeof why) != 0)
                    fail_msg("space entry %d: %s", n, why);
                expect_covered(&s, &p);
                row_plan_format(&p, a, sizeof a);
                own_found |= !strcmp(a, row_plan_format(&own, b, sizeof b));
                row_plan q;
                for (int m = 0; m < n; m++) {
                    assert_true(row_plan_space(&s, &row_limits_any, m, &q));
                    if (!strcmp(a, row_plan_format(&q, b, sizeof b)))
                        fail_msg("%s twice in the space", a);
                }
            }
            if (n < 4 || n > 200)
                fail_msg("%zux%zu (%zu bytes): a space of %d plans", s.rows, s.cols, elem, n);
            if (!own_found)
                fail_msg("%zux%zu: the plugin's choice %s is not in its tuning space", s.rows, s.cols,
                         row_plan_format(&own, a, sizeof a));
            assert_null(row_plan_config(&s, &row_limits_any, n));
            row_plan past;
            assert_int_equal(row_plan_for(&s, &row_limits_any, n, &past, why, sizeof why), -1);
        }
}

/* The ring plans lead the space of a long row (so that `klab --tune`, which times the first 63 entries,
   compares them with the register plans), every one fits shared memory, and an op or a row that
   cannot take them has none. */
static int ring_entries(const row_shape *s, const row_limits *lim, int *first_other, int *total)
{
    row_plan p;
    int n = 0, rings = 0;
    *first_other = -1;
    for (; row_plan_space(s, lim, n, &p); n++) {
        if (p.ring) {
            if (*first_other >= 0)
                fail_msg("ring entry %d after the register plans (from %d)", n, *first_other);
            if (row_plan_ring_bytes(s, &p) > ROW_PLAN_RING_SMEM)
                fail_msg("ring entry %d: %zu bytes of stages", n, row_plan_ring_bytes(s, &p));
            rings++;
        } else if (*first_other < 0) {
            *first_other = n;
        }
    }
    *total = n;
    return rings;
}

static void test_ring_space(void **state)
{
    (void)state;
    static const size_t sweep[][2] = {{1024, 32768}, {512, 65536}, {256, 131072}, {128, 262144}};
    int other, total;
    for (size_t i = 0; i < 4; i++)
        for (size_t elem = 2; elem <= 4; elem += 2) {
            row_shape s = {sweep[i][0], sweep[i][1], elem};
            row_plan own, p;
            char why[300];
            int rings = ring_entries(&s, &row_limits_any, &other, &total);
            if (elem == 2 && i == 0) { /* 64 KiB rows: one block of 512 x 8 holds them, no ring */
                assert_int_equal(rings, 0);
                continue;
            }
            if (rings < 6 || rings > 24 || other != rings)
                fail_msg("%zux%zu (%zu bytes): %d ring entries, the first other at %d", s.rows, s.cols, elem, rings,
                         other);
            /* the own choice is the register plan, and it is timed beside the ring plans */
            assert_int_equal(row_plan_choose(&s, &row_limits_any, &own, why, sizeof why), 0);
            assert_true(own.ring == 0);
            if (own.stream) /* fp32 rows of 64-128 KiB stream (1024 x 8): no register plan to find */
                continue;
            row_plan reg = own;
            int found = 0;
            for (int n = 0; n < 63 && row_plan_space(&s, &row_limits_any, n, &p); n++)
                found |= !memcmp(&p, &reg, sizeof p);
            if (!found)
                fail_msg("%zux%zu (%zu bytes): no register plan of the choice's split in the first 63 entries", s.rows,
                         s.cols, elem);
        }
    row_shape s = {512, 65536, 2};
    assert_int_equal(ring_entries(&s, &row_limits_no_ring, &other, &total), 0);
    row_limits rope = {1, 1, 16, 0, 0, 0};
    s = (row_shape){512, 8192, 2};
    assert_int_equal(ring_entries(&s, &rope, &other, &total), 0);
    s = (row_shape){4096, 4096, 2};
    assert_int_equal(ring_entries(&s, &row_limits_any, &other, &total), 0);
}

/* The tile plan's block arithmetic (row_tile.cuh's tile_kernel and launch_tile), re-derived for every
   block of every tile plan of some ragged shapes: the span of a block's rows, vectors [t0, t0 + n),
   fits the shared memory launch_tile gives it and the VPT + 1 vectors a thread its loops load and store
   (a span past them would leave elements unread, silently); it is read whole except the tensor's last
   vector where that is partial; its edge vectors are partial only where they meet another block or the
   tensor's end; and the gain's shifted copies hold a window of every row. The tile plans come first in
   the space of a short ragged row (no ring plans there), so `klab --tune` times them. */
static void test_tile_spans(void **state)
{
    (void)state;
    static const size_t shapes[][2] = {{65537, 17}, {100003, 33}, {1, 1}, {3, 7}, {9, 1001}, {1001, 33}, {17, 4093}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (size_t elem = 2; elem <= 4; elem += 2) {
            const row_shape s = {shapes[i][0], shapes[i][1], elem};
            const long per = (long)(16 / elem), total = (long)(s.rows * s.cols);
            row_plan p;
            int tiles = 0, first_other = -1;
            for (int k = 0; row_plan_space(&s, &row_limits_any, k, &p); k++) {
                if (!p.tile) {
                    if (first_other < 0)
                        first_other = k;
                    continue;
                }
                if (first_other >= 0)
                    fail_msg("tile entry %d after the other plans (from %d)", k, first_other);
                tiles++;
                const long rpb = p.cta / p.tpr, vectors = (long)row_plan_tile_vectors(&s, &p);
                for (long b = 0; b * rpb < (long)s.rows; b++) {
                    const long nrows = (long)s.rows - b * rpb < rpb ? (long)s.rows - b * rpb : rpb;
                    const long e0 = b * rpb * (long)s.cols, e1 = e0 + nrows * (long)s.cols, t0 = e0 / per;
                    const long n = (e1 + per - 1) / per - t0;
                    if (n > vectors || n > (long)(p.vpt + 1) * p.cta)
                        fail_msg("%zux%zu block %ld: %ld vectors, %ld in shared memory, %d x %d loaded", s.rows, s.cols, b,
                                 n, vectors, p.vpt + 1, p.cta);
                    /* only the tensor's last vector may run past its end */
                    if ((t0 + n - 1) * per + per > total && e1 != total)
                        fail_msg("%zux%zu block %ld reads past the tensor's end", s.rows, s.cols, b);
                }
                const long stride = ((long)s.cols + 2 * per - 2) / per;
                for (long head = 0; head < per; head++)
                    assert_true((head + (long)s.cols + per - 1) / per <= stride);
            }
            if (s.cols * s.elem % 16 && row_window(s.cols, s.elem) <= 64 && (tiles == 0 || first_other != tiles))
                fail_msg("%zux%zu (%zu bytes): %d tile entries, the first other at %d", s.rows, s.cols, elem, tiles,
                         first_other);
        }
}

/* Every `config` an INI file names is in the space its case offers, for each of its dtypes. */
static void test_ini_configs_in_space(void **state)
{
    (void)state;
    static const char *const inis[] = {"../experiments/rmsnorm_tuning.ini", "gpu/ini/rows_rmsnorm.ini",
                                       "gpu/ini/softmax.ini", "gpu/ini/rmsnorm_rope.ini"};
    static const char *const params[] = {"eps", "residual", "spread", "layout", NULL};
    static const char *const dims[] = {"head_dim", "seq", "cache", NULL};
    static const klab_plugin desc = {.params = params, .dims = dims};
    int named = 0;
    for (size_t f = 0; f < sizeof inis / sizeof inis[0]; f++) {
        static cfg_experiment e;
        char path[4096], err[1200];
        snprintf(path, sizeof path, "%s/%s", KLAB_TEST_DATA, inis[f]);
        if (cfg_load(path, &e, err, sizeof err) != 0)
            fail_msg("%s", err);
        const int rope = !strcmp(e.plugin, "rmsnorm_rope");
        for (int i = 0; i < e.ncases; i++) {
            const cfg_case *c = &e.cases[i];
            if (!c->config[0])
                continue;
            named++;
            for (int d = 0; d < c->ndtypes; d++) {
                built_case bc;
                case_build(&bc, c, c->dtypes[d], &desc);
                row_shape s = row_shape_of(&bc.kcase);
                row_limits lim = row_limits_any;
                if (rope) {
                    rope_geom g;
                    assert_int_equal(rope_geometry(&bc.kcase, &g, err, sizeof err), 0);
                    s = (row_shape){g.tokens, g.hidden, s.elem};
                    lim = rope_limits(&g, s.elem);
                }
                int found = 0;
                const char *cfg;
                for (int n = 0; !found && (cfg = row_plan_config(&s, &lim, n)); n++)
                    found = !strcmp(cfg, c->config);
                if (!found)
                    fail_msg("%s [case %s] %s: config %s is not in the space", inis[f], c->name,
                             c->dtypes[d] == KLAB_FP32 ? "fp32" : "16-bit", c->config);
            }
        }
    }
    assert_true(named >= 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window),
        cmocka_unit_test(test_choice),
        cmocka_unit_test(test_few_threads),
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_space_valid_unique_and_covering),
        cmocka_unit_test(test_ring_space),
        cmocka_unit_test(test_tile_spans),
        cmocka_unit_test(test_ini_configs_in_space),
    };
    KLAB_RUN_TESTS(tests);
}
