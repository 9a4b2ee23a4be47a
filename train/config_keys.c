/* config_keys.c — every config key: section, name, type, field, range, documentation. The single source
 * the parser, the writer (effective config copies, documented templates) and the tests use. */
#include "train/config_keys.h"
#include "nn/search_ranges.h"

#include <float.h>
#include <stdint.h>

#define F(field) offsetof(cfg_config, field)
#define NOLIM 0, 0
#define I(sec, name, field, lo, hi, doc) {sec, name, CK_INT, F(field), lo, hi, 0, 0, NULL, 0, 0, doc}
#define L(sec, name, field, lo, hi, doc) {sec, name, CK_I64, F(field), lo, hi, 0, 0, NULL, 0, 0, doc}
#define D(sec, name, field, lo, hi, lo_open, hi_open, doc) \
    {sec, name, CK_DBL, F(field), lo, hi, lo_open, hi_open, NULL, 0, 0, doc}
#define B(sec, name, field, doc) {sec, name, CK_BOOL, F(field), 0, 1, 0, 0, NULL, 0, 0, doc}
#define E(sec, name, field, names, doc) {sec, name, CK_ENUM, F(field), 0, 0, 0, 0, names, 0, 0, doc}

static const char *const capture_names[] = {"opposite", "always", "none", NULL};
static const char *const end_names[] = {"either-empty", "mover-empty", NULL};
static const char *const opt_names[] = {"sgd", "adam", NULL};
static const char *const sched_names[] = {"constant", "step", "cosine", NULL};
static const char *const anneal_names[] = {"steps", "time", NULL}; /* CFG_ANNEAL_STEPS, CFG_ANNEAL_TIME */
static const char *const root_names[] = {"puct", "gumbel", NULL}; /* = MCTS_ROOT_PUCT, MCTS_ROOT_GUMBEL */
static const char *const gate_names[] = {"none", "sprt", NULL};

const char *const cfg_sections[] = {"rules", "net", "mcts", "selfplay", "train", "eval", "run", "mpi", NULL};

const cfg_key cfg_keys[] = {
    /* ---- [rules] (docs/design.md §1.1 Kalah, §1.2 Mancala básico) ---- */
    {"rules", "game", CK_STR, F(rules.game), 1, 0, 0, 0, NULL, CFG_NAME_LEN, 0,
     "The game: kalah (docs/design.md §1.1), basico (Mancala basico for 2-4 players, §1.2, a value head of "
     "one output per player), congklak, oware, or any registered kind (env/games.def). The keys below set "
     "those of its rules keys it has (a key it lacks is an error); a key not given keeps the game's own "
     "default. Other rules keys (oware's grand_slam) need rules.spec."},
    I("rules", "pits", rules.pits, 1, 64,
      "Pits per player (by default kalah and oware 6, congklak 7; basico: 6, or 7 with 2 players, 4 with 3-4 "
      "players)."),
    I("rules", "seeds", rules.seeds, 1, 255,
      "Seeds per pit at the start (kalah, congklak: 1..18 and 2*pits*seeds <= 255; basico: 4 or 3)."),
    I("rules", "players", rules.players, 2, 64, "Players, for a game with that key (basico: 2..4)."),
    B("rules", "full_ranking", rules.full_ranking,
      "basico: true ranks by finishing order; false: the first to finish wins and the others rank by "
      "fewest stones left (ties share a place)."),
    E("rules", "capture", rules.capture, capture_names,
      "kalah, congklak. opposite: a capture needs a non-empty opposite pit; always: an empty opposite pit "
      "still banks the capturing seed; none: no captures."),
    E("rules", "end", rules.end, end_names,
      "kalah, congklak. either-empty: the game ends as soon as either row is empty, both rows swept home; "
      "mover-empty: it ends when the player to move has no seeds, the other player sweeps."),
    I("rules", "max_sows", rules.max_sows, 0, 65535, "kalah, congklak, oware. 0 = no limit; else the game ends (with the "
      "sweep) after that many sowings in total."),
    {"rules", "spec", CK_STR, F(spec), 0, 0, 0, 0, NULL, GAME_SPEC_MAX, 0,
     "Instead of the keys above: the whole rules spec of any registered game (env/games.def), e.g. "
     "congklak:pits=7,seeds=7 or oware:grand_slam=nocapture,max_sows=300 (the game's keys as on the command "
     "line); then no other [rules] key may be given from the same place (empty: use the keys above). The "
     "command line wins: --set rules.spec replaces a file's game and keys, --set rules.game a file's spec, "
     "and --set of a key changes that key of a file's spec."},

    /* ---- [net] (nn/net.h) ---- */
    {"net", "hidden", CK_HIDDEN, F(net), 1, 4096, 0, 0, NULL, 0, 0,
     "Widths of the hidden layers, comma-separated (1 to 8 layers of 1..4096). Wider and deeper nets learn "
     "more but make every self-play move slower."},
    B("net", "residual", net.residual,
      "Add each hidden layer's input to its output when both have the same width (a one-layer residual "
      "block)."),
    B("net", "margin_head", net.margin_head,
      "An auxiliary head predicting the final store margin (weighted by train.margin_weight); it gives the "
      "trunk a denser signal than the win/draw/loss value alone. Games with a final margin only (kalah, "
      "and congklak and oware through rules.spec; basico: false)."),
    {"net", "activation", CK_STR, F(net.activation), 1, 0, 0, 0, NULL, sizeof(((nn_config *)0)->activation), 0,
     "Hidden activation; only relu is implemented."},
    I("net", "onehot_levels", net.onehot_levels, 0, NN_MAX_ONEHOT_LEVELS,
      "Games whose encoding starts with the pits' seed counts (kalah, and oware and congklak through "
      "rules.spec; not basico). 0 = off; K >= 2: the first layer also reads each pit's seed count as K one-hot features "
      "(count 0, 1, ..., K-2, and K-1 or more) beside the scaled counts (nn/net.h). The net then sees "
      "'this pit holds exactly k seeds' (an extra turn, a capture) directly instead of learning it from one "
      "slope per pit; the first layer grows by 2 * pits * K inputs."),

    /* ---- [mcts] (selfplay/mcts.h): the self-play search ---- */
    I("mcts", "sims", mcts.sims, 1, SEARCH_SIMS_MAX,
      "New simulations per self-play move (visits kept from the previous move's subtree come on top). The "
      "main quality/speed knob: self-play time grows linearly with it."),
    D("mcts", "c_puct", mcts.c_puct, SEARCH_C_PUCT_MIN, SEARCH_C_PUCT_MAX, 0, 0, "PUCT exploration constant: higher explores more."),
    D("mcts", "fpu_reduction", mcts.fpu_reduction, 0, SEARCH_FPU_MAX, 0, 0,
      "First-play urgency: an unvisited move is valued at its parent's Q minus this."),
    D("mcts", "dirichlet_alpha", mcts.dirichlet_alpha, 0, 1000, 1, 0,
      "Concentration of the Dirichlet noise added to the root priors (about 10 / typical number of legal "
      "moves)."),
    D("mcts", "dirichlet_eps", mcts.dirichlet_eps, 0, 1, 0, 0,
      "Weight of the root noise; 0 turns it off. Noise makes self-play try moves the net does not like yet."),
    I("mcts", "temp_moves", mcts.temp_moves, 0, 100000,
      "Plies from the start of each self-play game whose move is sampled in proportion to visits^(1/"
      "temperature) rather than the most visited; gives the replay buffer varied openings."),
    D("mcts", "temperature", mcts.temperature, 0, 100, 1, 0, "Temperature of those plies."),
    I("mcts", "leaves_per_game", mcts.leaves_per_game, 1, SEARCH_BATCH_MAX,
      "Leaves one game may add to a net batch (more than 1 uses virtual loss): bigger batches for fewer "
      "games in flight, at some cost in search quality."),
    B("mcts", "solver", mcts.solver,
      "MCTS-Solver: propagate proven wins/losses from finished positions, stop when the root is proven. "
      "With margin_utility > 0: score proofs instead (exact final margins; a node is exact when all its "
      "children are, a winning child alone proves nothing; selfplay/mcts.h, selfplay/mcts_mp.h)."),
    B("mcts", "reuse_tree", mcts.reuse_tree, "Keep the subtree of the move played for the next search."),
    E("mcts", "root", mcts.root, root_names,
      "puct: the root chooses like every node (PUCT) and the policy target is the visit counts; gumbel: "
      "Gumbel AlphaZero's root (Danihelka et al. 2022: Gumbel top-k, sequential halving over mcts.sims, the "
      "move the halving keeps, the completed-Q target softmax(logits + sigma(q)); selfplay/mcts_root.h). "
      "gumbel ignores dirichlet_*, temp_moves and reuse_tree at the root (g is its exploration)."),
    I("mcts", "gumbel_k", mcts.gumbel_k, 1, SEARCH_GUMBEL_K_MAX, "gumbel: m, the root moves considered (the top m of g + logits)."),
    D("mcts", "gumbel_c_visit", mcts.gumbel_c_visit, 0, SEARCH_GUMBEL_C_VISIT_MAX, 0, 0,
      "gumbel: c_visit of sigma(q) = (c_visit + max visits) * c_scale * q (paper: 50)."),
    D("mcts", "gumbel_c_scale", mcts.gumbel_c_scale, SEARCH_GUMBEL_C_SCALE_MIN, SEARCH_GUMBEL_C_SCALE_MAX, 0, 0, "gumbel: c_scale of sigma (paper: 1)."),
    D("mcts", "gumbel_scale", mcts.gumbel_scale, 0, 1e6, 0, 0,
      "gumbel: scale of the Gumbel noise in self-play (1 = the paper; 0 = deterministic). Evaluation "
      "searches always use 0."),
    D("mcts", "forced_playouts_k", mcts.forced_playouts_k, 0, 1e6, 0, 0,
      "KataGo forced playouts (Wu 2019, 3.2): a root move gets at least sqrt(k * prior * root visits) "
      "visits in self-play, and those are pruned from the policy target; 0 = off, KataGo uses 2. Needs "
      "root = puct."),
    D("mcts", "margin_utility", mcts.margin_utility, 0, SEARCH_MARGIN_MAX, 0, 0,
      "Weight w of the final store margin in the value the search backs up (KataGo's score utility, Wu "
      "2019, 4): (value + w * margin) / (1 + w), the margin from the margin head at leaves and exact at "
      "finished positions, scaled by the game's total seeds. Breaks ties between wins towards larger margins; "
      "needs a two-player game with a final margin and net.margin_head. 0 = off. Evaluation searches use it "
      "too. With solver, proofs are then exact margins (score proofs)."),
    I("mcts", "tablebase_seeds", mcts.tablebase_seeds, 0, 127,
      "Games with an endgame database (kalah): tablebase leaves. A search position (not the root) with at most this many seeds in the "
      "pits is valued exactly from the endgame database (win/draw/loss of its perfect-play margin) instead "
      "of by the net, and with solver it is a proven node. The database is built once at the start of the "
      "run (its time counts in the run's wall time) and shared by all threads; Kalah(6,4): 16 seeds 33 MB "
      "in seconds, 20 seeds 226 MB in about a minute on 2 threads. 0 = off."),

    /* ---- [selfplay] (selfplay/selfplay.h) ---- */
    I("selfplay", "threads", selfplay.threads, 1, 256,
      "Self-play worker threads; set it to the number of cores (the net calls use one BLAS thread each)."),
    I("selfplay", "games_per_thread", selfplay.games_per_thread, 1, 4096,
      "Games each worker runs at once; their leaves share one net call, so this is the forward batch size. "
      "Keep games_per_thread * threads <= games."),
    I("selfplay", "games", selfplay.games, 1, 100000000, "Self-play games per iteration."),
    I("selfplay", "max_moves", selfplay.max_moves, 1, 1000000,
      "Plies after which an unfinished game is scored as if it ended there (a safety net): kalah by "
      "sweeping; basico by the first-finisher rule (the rest ranked by fewest stones left)."),
    B("selfplay", "pi_visits", selfplay.pi_visits,
      "Policy target: 0 = visit counts sharpened like the move choice (one-hot after temp_moves), 1 = plain "
      "visit shares at every ply."),
    D("selfplay", "pi_temperature", selfplay.pi_temperature, 0, 100, 1, 0,
      "With pi_visits = 1: the policy target is N^(1/T) over the legal moves, normalised (N the root's visit "
      "counts). 1 = the plain visit shares; below 1 sharpens the target toward the most visited move, above "
      "1 flattens it."),
    D("selfplay", "full_sims_prob", selfplay.full_sims_prob, 0, 1, 0, 0,
      "Playout cap randomization (KataGo, Wu 2019, 3.1): the probability that a decision gets the full "
      "mcts.sims search and trains the policy; the others get fast_sims simulations without noise and train "
      "the value only. 1 = off."),
    I("selfplay", "fast_sims", selfplay.fast_sims, 0, 100000000,
      "Simulations of a fast decision (full_sims_prob < 1); must be >= 1 then."),
    B("selfplay", "rescore", selfplay.rescore,
      "Games with an endgame database (kalah): a sample whose position has at most mcts.tablebase_seeds seeds in the pits gets its value "
      "and margin targets from the exact perfect-play margin instead of the game's outcome (needs "
      "mcts.tablebase_seeds >= 1)."),
    B("selfplay", "rescore_policy", selfplay.rescore_policy,
      "With rescore: such a sample's policy target is also replaced, by the uniform distribution "
      "over its optimal moves (exact margins) instead of the search's visit counts."),
    I("selfplay", "opening_plies", selfplay.opening_plies, 0, 100,
      "Each game starts after k random sowings (uniform over the legal moves), k uniform in "
      "0..opening_plies, which are not training samples; they put lopsided positions into the replay buffer "
      "(KataGo's random openings). 0 = every game from the start position."),
    I("selfplay", "opening_sims", selfplay.opening_sims, 0, 100000000,
      "A full decision whose position has at least opening_seeds seeds in the pits gets this many "
      "simulations instead of mcts.sims: better policy targets where the raw policy is weakest (the most "
      "seeds in play). 0 = off."),
    I("selfplay", "opening_seeds", selfplay.opening_seeds, 1, 255,
      "With opening_sims: the fewest seeds in the pits (every row; the seeds not yet in a store or captured) "
      "that make a position an opening one; 33 = the opening phase of the solved position sets (48-33 seeds "
      "in Kalah(6,4) and Oware)."),
    D("selfplay", "surprise_weight", selfplay.surprise_weight, 0, 1, 0, 0,
      "Policy surprise weighting (KataGo). When a game ends, each full decision is written to "
      "the replay buffer with the frequency weight (1 - s) + s * n * KL / (sum of the game's n KL), KL the "
      "divergence from the net's prior at the root to the policy target written: floor(w) copies and one "
      "more with probability w - floor(w), so positions where the search overturned the net are trained on "
      "more often and a game still writes n samples on average. 0 = off; KataGo uses 0.5."),
    D("selfplay", "q_ratio", selfplay.q_ratio, 0, 1, 0, 0,
      "The share of the search's root value Q in each sample's value target: (1 - r) * z + r * Q, z the "
      "game's outcome (Lc0's q_ratio). Q is what the search saw at that decision, far less noisy than one "
      "game's outcome in a long game; a rescored sample keeps its exact target. Needs mcts.margin_utility = 0. "
      "0 = the outcome only."),
    {"selfplay", "opponents", CK_OPPONENTS, F(league), 0, CFG_MAX_OPPONENTS, 0, 0, NULL, 0, 0,
     "Fixed opponents in self-play (a league, as AlphaStar's and OpenAI Five's): agent specs as "
     "eval.opponents. In opponent_share of the games one of them (uniform) plays k seats (k uniform in "
     "1..players-1) and the search the others; only the search's decisions are samples, with the mixed "
     "game's outcome as their value target. In games of three or more players the self-play field "
     "co-adapts (copies of one net play a game no outside opponent plays); this puts other fields' "
     "positions and outcomes in the replay buffer. Empty = pure self-play."},
    D("selfplay", "opponent_share", league.share, 0, 1, 0, 0,
      "With opponents: the share of self-play games that have one (drawn per game)."),

    /* ---- [train] (nn/optim.h, nn/net.h loss) ---- */
    E("train", "optimizer", optim.kind, opt_names, "sgd (with momentum) or adam."),
    D("train", "lr", optim.sched.lr, 0, 10, 1, 0, "Base learning rate."),
    E("train", "lr_schedule", optim.sched.kind, sched_names,
      "constant; step: lr * lr_gamma^floor(step / lr_step_size); cosine: from lr down to lr_min over "
      "lr_total_steps."),
    D("train", "lr_gamma", optim.sched.gamma, 0, 1, 1, 0, "step schedule: factor per lr_step_size steps."),
    L("train", "lr_step_size", optim.sched.step_size, 1, (double)INT64_MAX, "step schedule: steps between decays."),
    L("train", "lr_total_steps", train.lr_total_steps, 0, (double)INT64_MAX,
      "cosine schedule: length of the decay in steps; 0 = the whole run (iterations * steps_per_iteration)."),
    E("train", "lr_anneal_by", train.lr_anneal_by, anneal_names,
      "cosine schedule: steps = the decay over lr_total_steps (deterministic); time = over run.time_limit: "
      "before each iteration the decay's length is re-planned as the steps taken plus steps_per_iteration "
      "for every iteration that still fits the budget at the run's pace so far (at most up to "
      "run.iterations), so that the rate reaches lr_min at the last iteration the limit allows on any "
      "machine (budgeted training: Li, Yumer & Ramanan, ICLR 2020). Needs run.time_limit > 0 and "
      "lr_total_steps = 0; the rates then depend on the machine's speed."),
    D("train", "lr_min", optim.sched.lr_min, 0, 10, 0, 0, "cosine schedule: final learning rate (<= lr)."),
    D("train", "momentum", optim.momentum, 0, 1, 0, 1, "sgd: momentum."),
    D("train", "beta1", optim.beta1, 0, 1, 0, 1, "adam: first-moment decay."),
    D("train", "beta2", optim.beta2, 0, 1, 0, 1, "adam: second-moment decay."),
    D("train", "eps", optim.eps, 0, 1, 1, 0, "adam: denominator epsilon."),
    D("train", "policy_weight", loss.policy_w, 0, 1000, 0, 0, "Weight of the policy cross-entropy."),
    D("train", "value_weight", loss.value_w, 0, 1000, 0, 0, "Weight of the value squared error."),
    D("train", "margin_weight", loss.margin_w, 0, 1000, 0, 0,
      "Weight of the margin head's squared error (target: final margin / total seeds)."),
    D("train", "l2", loss.l2, 0, 1, 0, 0, "L2 penalty on the weight matrices (sum of squares)."),
    I("train", "batch_size", train.batch_size, 1, 65536, "Samples per SGD step."),
    I("train", "steps_per_iteration", train.steps_per_iteration, 0, 1000000,
      "SGD steps after each iteration's self-play. batch_size * steps / new samples is how often each "
      "sample is reused."),
    I("train", "replay_window", train.replay_window, 1, 100000000,
      "Newest samples kept for training; older ones are dropped. Small windows follow the improving net "
      "closely, big ones overfit less."),
    I("train", "min_replay", train.min_replay, 0, 100000000,
      "Samples required before the first SGD step (<= replay_window)."),
    I("train", "threads", train.threads, 1, 256, "OpenBLAS threads for the SGD steps."),
    B("train", "overlap", train.overlap,
      "1: the next iteration's self-play runs during this iteration's SGD and evaluation, playing with the "
      "net from before this SGD (its games are one iteration older than the net they train, as KataGo's and "
      "Leela's self-play runs behind their learner), so no core waits for the other phase; SGD then runs "
      "on one BLAS thread beside selfplay.threads self-play workers (train.threads must be 1). Runs stay "
      "deterministic and resume exactly. 0: self-play, SGD and evaluation one after another."),

    /* ---- [eval] ---- */
    {"eval", "opponents", CK_OPPONENTS, F(eval), 0, CFG_MAX_OPPONENTS, 0, 0, NULL, 0, 0,
     "Opponents of the evaluation matches: agent specs (docs/design.md §2: random, greedy, ab:depth=N, "
     "mcts:sims=N, az:net=FILE; basico: random, greedy, maxn:depth=N, paranoid:depth=N, mcts:sims=N) "
     "separated by commas or spaces (a key=value after a spec belongs to it); empty = no matches (with "
     "eval.positions the accuracy is still measured). Without eval.positions, best.h5 is the net with the "
     "best mean score over them (basico: mean rank score, the trained agent in one seat and the opponent in "
     "all the others). The default, ab:depth=4, needs two players and a margin: other games get greedy."},
    I("eval", "games", eval.games, 2, 100000,
      "Games per opponent at each evaluation: colour-swapped pairs from random openings, so even (basico: "
      "a multiple of players, the trained agent taking each seat once per group; unset, the default 20 "
      "becomes the next multiple, 21 for three players)."),
    I("eval", "final_games", eval.final_games, 0, 100000,
      "Games per opponent after the last iteration (0 = games); the run's headline result."),
    I("eval", "every", eval.every, 0, 1000000, "Evaluate after every k-th iteration; 0 = only after the last."),
    I("eval", "threads", eval.threads, 1, 256, "Match worker threads."),
    I("eval", "sims", eval.sims, 0, SEARCH_SIMS_MAX,
      "PUCT simulations per move of the trained agent in evaluation games (no noise, most visited move); 0 "
      "plays the raw policy."),
    I("eval", "batch", eval.batch, 1, SEARCH_BATCH_MAX, "Leaves per net call of the trained agent's search."),
    I("eval", "tablebase_seeds", eval.tablebase_seeds, 0, 127,
      "Games with an endgame database (kalah): the trained agent's search in evaluation games and accuracy "
      "uses tablebase leaves of this "
      "many seeds (az:...,tb=N; the raw policy never does); the database is shared with mcts.tablebase_seeds "
      "and the solver. 0 = off."),
    I("eval", "opening_plies", eval.opening_plies, 0, 20,
      "Random sowings from the start before each pair of games, so that deterministic agents do not replay "
      "one game."),
    {"eval", "positions", CK_STR, F(eval.positions), 0, 0, 0, 0, NULL, CFG_PATH_LEN, 0,
     "Two-player games with a margin: a solved position set (JSON Lines, eval/posset.h, eval/gposset.h; "
     "relative to the working directory) of the run's rules, e.g. data/oware-6-4.positions.jsonl. Each evaluation then also reports the accuracy against perfect play (optimal-move "
     "rate, mean regret in seeds) of the raw policy (sims = 0) and of the search (eval.sims), and best.h5 "
     "becomes the net with the best search accuracy (ties: lower mean regret) instead of the best mean "
     "score. Empty = none."},
    E("eval", "gate", eval.gate, gate_names,
      "Two-player games. none: self-play always uses the newest net; sprt: a trained net replaces the self-play net "
      "only when a sequential test (GSPRT on colour-swapped pairs, eval/sprt.h; fishtest, Leela Zero) of it "
      "against the self-play net accepts Elo >= gate_elo1 over gate_elo0 within gate_games games."),
    I("eval", "gate_every", eval.gate_every, 1, 1000000, "With gate = sprt: test after every k-th iteration."),
    D("eval", "gate_elo0", eval.gate_elo0, -1000, 1000, 0, 0,
      "The SPRT's H0: the candidate is this many Elo above the self-play net (logistic Elo)."),
    D("eval", "gate_elo1", eval.gate_elo1, -1000, 1000, 0, 0,
      "The SPRT's H1 (> gate_elo0): accepting it replaces the self-play net. 35 Elo is a 55% score, "
      "AlphaGo Zero's gate. A pair the candidate wins twice adds log(s(elo1) / s(elo0)) to the LLR (0.096 for "
      "0..35), so even a much stronger net needs about 31 won pairs to pass at alpha = 0.05."),
    D("eval", "gate_alpha", eval.gate_alpha, 0, 0.5, 1, 0,
      "The SPRT's false-positive rate (H1 accepted when H0 holds)."),
    D("eval", "gate_beta", eval.gate_beta, 0, 0.5, 1, 0,
      "The SPRT's false-negative rate (H0 accepted when H1 holds)."),
    I("eval", "gate_games", eval.gate_games, 2, 100000,
      "Game cap of one test (even): reaching it without a decision keeps the self-play net. The "
      "games are az agents at eval.sims from random openings (eval.opening_plies), eval.threads pairs at a time."),

    /* ---- [run] ---- */
    {"run", "seed", CK_U64, F(run.seed), NOLIM, 0, 0, NULL, 0, 0,
     "Master seed: the net's initialisation, self-play, replay sampling and evaluation openings follow from "
     "it."},
    {"run", "name", CK_NAME, F(run.name), 0, 0, 0, 0, NULL, CFG_NAME_LEN, 0,
     "Run name (letters, digits, _ . -); the default run directory is <dir>/<name>-<date>-<time>. Empty = "
     "the config file's name."},
    {"run", "iterations", CK_I64, F(run.iterations), 1, 100000000, 0, 0, NULL, 0, 1,
     "Iterations (self-play, then SGD, then maybe evaluation and checkpoint). Required."},
    I("run", "checkpoint_every", run.checkpoint_every, 1, 1000000,
      "Write a checkpoint after every k-th iteration (and after the last, on Ctrl-C, and when an evaluation "
      "finds a new best net: best.h5 is only written from a checkpoint)."),
    I("run", "keep_checkpoints", run.keep_checkpoints, 1, 1000000, "Newest checkpoints to keep."),
    {"run", "dir", CK_STR, F(run.dir), 1, 0, 0, 0, NULL, CFG_PATH_LEN, 0,
     "Parent directory of default run directories (--run-dir overrides the whole path)."},
    D("run", "time_limit", run.time_limit, 0, 1e6, 0, 0,
      "Wall-clock budget of the whole run in minutes (a resumed run counts its earlier sessions), 0 = none. "
      "After each iteration's SGD the run ends there, with the final evaluation and checkpoint, when another "
      "iteration would not fit: the mean iteration time so far plus the evaluations' last measured time "
      "(scaled to final_games) must fit in what is left. Evaluate before the end (eval.every) so that the "
      "final evaluation's time is known."),

    /* ---- [mpi] (train/mpi_train.h): only under mpirun with 2+ ranks ---- */
    I("mpi", "max_staleness", mpi.max_staleness, 0, 1000000,
      "Under mpirun: samples made by a net more than this many iterations older than the learner's current "
      "net are dropped (counted in mpi.csv); 0 keeps only the current net's. Larger keeps slow workers "
      "useful, smaller keeps the data on-policy."),
    I("mpi", "samples_per_message", mpi.samples_per_message, 1, 1000000,
      "Under mpirun: samples per worker-to-learner message (94 bytes each for Kalah 6x4, train/mpi_wire.h); larger "
      "messages cost the learner fewer receives."),
    I("mpi", "worker_games", mpi.worker_games, 0, 100000000,
      "Under mpirun: games a worker plays before it looks for a newer net again; 0 = selfplay.threads * "
      "selfplay.games_per_thread (one batch of games per worker thread)."),
    B("mpi", "flood", mpi.flood,
      "Benchmark only: workers play one round, then resend its samples (tagged with the newest net) as "
      "fast as the learner takes them, to measure the learner's ingestion capacity (samples/s in "
      "mpi.csv). Never for real training."),
};

const int cfg_nkeys = (int)(sizeof cfg_keys / sizeof cfg_keys[0]);

_Static_assert(sizeof cfg_keys / sizeof cfg_keys[0] <= CFG_MAX_KEYS, "raise CFG_MAX_KEYS");
_Static_assert(sizeof(nn_opt_kind) == sizeof(int) && sizeof(nn_lr_kind) == sizeof(int),
               "CK_ENUM fields are accessed as int");
