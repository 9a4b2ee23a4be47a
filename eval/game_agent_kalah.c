/* game_agent_kalah.c — Kalah's agents (eval/agent.h: alpha-beta with its table and endgame database, the
 * solver) as the agent set of Kalah's
 * games behind game_agent (eval/game_agent_impl.h): the one place the agents name the kind. */
#include <stdio.h>
#include <string.h>

#include "env/game_twoside.h" /* gt_to_kalah */
#include "eval/agent.h"
#include "eval/game_agent_impl.h"
#include "eval/perfect.h"

/* "kalah"'s game_pos holds a kalah_pos (env/game_kalah.c's layout: the cells, side, sow count). */
static kalah_pos as_kalah(const game_pos *p)
{
    kalah_pos k;
    memset(&k, 0, sizeof k); /* padding too: searches may hash the whole struct */
    gt_to_kalah(p, &k);
    return k;
}

static void *k_create(const char *spec, const game *g, char *err)
{
    return agent_create(spec, (const kalah_rules *)game_rules(g), err);
}


static void k_free(void *x) { agent_free(x); }
static const char *k_kind_name(const void *x) { return agent_kind(x); }
static const char *k_describe(const void *x) { return agent_describe(x); }
static const char *k_error(const void *x) { return agent_error(x); }

static void k_new_game(void *x, const game_pos *start, uint64_t game_seed)
{
    kalah_pos k = as_kalah(start);
    agent_new_game(x, &k, game_seed);
}

static void k_notify(void *x, const game_pos *before, int move)
{
    kalah_pos k = as_kalah(before);
    agent_notify(x, &k, move);
}

static int k_choose(void *x, const game_pos *p, int *move_out)
{
    kalah_pos k = as_kalah(p);
    return agent_choose(x, &k, move_out);
}

static void k_set_time(void *x, int64_t soft_ms) { agent_set_time(x, soft_ms); }
static void k_set_abort(void *x, const int *flag) { agent_set_abort(x, flag); }
static int k_is_exact(const void *x) { return !strcmp(agent_kind(x), "solver"); }

static int k_exact_value(void *x, const game_pos *p, int *seat0_margin)
{
    kalah_pos k = as_kalah(p);
    return perfect_value(x, &k, seat0_margin);
}

static void k_exact_spec(const game *g, int tt_mb, int endgame_seeds, char *buf, size_t n)
{
    if (((const kalah_rules *)game_rules(g))->max_sows > 0) /* the endgame database has no sowing count */
        snprintf(buf, n, tt_mb > 0 ? "solver:tt_mb=%d,endgame=0" : "solver:endgame=0", tt_mb);
    else if (tt_mb > 0 && endgame_seeds >= 0)
        snprintf(buf, n, "solver:tt_mb=%d,endgame=%d", tt_mb, endgame_seeds);
    else
        snprintf(buf, n, "solver");
}

/* A slot of "kalah" is the mover's relative pit: Kalah's statistics are the game's as they stand. */
static void k_stats(const void *x, game_agent_stats *out) { agent_last_stats(x, out); }

static void k_set_detail(void *x, int detail) { agent_set_detail(x, detail); }

/* mcts and az are the game interface's (game_agent_tree.c), for Kalah as for every game. */
static const char *const k_kinds[] = {"ab", "solver", NULL};

const ga_special ga_special_kalah = {
    .kind = &game_kind_kalah,
    .kinds = k_kinds,
    .create = k_create,
    .free = k_free,
    .kind_name = k_kind_name,
    .describe = k_describe,
    .error = k_error,
    .new_game = k_new_game,
    .notify = k_notify,
    .choose = k_choose,
    .set_time = k_set_time,
    .set_abort = k_set_abort,
    .is_exact = k_is_exact,
    .exact_value = k_exact_value,
    .exact_spec = k_exact_spec,
    .stats = k_stats,
    .set_detail = k_set_detail,
};

