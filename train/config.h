/* config.h — the training config: an INI file (libinih) → one typed struct, strictly validated
 * (docs/design.md §3.4).
 *
 * Sections and what they fill (every key, its type, default and range: the table in config.c, printed with
 * documentation by cfg_write(..., CFG_WRITE_DOCS); the example configs in configs/ document each key in place):
 *   [rules]     cfg_rules + spec       (one rules spec of any registered game, env/game.h: whole as spec, or
 *                                       the game's name and those of its rules keys a config gives)
 *   [net]       nn_config              (hidden = 128,128 widths, residual, margin_head, activation);
 *                                       input_dim, n_policy and n_value follow from the game (its encoding,
 *                                       moves and value outputs; no margin head for a game without margin)
 *   [mcts]      mcts_config            (the self-play search; key = field name, selfplay/mcts.h)
 *   [selfplay]  selfplay_config        (threads, games per iteration, ...; selfplay/selfplay.h)
 *   [train]     nn_optim_config + nn_loss_weights + cfg_train (batch, steps, replay window, ...)
 *   [eval]      cfg_eval               (opponent agent specs, games, how often, the trained agent's search)
 *   [run]       cfg_run                (seed, name, iterations, checkpoints, where runs go)
 *   [mpi]       cfg_mpi                (self-play across machines under mpirun, train/mpi_train.h)
 *
 * Syntax: "key = value" lines under "[section]" headers; whole-line comments start with '#' or ';', and a
 * comment may follow a value after whitespace (" ; ..." or " # ..."). Lines are at most CFG_MAX_LINE
 * characters (comment lines excepted).
 *
 * Strictness (every error names the place: "FILE:LINE: section.key: message", or "--set section.key=...:
 * message" for overrides): an unknown section, an unknown key, a key outside any section, a key given twice,
 * a value that does not parse, a value out of range, a missing required key (only run.iterations is
 * required: how long to train is the one thing a config must say), and the cross-field checks of
 * cfg_finish (the modules' own check functions, agent specs that do not parse, ...).
 *
 * Usage: cfg_defaults → cfg_load (file) → cfg_set (each --set) → cfg_finish (required keys, derived
 * fields, cross-checks). Library code: nothing is printed; every function returns 0 or -1 with a message in
 * err (CFG_ERRLEN bytes).
 */
#ifndef SOWZERO_TRAIN_CONFIG_H
#define SOWZERO_TRAIN_CONFIG_H

#include "env/status.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "env/basico.h"
#include "env/game.h"
#include "env/kalah.h"
#include "nn/net.h"
#include "nn/optim.h"
#include "selfplay/mcts.h"
#include "selfplay/selfplay.h"
#include "train/metrics.h"

#define CFG_ERRLEN SZ_ERRLEN
#define CFG_MAX_LINE 196                        /* longest non-comment line (libinih's buffer is 200) */
#define CFG_MAX_OPPONENTS TRAIN_MAX_OPPONENTS
#define CFG_SPEC_LEN 192
#define CFG_NAME_LEN 64
#define CFG_PATH_LEN 1024
#define CFG_MAX_KEYS 112

/* [train]: what the optimiser structs do not hold. */
typedef struct {
    int batch_size;           /* samples per SGD step, 1..65536 */
    int steps_per_iteration;  /* SGD steps after each iteration's self-play, 0..1000000 */
    int replay_window;        /* newest samples the replay buffer keeps, 1..100000000 */
    int min_replay;           /* samples the buffer must hold before any SGD step, 0..replay_window */
    int threads;              /* OpenBLAS threads for the SGD steps, 1..256 */
    int overlap;              /* 1: the next iteration's self-play runs beside this one's SGD and evaluation,
                               * with the net from before this SGD (train/train.c); needs threads = 1 */
    int64_t lr_total_steps;   /* cosine half-cycle in steps; 0 = iterations × steps_per_iteration */
    int lr_anneal_by;         /* CFG_ANNEAL_STEPS: the cosine over lr_total_steps; CFG_ANNEAL_TIME: over
                               * run.time_limit, re-planned each iteration (train_time_anneal_steps) */
} cfg_train;

enum { CFG_ANNEAL_STEPS = 0, CFG_ANNEAL_TIME = 1 };

/* [eval]: the evaluation matches of the trained agent against fixed opponents. */
typedef struct {
    int n_opponents;                              /* 0..CFG_MAX_OPPONENTS (0: never evaluate) */
    char opponents[CFG_MAX_OPPONENTS][CFG_SPEC_LEN]; /* agent specs (eval/agent.h) */
    int games;                /* games per opponent at each evaluation, even, 2..100000 (colour-swapped) */
    int final_games;          /* games per opponent in the final evaluation; 0 = games; else even >= 2 */
    int every;                /* evaluate after every `every`-th iteration, 0 = only after the last */
    int threads;              /* match worker threads, 1..256 */
    int sims;                 /* PUCT simulations per move of the trained agent (az agent), 0..100000 */
    int batch;                /* leaves per net call of the az agent, 1..64 */
    int tablebase_seeds;      /* the az agent's tb=N (tablebase leaves, eval/agent.h), 0..127; 0 = off */
    int opening_plies;        /* random sowings before each pair of games, 0..20 */
    char positions[CFG_PATH_LEN]; /* solved position set (eval/gposset.h) for accuracy, "" =
                                   * none (two-player games with a margin) */
    int gate;                 /* CFG_GATE_NONE / CFG_GATE_SPRT (kalah only; train.h "Gating") */
    int gate_every;           /* gate after every k-th iteration, 1..1000000 */
    double gate_elo0, gate_elo1; /* the SPRT's hypotheses (Elo of the candidate over the self-play net), elo0 < elo1 */
    double gate_alpha, gate_beta; /* its error rates, (0, 0.5] */
    int gate_games;           /* game cap of one test, even, 2..100000 */
} cfg_eval;

enum { CFG_GATE_NONE = 0, CFG_GATE_SPRT = 1 };

/* selfplay.opponents, selfplay.opponent_share: fixed opponents in a share of the self-play games (the
 * league of selfplay/game_selfplay.h). */
typedef struct {
    int n_opponents;                                 /* 0..CFG_MAX_OPPONENTS (0: none) */
    char opponents[CFG_MAX_OPPONENTS][CFG_SPEC_LEN]; /* agent specs (eval/game_agent.h) */
    double share;                                    /* games with an opponent, [0, 1] */
} cfg_league;

/* [run]. */
typedef struct {
    uint64_t seed;            /* master seed of everything random (self-play, sampling, init, openings) */
    char name[CFG_NAME_LEN];  /* run name ([A-Za-z0-9_.-]); "" = the config file's name without .ini */
    int64_t iterations;       /* self-play + train iterations of the run, >= 1 (required) */
    int checkpoint_every;     /* write a checkpoint after every k-th iteration (and the last), >= 1 */
    int keep_checkpoints;     /* newest checkpoints kept in checkpoints/, >= 1 */
    char dir[CFG_PATH_LEN];   /* parent of default run directories ("runs") */
    double time_limit;        /* wall-clock budget of the whole run in minutes, 0 = none (train.h) */
} cfg_run;

/* [mpi]: distributed self-play (train/mpi_train.h); used only when sowzero train runs under
 * mpirun with two or more ranks. */
typedef struct {
    int max_staleness;        /* samples made by a net more than this many iterations older than the
                                 learner's are dropped, 0..1000000 (0: only the current net's) */
    int samples_per_message;  /* samples per worker -> learner message, 1..1000000 */
    int worker_games;         /* games a worker plays between looks for a newer net, 0..100000000
                                 (0 = selfplay.threads x selfplay.games_per_thread) */
    int flood;                /* benchmark: workers resend their first round's samples as fast as the
                                 learner takes them, without playing (the learner's ingestion capacity) */
} cfg_mpi;

/* [rules]: the game a run trains, as one rules spec (env/game.h). Either rules.spec gives it whole, or
 * rules.game names a registered game kind and the keys below give those of its rules keys it has (the
 * kind's rule_keys; a key it lacks is an error, a key not given keeps the game's default). cfg_rules_spec
 * composes the spec; cfg_finish checks it and fills every key the game has with its effective value. */
typedef struct {
    char game[CFG_NAME_LEN]; /* rules.game: a game kind's name, e.g. "kalah" */
    int pits, seeds;          /* as the game's rules keys of those names */
    int players;              /* e.g. basico: 2..4 */
    int full_ranking;         /* e.g. basico: 0/1 */
    int capture, end;         /* e.g. kalah: the index of the value in the key's names */
    int max_sows;             /* e.g. kalah, oware: 0 = no limit */
} cfg_rules;

typedef struct {
    cfg_rules rules;          /* the [rules] keys besides spec */
    char spec[GAME_SPEC_MAX]; /* rules.spec as given ("" = the keys above) */
    nn_config net;            /* input_dim, n_policy: filled by cfg_finish from the rules */
    mcts_config mcts;
    selfplay_config selfplay;
    cfg_league league;        /* [selfplay] opponents, opponent_share */
    nn_optim_config optim;    /* sched.total_steps: filled by cfg_finish (see cfg_train.lr_total_steps) */
    nn_loss_weights loss;
    cfg_train train;
    cfg_eval eval;
    cfg_run run;
    cfg_mpi mpi;

    /* Bookkeeping of where each key's value came from (indices into the key table, CFG_MAX_KEYS). */
    char path[CFG_PATH_LEN];  /* the config file loaded ("" before cfg_load) */
    int line[CFG_MAX_KEYS];   /* > 0: file line; CFG_FROM_SET: a --set override; 0: default */
} cfg_config;

#define CFG_FROM_SET (-1)

/* Every key at its default (rules.game = kalah with its own defaults, nn_config_default, mcts_config_default,
 * selfplay_config_default, nn_optim_config_default, nn_loss_weights_default; the [train] [eval] [run]
 * defaults are in the key table). */
void cfg_defaults(cfg_config *c);

/* Reads path into c (keys not in the file keep their values). -1 with "PATH: cannot open: reason" or
 * "PATH:LINE: ..." in err. */
int cfg_load(cfg_config *c, const char *path, char *err);

/* Applies one override "section.key=value" (whitespace around key and value allowed), validated exactly
 * as a file line. -1 with "--set ASSIGNMENT: message" in err. */
int cfg_set(cfg_config *c, const char *assignment, char *err);

/* A solved position set of the run's game, read by eval/gposset.h with the game its header names. All NULL:
 * none. */
struct gps_set;
struct game;
typedef struct cfg_positions {
    struct gps_set *set;   /* any other game: the set (owned), else NULL */
    struct game *game;     /* the game set was read for (owned; outlives set) */
} cfg_positions;

/* Loads the solved position set eval.positions names (a relative path is taken from the working directory)
 * and checks that its rules are the run's (the canonical spec, cfg_rules_spec). cfg_finish does not open it
 * (configs stay checkable where the data file is absent); sowzero train calls this before it creates the
 * run directory. Returns 0 with *out (free with cfg_positions_free; all NULL when eval.positions is empty),
 * or -1 with "FILE:LINE: eval.positions: ..." (or "--set eval.positions: ...") in err and *out empty. */
int cfg_load_positions(const cfg_config *c, cfg_positions *out, char *err);
void cfg_positions_free(cfg_positions *p);

/* The run's rules as the game's canonical spec (game_spec: every key, e.g. "kalah:pits=6,seeds=4,..."), as
 * nets and checkpoints record them: rules.spec, else rules.game with the rules keys the config gives. Rules
 * that do not parse come back as composed (cfg_finish reports them). Returns buf. */
char *cfg_rules_spec(const cfg_config *c, char *buf, size_t n);

/* Checks required keys and the rules (the game's own parser; its message names the key, e.g. rules.seeds,
 * and a rules key the game lacks is refused), fills derived fields (every rules key the game has with its
 * effective value, net.input_dim, net.n_policy, net.n_value from the game, optim.sched.total_steps, run.name
 * from the file name), and runs the cross-field checks (nn_config_check, nn_optim_config_check,
 * mcts_config_check, selfplay_config_check, every opponent spec through game_agent_create under the rules,
 * the levers a game's facts rule out, min_replay <= replay_window). -1 with a message naming the key. */
int cfg_finish(cfg_config *c, char *err);

enum { CFG_WRITE_PLAIN = 0, CFG_WRITE_DOCS = 1 };

/* Writes every key of c that applies to its game (cfg_key_applies) as INI that cfg_load reads back to the
 * same values (doubles with 17 significant digits). CFG_WRITE_DOCS adds each key's documentation, default and range as comments. 0, or -1 on a write
 * error. */
int cfg_write(const cfg_config *c, FILE *f, int flags);

/* Number of keys in the table, and key i as "section.key" (NULL past the end). */
int cfg_key_count(void);
const char *cfg_key_name(int i, char *buf, size_t n);

/* 1 when key i belongs to c's game: the Kalah-only rules keys (capture, end, max_sows) and the básico-only
 * ones (players, full_ranking) belong to one game each; the levers that need a fact of the game to the games
 * that have it (eval.positions: two players and a margin; eval.gate*: two players; tablebase_seeds and
 * rescore*: an exact endgame database); every other key to every game. cfg_write leaves out the keys that do
 * not apply (cfg_finish would refuse them when given). */
int cfg_key_applies(const cfg_config *c, int i);

/* 1 when "section.key" was given in the file or by --set (not just defaulted). */
int cfg_was_set(const cfg_config *c, const char *section_dot_key);

#endif
