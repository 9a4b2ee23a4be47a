/* game_agent.h — agent specs for every game of the game interface (env/game.h; docs/design.md §2)
 * → one move-choosing interface, the one every driver (match, tournament, play, serve, training's
 * evaluation) uses for every game.
 *
 * A kind may bring an agent set of its own (eval/game_agent_impl.h, found by the game's kind; this file's
 * code names no game): Kalah's is eval/agent.h's random, greedy, ab (depth=8, nodes=, ms=, tt_mb=) and solver
 * (alpha-beta with its table and endgame database, Kalah's greedy; eval/game_agent_kalah.c): the spec is
 * handed to agent_create and the instance plays, seeds and reports exactly as it does there. The kinds the set
 * lacks (mcts, az, maxn, paranoid, solve for Kalah) are the ones below; an unknown kind gets the set's
 * message. Every other game gets the kinds below.
 *
 * Specs: KIND or KIND:key=value,key=value,...
 *   random                          uniform over the legal slots (seeded)
 *   greedy                          game_greedy (env/game.h): the game's greedy hook (Kalah: the best store
 *                                   margin at the end of the mover's turn, every chain of extra turns
 *                                   followed; básico: the pit that leaves the fewest stones in the mover's
 *                                   pits at the end of its turn, ties to the LOWEST pit), else the best estimate
 *                                   at the end of the mover's turn; ties among several slots drawn uniformly
 *   maxn:depth=4                    max^n search to `depth` plies (1..12, default 4) with game_estimate at
 *   paranoid:depth=4                the horizon (gs_search, eval/game_search.h); ties to the lowest slot,
 *                                   deterministic; no pruning for max^n, so each ply costs about 4x the time
 *   ab:depth=4                      two-player games: alpha-beta to `depth` plies (1..30) — paranoid search,
 *                                   which with two players is alpha-beta minimax on the mover's value
 *   solve[:nodes=50000000]          two-player games with a margin: the exact solve (gs_solve), for small
 *                                   boards; a position over the node budget fails the move with a message
 *   mcts:sims=800[,rollouts=1]      multi-player PUCT (selfplay/mcts_mp.h, mcts_mp_search) valued by random
 *      [,c_puct=1.5][,solver=1]     playouts (mcts_mp_eval_rollout_create), no noise, most-visited move
 *   az:net=PATH.h5,sims=200         PUCT guided by the net in PATH (export or checkpoint); the file's rules
 *      [,c_puct=1.5][,fpu=0.25]     attribute must equal game_spec, its encoding game_encoding_name, its
 *      [,batch=1]                   shape game_encode_dim / game_moves / game_value_dim (mcts_mp_net_check);
 *                                   sims=0 plays the raw policy's argmax over the legal slots (ties: lower
 *                                   slot); batch = leaves per net call (virtual loss). A net with a search
 *                                   record (nn/h5io.h /search, every net `sowzero train` writes) supplies
 *                                   the defaults of sims, c_puct, fpu, batch and the root keys: a spec key
 *                                   wins, then the record, then the built-in default; with two players
 *      [,margin=0][,solver=1]       and a margin: margin = mcts.margin_utility's weight (a net with a margin
 *                                   head), solver = proofs (score proofs with margin > 0, selfplay/mcts.h)
 *      [,tb=0][,tbroot=1]           tb = N > 0 (a search, sims >= 1): leaves with at most N seeds in the pits
 *                                   are valued exactly by the game's endgame database (Kalah's: eval/tbase.h,
 *                                   built or mapped when the agent is created and shared by the process; a
 *                                   kind's endgame hook otherwise; a game with neither refuses tb), and a root
 *                                   it covers is played by an optimal move, the one of highest prior
 *                                   (tbroot=0: the leaves only)
 *   mcts and az also take [,root=puct|gumbel][,gumbel_k=16][,gumbel_c_visit=50][,gumbel_c_scale=1]: with
 *                                   root=gumbel the root is Gumbel AlphaZero's (selfplay/mcts_root.h) without
 *                                   noise (g = 0), and the move the halving's survivor
 *   engine:cmd=COMMAND[,ms=1000]     every game: an outside program speaking the engine protocol
 *      [,cwd=DIR][,proto=kgp|sowzero] (eval/engine_agent.h, docs/protocol.md); its choose may return
 *                                   AGENT_EFORFEIT (the engine lost the game: illegal move, garbage, silence,
 *                                   exit)
 * and for every kind ,seed=N (default 0; a kind without keys takes it as KIND,seed=N or KIND:seed=N).
 * Rules keys (game_kind.rule_keys) are errors pointing at --rules; unknown keys are errors too; ab and solve
 * on a game of more than two players are errors; every message names the spec and the kind, key or value at
 * fault, in the words of agent_create, e.g. "agent 'maxn:dept=3': unknown key 'dept' for maxn (keys: depth,
 * seed)".
 *
 * Randomness and determinism: game_agent_new_game(a, start, game_seed) restarts the agent's randomness
 * from (spec seed, game_seed). random and greedy draw from a generator advanced by each choice (greedy only
 * when there are ties); mcts and az reseed their tree and evaluator (the rollouts) per game. A game therefore
 * depends only on the specs, the rules, the opening and the seeds — not on threads or on the games an
 * instance played before. Without any new_game call an agent behaves as after game_agent_new_game(a, start,
 * 0).
 *
 * mcts and az keep one tree per agent (eval/game_agent_tree.c): game_agent_notify of the move played (by
 * anyone) keeps its subtree (mcts.reuse_tree), and a choose at a position that is not the tree's root starts
 * a new tree there, so a choose's result depends on the moves notified since the game began.
 *
 * Threads: an instance is not thread-safe; create one per thread, on the calling thread (az reads HDF5,
 * which is not thread-safe: eval/game_match.c creates every instance before its workers start). The game
 * is borrowed and must outlive the agent (a game instance may be shared by many threads).
 * Library functions never print; errors come back as codes (AGENT_* of eval/agent.h) and messages.
 */
#ifndef SOWZERO_GAME_AGENT_H
#define SOWZERO_GAME_AGENT_H

#include <stdint.h>

#include "env/game.h"
#include "env/status.h"

#define AGENT_ERRLEN SZ_ERRLEN
#define AGENT_SPEC_MAX 1024   /* longest accepted spec */

/* AGENT_EFORFEIT: the agent lost the game by forfeit (an outside engine's illegal move, garbage, silence or
 * exit: eval/engine_agent.h); drivers end the game there with that seat losing. AGENT_ESTOPPED: the abort
 * flag (agent_set_abort, game_agent_set_abort) stopped the choose; there is no move. */
enum {
    AGENT_OK = SZ_OK, AGENT_EINVAL = SZ_EINVAL, AGENT_EOVER = SZ_EOVER, AGENT_EFAIL = SZ_EFAIL, AGENT_ENOMEM = SZ_ENOMEM,
    AGENT_EFORFEIT = SZ_EFORFEIT, AGENT_ESTOPPED = SZ_ESTOPPED
};

/* The settings an mcts or az agent searches with (game_agent_search_settings, game_agent_create_az). */
enum { AGENT_FROM_SIMS = 1, AGENT_FROM_C_PUCT = 2, AGENT_FROM_FPU = 4, AGENT_FROM_BATCH = 8, AGENT_FROM_MARGIN = 16,
       AGENT_FROM_SOLVER = 32, AGENT_FROM_ROOT = 64, AGENT_FROM_GUMBEL = 128 };
typedef struct {
    int sims;             /* 0: the raw policy (az) */
    double c_puct, fpu_reduction, margin_utility;
    int solver, batch;
    int gumbel;           /* root = gumbel */
    int gumbel_k;
    double gumbel_c_visit, gumbel_c_scale;
    int tb, tbroot;       /* az tb=N (0 = none) and tbroot */
    int net_record;       /* az: 1 when the net has a search record */
    unsigned from_net;    /* AGENT_FROM_* bits: the settings taken from that record (no spec key overrode them) */
} agent_search_info;


typedef struct game_agent game_agent;

/* Parses spec and builds the agent for game g (borrowed). NULL on error with the message in err
 * (AGENT_ERRLEN bytes, may be NULL). */
game_agent *game_agent_create(const char *spec, const game *g, char *err);

/* An az agent from settings and a net in memory, no spec and no file (how training's evaluation plays the
 * net it trains), for any game. search: sims (0: the raw policy), c_puct, fpu_reduction, batch,
 * margin_utility, solver, the root keys and tb, tbroot, in the ranges of nn/search_ranges.h (net_record and
 * from_net are ignored); margin_utility and solver need two players and a margin, margin_utility > 0 a net
 * with a margin head, tb an endgame database (as the az spec's keys). net: borrowed and only read
 * (instances on other threads may share it); it must outlive the agent
 * and fit g (mcts_mp_net_check). name: what game_agent_spec returns and game_agent_describe starts with
 * (copied; never parsed). The agent plays as the az spec with those keys would. */
struct nn_net;
typedef struct game_agent_az {
    const struct nn_net *net;
    agent_search_info search;
    uint64_t seed;
    const char *name;
} game_agent_az;

/* NULL on error with the message in err (AGENT_ERRLEN). */
game_agent *game_agent_create_az(const game *g, const game_agent_az *az, char *err);

/* NULL allowed. */
void game_agent_free(game_agent *a);

/* The spec as given (owned by the agent) and its kind: "random", "greedy", "maxn", "paranoid", "ab",
 * "solve", "mcts", "az", "engine". */
const char *game_agent_spec(const game_agent *a);
const char *game_agent_kind(const game_agent *a);

/* How the agent plays (owned by it): for az the effective search settings and which came from the net's
 * search record, e.g. "az:net=nets/kalah-6-4.h5,sims=800,c_puct=0.75,fpu=0.25,batch=1,margin=5,solver=1,
 * root=puct (from the net's search record: sims, c_puct, fpu, batch, margin, solver, root)"; every other kind
 * its spec. What `play`, `match` and `accuracy` show beside the spec. */
const char *game_agent_describe(const game_agent *a);

/* Starts a new game from `start` and reseeds from (spec seed, game_seed). */
void game_agent_new_game(game_agent *a, const game_pos *start, uint64_t game_seed);

/* Slot `move` was played from `before` (by anyone): mcts and az keep its subtree, Kalah's agents as
 * agent_notify; the other kinds ignore it. */
void game_agent_notify(game_agent *a, const game_pos *before, int move);

/* Chooses a legal slot (0..game_moves-1) for the player to move at p. AGENT_OK, AGENT_EOVER (p is over),
 * AGENT_EFAIL / AGENT_ENOMEM / AGENT_EFORFEIT (engine only: the game is lost) with the reason in
 * game_agent_error(a). */
int game_agent_choose(game_agent *a, const game_pos *p, int *move_out);

/* The message of the last failed choose ("" if none). */
const char *game_agent_error(const game_agent *a);

/* A time budget for every later choose (a match's time control, eval/game_match.h): soft_ms, the time the
 * agent aims to use, and hard_ms (>= soft_ms), the most it may (0, 0: none; the spec's own limits only).
 * Kalah's agents take soft_ms as agent_set_time (ab: iterative deepening stops); mcts and az stop their
 * simulations at soft_ms once a root child has a visit; an engine moves by
 * soft_ms or, without a move by then, by hard_ms, else it forfeits on time (engine_agent_set_time); the
 * other kinds (random, greedy, maxn, paranoid, the generic ab and solve, Kalah's solver) search as they
 * would, whatever the time. */
void game_agent_set_time(game_agent *a, int64_t soft_ms, int64_t hard_ms);

/* A flag (borrowed; NULL: none) that another thread, or a signal handler, sets non-zero to stop a running
 * game_agent_choose: it returns AGENT_ESTOPPED (no move) within milliseconds — Kalah's agents as
 * agent_set_abort, mcts and az between batches of leaves, maxn,
 * paranoid, ab and solve every 256 positions (eval/game_search.h). An outside engine is not stopped: it
 * answers within its time (eval/engine_agent.h). The flag must outlive the agent's searches. */
void game_agent_set_abort(game_agent *a, const int *flag);

/* Wall-clock milliseconds the last game_agent_choose took, less an engine's start (its process and
 * handshake: engine_agent_start_ms): the time a match's clock charges the move. */
double game_agent_last_ms(const game_agent *a);

/* 1 when the last choose's AGENT_EFORFEIT was a forfeit on time (an engine that sent no move in its
 * time), 0 otherwise. */
int game_agent_timed_out(const game_agent *a);

/* The spec of g's exact solver agent, for exact values (a match's adjudication and its openings' exact
 * values, eval/game_match.h), in buf (n bytes, 96 suffice), returned: Kalah's `solver` where Kalah's agents
 * play (game_agent_create routes the spec there), with a transposition table of tt_mb MiB and an endgame
 * database of up to endgame_seeds seeds (none under a sow limit; tt_mb <= 0 or endgame_seeds < 0: the
 * solver's defaults), else the game interface's `solve` (eval/game_search.h). NULL with the reason in err
 * (AGENT_ERRLEN) when g has no exact solver: not two players, no margin, or not solvable (gs_solvable:
 * positions repeat with no ply limit). */
const char *game_agent_exact_spec(const game *g, int tt_mb, int endgame_seeds, char *buf, size_t n, char *err);
/* game_agent_create of that spec. */
game_agent *game_agent_create_exact(const game *g, int tt_mb, int endgame_seeds, char *err);

/* 1 when a is an exact solver agent (Kalah's `solver` or the generic `solve`), whose game_agent_exact_value
 * works. */
int game_agent_is_exact(const game_agent *a);

/* The exact final margin of perfect play from the unfinished position p, seat 0's view (seeds), by the
 * exact solver agent a (game_agent_is_exact). Kalah's solver keeps its table, so a game it then plays from
 * p starts with this solve in it. AGENT_OK; AGENT_EINVAL (a is not an exact solver, or p is over);
 * AGENT_EFAIL / AGENT_ENOMEM / AGENT_ESTOPPED with the reason in game_agent_error(a). */
int game_agent_exact_value(game_agent *a, const game_pos *p, int *seat0_margin);

/* What the agent saw when it last chose a move (analysis displays: `sowzero serve`, `sowzero move`, the
 * engine protocol's analysis). Arrays are indexed by slot (0..game_moves-1) of the mover; entries of illegal
 * slots are 0. `have_*` says which fields the kind fills:
 *   mcts, az   visits (root child visit counts N), q (Q of each child for the mover, [-1, 1]), prior (the
 *              root's priors P: uniform for mcts, the policy head for az), value (Q of the root for the
 *              mover), nodes (N of the root)
 *   az sims=0  prior (the policy head's softmax over the legal slots) and value (the value head, [-1, 1])
 *   az at a root its database covers (tbroot): value (the sign of the exact margin)
 *   ab         value (seed margin for the mover at the last completed depth), depth, nodes, exact, pv
 *   solver     value (the exact final margin for the mover, exact = 1), nodes, pv; with
 *              game_agent_set_detail also values (the exact margin after every legal slot)
 *   every other kind: nothing (have_* all 0). */
#define GAME_AGENT_NO_VALUE (-32768) /* game_agent_stats.values of a slot that is not a legal move */
#define GAME_AGENT_MAX_PV 64
typedef struct {
    int valid;                       /* 1 after a successful choose (its position is `pos`) */
    game_pos pos;
    int have_visits, have_prior, have_value, have_pv, have_values;
    int visits[GAME_MAX_MOVES];
    float q[GAME_MAX_MOVES];
    float prior[GAME_MAX_MOVES];
    float value;                     /* mcts/az: expected result in [-1, 1]; ab, solver: seed margin */
    int depth, exact;
    uint64_t nodes;
    int pv[GAME_AGENT_MAX_PV], pv_len; /* slots, first entry = the move chosen */
    int values[GAME_MAX_MOVES];
} game_agent_stats;

/* Copies the statistics of the last successful game_agent_choose into *out (valid = 0 before any). */
void game_agent_last_stats(const game_agent *a, game_agent_stats *out);

/* detail = 1 asks choose to gather what costs extra: for an exact solver, the exact value of every legal
 * move (one more solve per move; other kinds ignore it). Default 0. */
void game_agent_set_detail(game_agent *a, int detail);

/* The settings an mcts or az agent searches with (agent_search_info, eval/agent.h: tb and tbroot are the
 * endgame database's). AGENT_OK; AGENT_EINVAL for every other kind (*out untouched). */
int game_agent_search_settings(const game_agent *a, agent_search_info *out);

#endif
