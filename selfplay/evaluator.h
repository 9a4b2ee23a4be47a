/* evaluator.h — what the search asks of a position: move priors and a value (docs/design.md §3.3).
 *
 * An evaluator answers a batch of unfinished positions at once:
 *   prior[i * pits + k] — prior of relative pit k (0 = a/A) of the mover of pos[i], >= 0. Slots of illegal
 *                         moves may hold anything finite: the search masks them and renormalises the legal
 *                         ones itself (search-cases.md cases 3 and 4).
 *   value[i]            — expected result for the player to move at pos[i], in [-1, 1].
 * Finished positions are never sent (the search values them exactly from the final margin).
 *
 * Two implementations:
 *   net     — kalah_encode + legal mask of every position into one batch, one nn_forward call (nn/net.h).
 *             The net is only read, so many evaluators (one per thread) may share one net.
 *   rollout — the classic MCTS baseline: uniform priors over the legal moves, value = mean result for the
 *             mover of `rollouts` uniformly random playouts to the end (+1 win, 0 draw, -1 loss).
 * Tests add their own (a struct whose first member is mcts_eval, see below).
 *
 * Threads: one evaluator belongs to one thread at a time (it owns scratch memory and, for rollouts, an RNG).
 * A factory makes one evaluator per self-play worker thread.
 */
#ifndef SOWZERO_SELFPLAY_EVALUATOR_H
#define SOWZERO_SELFPLAY_EVALUATOR_H

#include "env/status.h"

#include <stdint.h>
#include "env/kalah.h"
#include "nn/net.h"

#define MCTS_ERRLEN SZ_ERRLEN

enum {
    MCTS_OK = SZ_OK,
    MCTS_EINVAL = SZ_EINVAL,  /* bad argument or configuration (message names the field) */
    MCTS_ENOMEM = SZ_ENOMEM,
    MCTS_EOVER = SZ_EOVER,   /* the position is already finished: nothing to search */
    MCTS_EEVAL = SZ_EFAIL,   /* the evaluator failed */
    MCTS_EIO = SZ_EIO,     /* a file could not be written */
    MCTS_ESTOPPED = SZ_ESTOPPED /* an abort flag stopped the search (mcts_mp_search_timed) */
};

typedef struct mcts_eval mcts_eval;

/* The interface. Implementations embed it as their first member and fill the function pointers.
 * evaluate: n positions (1..max_batch, none finished, all under `rules`) → prior (n × rules.pits floats)
 *           and value (n floats), as described at the top. Returns MCTS_OK or a negative MCTS_E* code.
 * reseed:   may be NULL; restarts the evaluator's own randomness (rollouts) from seed.
 * destroy:  frees the evaluator (called by mcts_eval_free).
 * The counters are kept by the implementation and read by benchmarks; forward_seconds is the wall time
 * spent inside the expensive call (nn_forward for the net; the playouts for rollouts). */
struct mcts_eval {
    int (*evaluate)(mcts_eval *e, const kalah_pos *pos, int n, float *prior, float *value);
    void (*reseed)(mcts_eval *e, uint64_t seed);
    void (*destroy)(mcts_eval *e);
    kalah_rules rules;
    int max_batch;             /* most positions per evaluate call */
    double forward_seconds;    /* accumulated */
    uint64_t calls, positions; /* accumulated evaluate calls and positions evaluated */
};

/* The net evaluator for positions of rules r: checks that the net's input_dim is kalah_encode_dim(r) and
 * n_policy is r->pits (else NULL with the message in err, MCTS_ERRLEN bytes), and allocates an nn_workspace
 * and batch buffers for max_batch (>= 1) positions. The net is borrowed (not owned, must outlive the
 * evaluator, only read). NULL on error / out of memory. */
mcts_eval *mcts_eval_net_create(const nn_net *net, const kalah_rules *r, int max_batch, char *err);

/* The same with the margin utility of mcts.margin_utility w >= 0 (KataGo's score utility, Wu 2019 §4):
 * value[i] = (v + w · clamp(m, −1, 1)) / (1 + w), v the value head and m the margin head (scaled as its
 * target, REPLAY_MARGIN_SCALE, so both are in [−1, 1] for the mover), the same mix mcts.c gives finished
 * positions. w = 0 is mcts_eval_net_create; w > 0 needs a net with a margin head (else NULL, message). */
mcts_eval *mcts_eval_net_create_utility(const nn_net *net, const kalah_rules *r, int max_batch,
                                        double margin_utility, char *err);

/* The rollout evaluator: uniform priors over legal moves, value = mean of `rollouts` (>= 1) random playouts
 * (each move uniform over the legal ones, to the end of the game under r, including max_sows) scored
 * +1/0/-1 for the mover. Seeded (mcts_rng) by seed; max_batch is the most positions per call. */
mcts_eval *mcts_eval_rollout_create(const kalah_rules *r, int rollouts, int max_batch, uint64_t seed, char *err);

/* Calls e->destroy; NULL is allowed. */
void mcts_eval_free(mcts_eval *e);

/* Evaluates n positions in chunks of at most e->max_batch (a convenience around e->evaluate). */
int mcts_eval_run(mcts_eval *e, const kalah_pos *pos, int n, float *prior, float *value);

/* Makes one evaluator per worker thread. create gets the factory itself (for net / rollouts / user),
 * the rules, the batch size the worker needs and a per-thread seed; it returns NULL with a message on error.
 * The two stock factories below fill `create` and `net` or `rollouts`; tests may set their own create and
 * use `user`. */
typedef struct mcts_eval_factory {
    mcts_eval *(*create)(const struct mcts_eval_factory *f, const kalah_rules *r, int max_batch, uint64_t seed,
                         char *err);
    const nn_net *net;   /* net factory: the shared read-only net */
    int rollouts;        /* rollout factory: playouts per evaluated position */
    double margin_utility; /* net factory: mcts_eval_net_create_utility's w (0 = the plain value) */
    void *user;          /* free for custom factories */
} mcts_eval_factory;

mcts_eval_factory mcts_eval_factory_net(const nn_net *net);
mcts_eval_factory mcts_eval_factory_rollout(int rollouts);

#endif
