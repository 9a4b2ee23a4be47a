/* mcts.c — Kalah's PUCT tree (mcts.h): the two-player tree of mcts_tree_impl.h compiled for the packed
 * kalah_pos, with the endgame database's oracle (mcts_tb.h) behind its tablebase leaves. */
#include "selfplay/mcts_impl.h"
#include "selfplay/mcts_tb.h"

#include <stdio.h>

/* tablebase_seeds > 0 needs the oracle the caller built, covering at least that many seeds. */
static int kalah_tb_check(const mcts_config *c, char *err)
{
    if (c->tablebase_seeds > 0 && (!c->tablebase || !c->tablebase->probe)) {
        if (err)
            snprintf(err, MCTS_ERRLEN, "mcts.tablebase_seeds = %d needs an endgame database (none was given to the search)",
                     c->tablebase_seeds);
        return MCTS_EINVAL;
    }
    if (c->tablebase_seeds > 0 && c->tablebase->max_seeds < c->tablebase_seeds) {
        if (err)
            snprintf(err, MCTS_ERRLEN, "mcts.tablebase_seeds = %d, but the endgame database covers only %d seeds",
                     c->tablebase_seeds, c->tablebase->max_seeds);
        return MCTS_EINVAL;
    }
    return MCTS_OK;
}

/* The final margin for South of finished position p: its store and pits (swept) minus North's. */
static inline int kalah_final_margin(const kalah_rules *r, const kalah_pos *p)
{
    int m = r->pits, d = 0;
    for (int i = 0; i <= m; i++)
        d += p->cell[i] - p->cell[m + 1 + i];
    return d;
}

#define MT_TREE mcts_tree
#define MT_TREE_TAG mcts_tree
#define MT_MANY mcts_many
#define MT(name) mcts_##name
#define MT_POS kalah_pos
#define MT_RULES_T kalah_rules
#define MT_RULES_ARG const kalah_rules *
#define MT_RULES_CHECK(r, cfg, err) ((r) && kalah_rules_check((r), (err)) == KALAH_OK ? MCTS_OK : MCTS_EINVAL)
#define MT_RULES_SET(t, r) ((t)->r = *(r))
#define MT_MAX_MOVES KALAH_MAX_PITS
#define MT_MOVES(t) ((t)->r.pits)
#define MT_SIDE(p) ((p)->side)
#define MT_START(t, p) kalah_start(&(t)->r, (p))
#define MT_SOW(t, p, m) kalah_sow(&(t)->r, (p), (m), NULL)
#define MT_LEGAL(t, p) kalah_legal(&(t)->r, (p))
#define MT_WINNER(t, p) kalah_winner(&(t)->r, (p))
#define MT_MARGIN(t, p) kalah_final_margin(&(t)->r, (p))
#define MT_MARGIN_SCALE(t) (2.0 * (t)->r.pits * (t)->r.seeds)
#define MT_TB_CHECK(t, c, err) ((void)(t), kalah_tb_check((c), (err)))
#define MT_TB_PROBE(t, p, m)                                                                                       \
    (mcts_tb_seeds_in_pits(&(t)->r, (p)) <= (t)->cfg.tablebase_seeds                                              \
         ? (*(m) = (t)->cfg.tablebase->probe((t)->cfg.tablebase, (p)), 1)                                         \
         : 0)
#include "selfplay/mcts_tree_impl.h"
