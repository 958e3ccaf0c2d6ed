#include "timing/rounds.h"

#include <stdlib.h>
#include <string.h>

int rounds_position(int n, int round, int j)
{
    return n > 0 ? (j + round) % n : -1;
}

/* Distinct early rounds, one per subject that has something to check, shuffled from the seed so a
   plugin cannot know which of its early runs is judged. */
static int pick_verify_rounds(rounds *r, uint64_t seed, const int *verifiable)
{
    int pool = r->n > ROUNDS_VERIFY_WITHIN ? r->n : ROUNDS_VERIFY_WITHIN;
    int *perm = malloc((size_t)pool * sizeof *perm);
    if (!perm)
        return -1;
    uint64_t x = seed ? seed : 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < pool; i++)
        perm[i] = i;
    for (int i = pool - 1; i > 0; i--) { /* Fisher-Yates with xorshift */
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int j = (int)(x % (uint64_t)(i + 1));
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int i = 0; i < r->n; i++)
        r->m[i].verify_round = !verifiable || verifiable[i] ? perm[i] : -1;
    free(perm);
    return 0;
}

int rounds_init(rounds *r, int n, const stop_rule *rule, uint64_t seed, const int *verifiable,
                const int64_t *steps)
{
    memset(r, 0, sizeof *r);
    r->n = n;
    r->round = -1;
    r->rule = *rule;
    r->step_rule = *rule;
    if (r->step_rule.min_reps < ROUNDS_STEP_MIN)
        r->step_rule.min_reps = ROUNDS_STEP_MIN;
    if (r->step_rule.max_reps > 0 && r->step_rule.max_reps < r->step_rule.min_reps)
        r->step_rule.max_reps = r->step_rule.min_reps;
    r->m = calloc(n > 0 ? (size_t)n : 1, sizeof *r->m);
    r->order = calloc(n > 0 ? (size_t)n : 1, sizeof *r->order);
    if (!r->m || !r->order) {
        rounds_free(r);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        r->m[i].live = 1;
        r->m[i].steps = steps && steps[i] > 0 ? steps[i] : 0;
        r->m[i].pos = -1;
    }
    if (pick_verify_rounds(r, seed, verifiable) != 0) {
        rounds_free(r);
        return -1;
    }
    return 0;
}

void rounds_free(rounds *r)
{
    if (r->m)
        for (int i = 0; i < r->n; i++) {
            free(r->m[i].samples);
            free(r->m[i].tags);
            stop_acc_free(&r->m[i].acc);
        }
    free(r->m);
    free(r->order);
    memset(r, 0, sizeof *r);
}

static int sampling(const rounds_member *m)
{
    return m->live && !m->stopped;
}

static void stop(rounds_member *m, stop_reason why, const stop_rule *rule)
{
    m->stopped = 1;
    m->reason = why;
    /* under min_reps for whatever reason it stopped: the budget, or (where nothing refused it) a
       max_reps below min_reps; the one place a row's few-samples is decided */
    m->few = m->acc.n < (size_t)rule->min_reps;
}

int rounds_next(rounds *r, double elapsed_ms)
{
    int next = r->round + 1;
    /* The ordinary subjects' group decision: all met the rule, or one hit a hard limit. */
    int any = 0, all_met = 1;
    stop_reason hard = STOP_NOT_YET;
    for (int i = 0; i < r->n; i++) {
        rounds_member *m = &r->m[i];
        if (!sampling(m) || m->steps)
            continue;
        any = 1;
        stop_reason why = stop_check(&r->rule, &m->acc, elapsed_ms);
        if (why == STOP_NOT_YET)
            all_met = 0;
        else if (why == STOP_BUDGET || (why == STOP_MAX && hard != STOP_BUDGET))
            hard = why;
        m->reason = why;
    }
    int group_done = any && (all_met || hard != STOP_NOT_YET);
    for (int i = 0; i < r->n; i++) {
        rounds_member *m = &r->m[i];
        m->in_round = 0;
        if (!sampling(m))
            continue;
        int done;
        stop_reason why;
        if (m->steps) {
            why = stop_check(&r->step_rule, &m->acc, elapsed_ms);
            /* whole sequences, so every position of the sequence is equally represented */
            int boundary = m->pos < 0 || m->pos >= m->steps;
            done = why == STOP_BUDGET || (why != STOP_NOT_YET && boundary);
        } else {
            why = m->reason != STOP_NOT_YET ? m->reason : hard;
            done = group_done;
        }
        /* a verified round is never skipped: no rule or budget ends a subject before it has come */
        if (done && m->verify_round < next) {
            stop(m, why, m->steps ? &r->step_rule : &r->rule);
            continue;
        }
        m->in_round = 1;
    }
    int live = 0;
    for (int i = 0; i < r->n; i++)
        live += r->m[i].in_round;
    if (!live)
        return 0;
    r->round = next;
    for (int j = 0; j < r->n; j++) {
        int s = rounds_position(r->n, next, j);
        r->order[j] = r->m[s].in_round ? s : -1;
    }
    for (int i = 0; i < r->n; i++) {
        rounds_member *m = &r->m[i];
        if (!m->in_round)
            continue;
        m->n_pending = 0;
        m->turn_restore = 0;
        m->turn_first = 0;
        m->turn_count = 1;
        if (!m->steps)
            continue;
        if (m->verify_round == next) {
            /* verification judges a whole sequence from its start: outputs and states after `steps` */
            m->turn_restore = 1;
            m->turn_count = m->steps;
        } else {
            if (m->pos < 0 || m->pos >= m->steps)
                m->turn_restore = 1;
            m->turn_first = m->turn_restore ? 0 : m->pos;
            int64_t left = m->steps - m->turn_first;
            m->turn_count = left < ROUNDS_STEP_TURN ? left : ROUNDS_STEP_TURN;
        }
    }
    return 1;
}

int rounds_at(const rounds *r, int j)
{
    if (r->round < 0 || j < 0 || j >= r->n || r->order[j] < 0)
        return -1;
    return r->m[r->order[j]].in_round ? r->order[j] : -1;
}

void rounds_turn(const rounds *r, int subj, int *restore, int64_t *first, int64_t *count)
{
    const rounds_member *m = &r->m[subj];
    *restore = m->turn_restore;
    *first = m->turn_first;
    *count = m->turn_count;
}

int rounds_verified(const rounds *r, int subj)
{
    return r->round >= 0 && r->m[subj].in_round && r->m[subj].verify_round == r->round;
}

int rounds_add(rounds *r, int subj, double ms, int64_t tag)
{
    rounds_member *m = &r->m[subj];
    size_t at = m->n_kept + m->n_pending;
    if (at == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 256;
        double *p = realloc(m->samples, cap * sizeof *p);
        if (!p)
            return -1;
        m->samples = p;
        int64_t *t = realloc(m->tags, cap * sizeof *t);
        if (!t)
            return -1;
        m->tags = t;
        m->cap = cap;
    }
    m->samples[at] = ms;
    m->tags[at] = tag;
    m->n_pending++;
    return 0;
}

void rounds_fail(rounds *r, int subj)
{
    r->m[subj].live = 0;
    r->m[subj].in_round = 0;
    r->m[subj].n_pending = 0;
}

void rounds_end(rounds *r, int throttled)
{
    for (int i = 0; i < r->n; i++) {
        rounds_member *m = &r->m[i];
        if (!m->in_round)
            continue;
        if (m->steps) /* the steps ran, counted or not: the sequence moved on */
            m->pos = m->turn_first + m->turn_count;
        if (throttled) {
            /* the whole round ran at a lower clock: no subject keeps a sample of it */
            m->discarded += (int)m->n_pending;
        } else {
            for (size_t k = 0; k < m->n_pending; k++)
                stop_add(&m->acc, m->samples[m->n_kept + k]);
            m->n_kept += m->n_pending;
        }
        m->n_pending = 0;
        m->in_round = 0;
    }
}

const double *rounds_samples(const rounds *r, int subj, size_t *n, const int64_t **tags)
{
    *n = r->m[subj].n_kept;
    if (tags)
        *tags = r->m[subj].tags;
    return r->m[subj].samples;
}

double *rounds_take_samples(rounds *r, int subj, size_t *n, size_t *cap, int64_t **tags)
{
    rounds_member *m = &r->m[subj];
    double *p = m->samples;
    *n = m->n_kept;
    *cap = m->cap;
    *tags = m->tags;
    m->samples = NULL;
    m->tags = NULL;
    m->n_kept = m->n_pending = m->cap = 0;
    return p;
}
