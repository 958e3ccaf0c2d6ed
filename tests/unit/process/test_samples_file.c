/* A step subject's raw samples, from the worker to the parent's file: the SAMPLES messages
 * (core/wire.c: chunked to fit the parent's buffer, each checked against its header) and the file
 * the parent writes from them (core/samples_file.c: partial until the row's last chunk, then renamed). */
#include "klab_test.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "process/samples_file.h"
#include "process/wire.h"

#define MAXMSG 8

typedef struct sent {
    int n;
    unsigned char *msg[MAXMSG];
    uint32_t len[MAXMSG];
} sent;

static int collect(void *user, wire_type type, const void *payload, uint32_t length)
{
    sent *s = user;
    assert_int_equal(type, WIRE_SAMPLES);
    assert_true(s->n < MAXMSG);
    s->msg[s->n] = malloc(length);
    memcpy(s->msg[s->n], payload, length);
    s->len[s->n++] = length;
    return 0;
}

static void sent_free(sent *s)
{
    for (int i = 0; i < s->n; i++)
        free(s->msg[i]);
    s->n = 0;
}

static double *ramp(size_t n, int64_t **steps)
{
    double *ms = malloc(n * sizeof *ms);
    *steps = malloc(n * sizeof **steps);
    for (size_t i = 0; i < n; i++) {
        ms[i] = 0.01 + (double)i * 1e-6;
        (*steps)[i] = (int64_t)(i % 300);
    }
    return ms;
}

static void test_messages_are_chunked_and_checked(void **state)
{
    (void)state;
    int64_t *steps;
    double *ms = ramp(2000, &steps);
    sent s = {0};
    assert_int_equal(wire_send_samples(collect, &s, "decode", "b1", "fp16", "fused", ms, steps, 2000), 0);
    assert_int_equal(s.n, 3); /* 900 + 900 + 200 */
    uint32_t first = 0;
    for (int i = 0; i < s.n; i++) {
        const wire_samples *h;
        const wire_sample *x;
        assert_true(s.len[i] <= 16384); /* the parent's receive buffer */
        assert_int_equal(wire_samples_parse(s.msg[i], s.len[i], &h, &x), 0);
        assert_string_equal(h->plugin, "decode");
        assert_string_equal(h->profile, "fused");
        assert_int_equal(h->first, first);
        assert_int_equal(h->total, 2000);
        for (uint32_t k = 0; k < h->n; k++) {
            assert_true(x[k].ms == ms[first + k]);
            assert_int_equal(x[k].step, steps[first + k]);
        }
        first += h->n;
        /* a length that disagrees with the header is refused, one sample short or long */
        const wire_samples *hh;
        const wire_sample *xx;
        assert_int_equal(wire_samples_parse(s.msg[i], s.len[i] - 16, &hh, &xx), -1);
        assert_int_equal(wire_samples_parse(s.msg[i], s.len[i] - 8, &hh, &xx), -1);
    }
    assert_int_equal(first, 2000);
    /* a chunk that claims to run past the row's total is refused */
    wire_samples *h = (wire_samples *)s.msg[2];
    h->total = 1999;
    const wire_samples *hh;
    const wire_sample *xx;
    assert_int_equal(wire_samples_parse(s.msg[2], s.len[2], &hh, &xx), -1);
    assert_int_equal(wire_samples_parse(s.msg[2], 10, &hh, &xx), -1);
    sent_free(&s);
    /* no samples: one empty message, so the row still gets its (header-only) file */
    assert_int_equal(wire_send_samples(collect, &s, "decode", "b1", "fp16", "fused", NULL, NULL, 0), 0);
    assert_int_equal(s.n, 1);
    assert_int_equal(wire_samples_parse(s.msg[0], s.len[0], &hh, &xx), 0);
    assert_int_equal(hh->n, 0);
    sent_free(&s);
    free(ms);
    free(steps);
}

static void expect_in(const char *text, const char *part)
{
    if (!strstr(text, part))
        fail_msg("\"%s\" lacks \"%s\"", text, part);
}

static char dir[64];

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/klab-samples-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static int count_lines(const char *path)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return -1;
    int n = 0, c;
    while ((c = fgetc(fp)) != EOF)
        n += c == '\n';
    fclose(fp);
    return n;
}

static void test_file_is_partial_until_the_last_chunk(void **state)
{
    (void)state;
    char csv[128], path[4400], partial[4420], err[1200];
    snprintf(csv, sizeof csv, "%s/decode.csv", dir);
    assert_int_equal(samples_file_path(csv, "decode", "b1", "fp16", "fused", path, sizeof path), 0);
    char want[256];
    snprintf(want, sizeof want, "%s/decode.samples/b1.fp16.fused.csv", dir);
    assert_string_equal(path, want);
    snprintf(partial, sizeof partial, "%s.partial", path);

    int64_t *steps;
    double *ms = ramp(2000, &steps);
    sent s = {0};
    assert_int_equal(wire_send_samples(collect, &s, "decode", "b1", "fp16", "fused", ms, steps, 2000), 0);
    for (int i = 0; i < s.n; i++) {
        assert_int_equal(samples_file_add(csv, s.msg[i], s.len[i], err, sizeof err), 0);
        if (i + 1 < s.n) { /* not complete yet: only the partial file exists */
            assert_int_equal(access(path, F_OK), -1);
            assert_int_equal(access(partial, F_OK), 0);
        }
    }
    assert_int_equal(access(partial, F_OK), -1);
    assert_int_equal(count_lines(path), 2001);
    FILE *fp = fopen(path, "r");
    char line[128];
    assert_non_null(fgets(line, sizeof line, fp));
    assert_string_equal(line, "step,ms\n");
    assert_non_null(fgets(line, sizeof line, fp));
    assert_string_equal(line, "0,0.01\n");
    assert_non_null(fgets(line, sizeof line, fp));
    assert_string_equal(line, "1,0.010001\n");
    fclose(fp);
    sent_free(&s);
    free(ms);
    free(steps);
}

static void test_out_of_order_and_malformed_are_refused(void **state)
{
    (void)state;
    char csv[128], err[1200];
    snprintf(csv, sizeof csv, "%s/decode.csv", dir);
    int64_t *steps;
    double *ms = ramp(1000, &steps);
    sent s = {0};
    assert_int_equal(wire_send_samples(collect, &s, "decode", "b2", "fp16", "fused", ms, steps, 1000), 0);
    assert_int_equal(s.n, 2);
    assert_int_equal(samples_file_add(csv, s.msg[1], s.len[1], err, sizeof err), -1);
    expect_in(err, "arrived before the first ones");
    assert_int_equal(samples_file_add(csv, s.msg[0], s.len[0] + 0, err, sizeof err), 0);
    assert_int_equal(samples_file_add(csv, s.msg[1], s.len[1] - 16, err, sizeof err), -1);
    expect_in(err, "does not match its header");
    sent_free(&s);
    free(ms);
    free(steps);
}

static void test_names_cannot_leave_the_folder(void **state)
{
    (void)state;
    char path[4400];
    assert_int_equal(samples_file_path("/r/x.csv", "x", "../../etc", "fp32", "a/b", path, sizeof path), 0);
    assert_string_equal(path, "/r/x.samples/.._.._etc.fp32.a_b.csv");
    assert_int_equal(samples_file_path("x.csv", "x", "c", "fp32", "p", path, sizeof path), 0);
    assert_string_equal(path, "./x.samples/c.fp32.p.csv");
    char tiny[16];
    assert_int_equal(samples_file_path("/r/x.csv", "x", "c", "fp32", "p", tiny, sizeof tiny), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_messages_are_chunked_and_checked),
        cmocka_unit_test_setup_teardown(test_file_is_partial_until_the_last_chunk, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_out_of_order_and_malformed_are_refused, make_dir, remove_dir),
        cmocka_unit_test(test_names_cannot_leave_the_folder),
    };
    KLAB_RUN_TESTS(tests);
}
