/* search_ranges.h — the one range of each search setting that a net's /search record keeps (nn/h5io.h),
 * shared by every place that takes one: the training config keys ([mcts] and [eval], train/config_keys.c),
 * the az and mcts agent spec keys (eval/agent_search.c, eval/game_agent.c, eval/agent.c), the /search
 * record's reader (nn/h5search.c, so `sowzero net` shows only what an agent accepts) and the search's own
 * check (mcts_config_check, selfplay/mcts_config.c). Constants, not a table, so that config_keys.c's static
 * initialisers can use them.
 *
 *   setting          config key               spec key         record field      range
 *   simulations      mcts.sims, eval.sims     sims             sims             1..SEARCH_SIMS_MAX
 *                                                                                (az sims=0, eval.sims 0:
 *                                                                                 the raw policy)
 *   leaves per call  mcts.leaves_per_game,    batch            batch            1..SEARCH_BATCH_MAX
 *                    eval.batch
 *   PUCT constant    mcts.c_puct              c_puct           c_puct           [SEARCH_C_PUCT_MIN, _MAX]
 *   FPU reduction    mcts.fpu_reduction       fpu              fpu_reduction    [0, SEARCH_FPU_MAX]
 *   margin utility   mcts.margin_utility      margin           margin_utility   [0, SEARCH_MARGIN_MAX]
 *   Gumbel m         mcts.gumbel_k            gumbel_k         gumbel_k         1..SEARCH_GUMBEL_K_MAX
 *   Gumbel c_visit   mcts.gumbel_c_visit      gumbel_c_visit   gumbel_c_visit   [0, SEARCH_GUMBEL_C_VISIT_MAX]
 *   Gumbel c_scale   mcts.gumbel_c_scale      gumbel_c_scale   gumbel_c_scale   [SEARCH_GUMBEL_C_SCALE_MIN, _MAX]
 */
#ifndef SOWZERO_NN_SEARCH_RANGES_H
#define SOWZERO_NN_SEARCH_RANGES_H

#define SEARCH_SIMS_MAX 10000000 /* with a time control an agent's search stops earlier */
#define SEARCH_BATCH_MAX 64
#define SEARCH_C_PUCT_MIN 1e-6
#define SEARCH_C_PUCT_MAX 100.0
#define SEARCH_FPU_MAX 2.0
#define SEARCH_MARGIN_MAX 1e6
#define SEARCH_GUMBEL_K_MAX 64
#define SEARCH_GUMBEL_C_VISIT_MAX 1e6
#define SEARCH_GUMBEL_C_SCALE_MIN 1e-12
#define SEARCH_GUMBEL_C_SCALE_MAX 1e6

#endif
