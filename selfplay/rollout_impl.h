/* rollout_impl.h — the random-rollout evaluator (the classic MCTS baseline: uniform priors, the value the
 * mean result of `rollouts` uniformly random playouts), included by the evaluator interface after it
 * defines:
 *
 *   RO_EVAL                the evaluator type (with evaluate, reseed, destroy, max_batch, forward_seconds,
 *                          calls, positions)
 *   RO_POS                 its position type
 *   RO_MOVES(e), RO_VALUES(e)   prior slots and value entries per position (at most RO_MAX_VALUES)
 *   RO_LEGAL(e, p), RO_APPLY(e, p, m)   the legal-move mask of *p and applying move m to *p
 *   RO_SCORE(e, start, end, acc)        adds the values of finished (or capped) position *end, for what the
 *                          evaluator reports at *start, to acc[0 .. RO_VALUES(e))
 *
 * (selfplay/mcts_mp_eval.c: game_pos, one value per player): the mover picks uniformly among its legal
 * moves. */

#define RO_MAX_VALUES 8

typedef struct {
    RO_EVAL base;
    int rollouts;
    mcts_rng rng;
} rollout_eval;

/* Every registered game ends (the conformance suite plays random games to the end; games with cycles bound
 * them with max_sows; Kalah's stores never shrink and between store gains every sowing moves seeds towards
 * the mover's store). The cap only guards against a rules bug: a capped playout is scored as it stands. */
#define ROLLOUT_CAP 100000

static void playout(const RO_EVAL *e, const RO_POS *start, mcts_rng *rng, float *acc)
{
    RO_POS p = *start;
    for (int s = 0; !p.over && s < ROLLOUT_CAP; s++) {
        unsigned legal = RO_LEGAL(e, &p);
        uint32_t j = mcts_rng_below(rng, (uint32_t)__builtin_popcount(legal));
        while (j--)
            legal &= legal - 1; /* drop the lowest set bits until the chosen one is lowest */
        RO_APPLY(e, &p, __builtin_ctz(legal));
    }
    RO_SCORE(e, start, &p, acc);
}

static int rollout_evaluate(RO_EVAL *e, const RO_POS *pos, int n, float *prior, float *value)
{
    rollout_eval *re = (rollout_eval *)e;
    const int m = RO_MOVES(e), nv = RO_VALUES(e);
    double t0 = sp_now();
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < m; k++)
            prior[i * m + k] = 1.0f; /* the search keeps the legal ones and renormalises: uniform */
        float acc[RO_MAX_VALUES] = {0};
        for (int j = 0; j < re->rollouts; j++)
            playout(e, &pos[i], &re->rng, acc);
        for (int q = 0; q < nv; q++)
            value[i * nv + q] = acc[q] / (float)re->rollouts;
    }
    e->forward_seconds += sp_now() - t0;
    e->calls++;
    e->positions += (uint64_t)n;
    return MCTS_OK;
}

static void rollout_reseed(RO_EVAL *e, uint64_t seed) { mcts_rng_seed(&((rollout_eval *)e)->rng, seed); }
static void rollout_destroy(RO_EVAL *e) { free(e); }

/* A rollout evaluator with base fields from `base` (its function pointers are set here), or NULL with err. */
static RO_EVAL *rollout_create(RO_EVAL base, int ok, const char *why, int rollouts, uint64_t seed, char *err)
{
    if (!ok || rollouts < 1 || base.max_batch < 1) {
        if (err)
            snprintf(err, MCTS_ERRLEN, "rollout evaluator: %s",
                     !ok ? why : rollouts < 1 ? "rollouts must be >= 1" : "max_batch < 1");
        return NULL;
    }
    rollout_eval *re = calloc(1, sizeof *re);
    if (!re) {
        if (err)
            snprintf(err, MCTS_ERRLEN, "rollout evaluator: out of memory");
        return NULL;
    }
    re->base = base;
    re->base.evaluate = rollout_evaluate;
    re->base.reseed = rollout_reseed;
    re->base.destroy = rollout_destroy;
    re->rollouts = rollouts;
    mcts_rng_seed(&re->rng, seed);
    return &re->base;
}
