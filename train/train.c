/* train.c — the training loop (contract in train.h). */
#include "train/train.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include "nn/h5io.h"
#include "selfplay/game_selfplay.h"
#include "selfplay/selfplay.h"
#include "eval/game_agent.h"
#include "eval/tbase.h"
#include "train/plot.h"
#include "train/rundir.h"
#include "train/train_internal.h"

double train_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double train_elapsed(const trainer *t)
{
    return t->elapsed_base + (train_now() - t->t0);
}

uint64_t train_seed(uint64_t seed, uint64_t stream, uint64_t i)
{
    uint64_t s = seed ^ (stream * 0x9E3779B97F4A7C15ULL) ^ (i * 0xD1B54A32D192ED03ULL);
    mcts_splitmix64(&s);
    return mcts_splitmix64(&s);
}

void train_err(char *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, TRAIN_ERRLEN, fmt, ap);
    va_end(ap);
}

void train_msg(const trainer *t, int level, const char *fmt, ...)
{
    if (!t->opt->message)
        return;
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    t->opt->message(t->opt->ud, level, buf);
}

/* The comment lines under config.ini's first one (its provenance: source, overrides, resumes), as text
 * (malloc'd, "" when none or unreadable; NULL only when out of memory). */
static char *config_provenance(const char *path)
{
    char *out = NULL, *line = NULL;
    size_t out_len = 0, cap = 0;
    FILE *mem = open_memstream(&out, &out_len);
    if (!mem)
        return NULL;
    FILE *f = fopen(path, "r");
    ssize_t got;
    for (int n = 0; f && (got = getline(&line, &cap, f)) >= 0; n++) {
        if (n == 0)
            continue;
        if (strncmp(line, "# ", 2) != 0 || line[got - 1] != '\n')
            break;
        fputs(line, mem);
    }
    if (f)
        fclose(f);
    free(line);
    fclose(mem);
    return out;
}

/* Whether text holds line (with its newline) as one of its lines. */
static int has_line(const char *text, const char *line)
{
    for (const char *p = text; (p = strstr(p, line)) != NULL; p++)
        if (p == text || p[-1] == '\n')
            return 1;
    return 0;
}

/* Writes the effective config to <dir>/config.ini via a temporary file. On resume the provenance lines of
 * the file it replaces are kept, and the header's lines follow where they are new. */
static int write_config(trainer *t, char *err)
{
    char path[TRAIN_PATH_LEN + 32], tmp[TRAIN_PATH_LEN + 40];
    train_join(path, sizeof path, t->dir, "config.ini");
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    char *kept = t->opt->resume ? config_provenance(path) : strdup("");
    if (!kept) {
        train_err(err, "out of memory writing '%s'", tmp);
        return TRAIN_ENOMEM;
    }
    FILE *f = fopen(tmp, "w");
    if (!f) {
        train_err(err, "cannot write '%s': %s", tmp, strerror(errno));
        free(kept);
        return TRAIN_EIO;
    }
    fprintf(f, "# The effective config of this run (sowzero train): every key with the value used.\n");
    fputs(kept, f);
    if (t->opt->config_header && *t->opt->config_header) {
        const char *p = t->opt->config_header;
        while (*p) {
            size_t len = strcspn(p, "\n");
            char line[4200];
            snprintf(line, sizeof line, "# %.*s\n", (int)len, p);
            if (!has_line(kept, line))
                fputs(line, f);
            p += len + (p[len] == '\n');
        }
    }
    free(kept);
    fputc('\n', f);
    int bad = cfg_write(t->cfg, f, CFG_WRITE_PLAIN);
    if (fclose(f) != 0 || bad) {
        train_err(err, "cannot write '%s'", tmp);
        remove(tmp);
        return TRAIN_EIO;
    }
    if (rename(tmp, path) != 0) {
        train_err(err, "cannot rename '%s': %s", tmp, strerror(errno));
        return TRAIN_EIO;
    }
    return TRAIN_OK;
}

static int export_net(trainer *t, const nn_net *net, const char *name, char *err)
{
    char path[TRAIN_PATH_LEN + 32], nerr[NN_ERRLEN];
    nn_search search;
    train_search_record(t->cfg, &search);
    train_join(path, sizeof path, t->dir, name);
    if (nn_export_save_search(path, net, t->rules_spec, t->encoding, &search, nerr) != NN_OK) {
        train_err(err, "cannot write %s: %s", name, nerr);
        return TRAIN_EIO;
    }
    return TRAIN_OK;
}

/* Creates everything the config asks for (a fresh net unless resuming). */
static int setup(trainer *t, char *err)
{
    const cfg_config *c = t->cfg;
    char nerr[NN_ERRLEN + MCTS_ERRLEN];
    cfg_rules_spec(c, t->rules_spec, sizeof t->rules_spec);
    t->encoding = game_kind_find(t->rules_spec)->encoding_name; /* cfg_check accepted the game */
    t->net = nn_net_create(&c->net, train_seed(c->run.seed, 1, 0), nerr);
    if (t->net)
        t->best_net = nn_net_create(&c->net, train_seed(c->run.seed, 1, 0), nerr);
    if (t->best_net && c->eval.gate == CFG_GATE_SPRT)
        t->sp_net = nn_net_create(&c->net, train_seed(c->run.seed, 1, 0), nerr);
    if (!t->net || !t->best_net || (c->eval.gate == CFG_GATE_SPRT && !t->sp_net)) {
        train_err(err, "cannot create the net: %s", nerr);
        return TRAIN_EINVAL;
    }
    size_t np = nn_param_count(t->net);
    t->optim = nn_optim_create(&c->optim, np, nerr);
    if (!t->optim) {
        train_err(err, "cannot create the optimiser: %s", nerr);
        return TRAIN_EINVAL;
    }
    /* nv: value outputs, 1 for Kalah (nn_config_default; [net] has no key for it). */
    int b = c->train.batch_size, dim = c->net.input_dim, m = c->net.n_policy, nv = c->net.n_value;
    t->ws = nn_workspace_create_train(t->net, b);
    t->rb = replay_create(dim, m, nv, (size_t)c->train.replay_window, nerr);
    t->x = malloc((size_t)b * dim * sizeof *t->x);
    t->pi = malloc((size_t)b * m * sizeof *t->pi);
    t->z = malloc((size_t)b * nv * sizeof *t->z);
    t->margin = malloc((size_t)b * sizeof *t->margin);
    t->legal = malloc((size_t)b * m);
    t->grad = malloc(np * sizeof *t->grad);
    if (!t->ws || !t->rb || !t->x || !t->pi || !t->z || !t->margin || !t->legal || !t->grad) {
        train_err(err, "out of memory (replay window %d, batch %d)", c->train.replay_window, b);
        return TRAIN_ENOMEM;
    }
    mcts_rng_seed(&t->rng, train_seed(c->run.seed, 2, 0));
    t->best_score = -1;
    char gerr[GAME_ERRLEN];
    game *g = game_create(t->rules_spec, gerr);
    if (!g) {
        train_err(err, "%s", gerr);
        return TRAIN_EINVAL;
    }
    t->players = game_players(g);
    for (int q = 0; q < 2; q++)
        game_seat_name(g, q, t->seat[q], sizeof t->seat[q]);
    const int db = tb_supports(g); /* a game whose kind has an endgame hook needs no database built here */
    int want = c->mcts.tablebase_seeds > c->eval.tablebase_seeds ? c->mcts.tablebase_seeds : c->eval.tablebase_seeds;
    if (db && want > 0) { /* built once, here: part of the run's wall time */
        char kerr[KALAH_ERRLEN];
        double secs = 0;
        int threads = c->selfplay.threads > c->eval.threads ? c->selfplay.threads : c->eval.threads;
        t->tb = tb_acquire_game(g, want, threads, &secs, kerr);
        game_free(g);
        if (!t->tb) {
            train_err(err, "the endgame database of %d seeds (mcts/eval.tablebase_seeds): %s", want, kerr);
            return TRAIN_ENOMEM;
        }
        train_msg(t, TRAIN_MSG_INFO, "endgame database: %d seeds, %.0f MB, built in %.1f s", tb_seeds(t->tb),
                  (double)eg_bytes(tb_db(t->tb)) / 1e6, secs);
    }
    else
        game_free(g);
    t->last_it = c->run.iterations;
    return TRAIN_OK;
}

/* selfplay.opponents as the self-play league (game_selfplay.h): each worker's agents from the specs. */
typedef struct {
    const game *g;
    const cfg_league *league;
} league_ctx;

static void *league_create(void *ctx, int i, char *err)
{
    const league_ctx *l = ctx;
    char aerr[AGENT_ERRLEN];
    game_agent *a = game_agent_create(l->league->opponents[i], l->g, aerr);
    if (!a)
        snprintf(err, MCTS_ERRLEN, "selfplay.opponents: %.990s", aerr);
    return a;
}

static int league_choose(void *agent, const game_pos *p, uint64_t seed, int *move, char *err)
{
    game_agent_new_game(agent, p, seed);
    if (game_agent_choose(agent, p, move) == AGENT_OK)
        return 0;
    snprintf(err, MCTS_ERRLEN, "selfplay.opponents: %.200s: %.700s", game_agent_spec(agent),
             game_agent_error(agent));
    return -1;
}

static void league_free(void *agent) { game_agent_free(agent); }

int train_selfplay_round(const cfg_config *c, const char *rules_spec, const selfplay_config *sc, const nn_net *net,
                         const tb_ref *tb, replay_buffer *rb, uint64_t seed, selfplay_stats *st, char *err)
{
    char gerr[GAME_ERRLEN];
    game *g = game_create(rules_spec, gerr);
    if (!g) {
        snprintf(err, MCTS_ERRLEN, "%s", gerr);
        return MCTS_EINVAL;
    }
    mcts_config mc = c->mcts;
    if (tb) { /* the endgame database the caller built (capped at the rules' total seeds) */
        game_set_endgame(g, tb_game_endgame(tb));
        mc.tablebase_seeds = mc.tablebase_seeds < tb_seeds(tb) ? mc.tablebase_seeds : tb_seeds(tb);
    }
    mcts_mp_eval_factory ef = mcts_mp_eval_factory_net(net);
    ef.margin_utility = c->mcts.margin_utility;
    game_selfplay_stats bs = {0};
    league_ctx lc = {g, &c->league};
    const game_selfplay_league league = {.count = c->league.n_opponents, .share = c->league.share, .ctx = &lc,
                                         .create = league_create, .choose = league_choose, .free = league_free};
    int rc = game_selfplay_run_league(g, sc, &mc, &ef, c->league.n_opponents ? &league : NULL, rb, NULL, NULL,
                                      seed, &bs, err);
    game_free(g);
    *st = (selfplay_stats){.games = bs.games, .samples = bs.samples, .seconds = bs.seconds,
                           .positions_per_s = bs.positions_per_s};
    memcpy(st->league_games, bs.league_games, sizeof st->league_games);
    memcpy(st->league_score, bs.league_score, sizeof st->league_score);
    return rc;
}

/* Back to the state setup() makes (a fresh net, iteration 0): after checkpoints were tried and set aside,
 * what they half-loaded is gone. */
static int fresh_state(trainer *t, char *err)
{
    nn_workspace_free(t->ws);
    nn_optim_free(t->optim);
    nn_net_free(t->net);
    nn_net_free(t->best_net);
    nn_net_free(t->sp_net);
    replay_free(t->rb);
    free(t->x), free(t->pi), free(t->z), free(t->margin), free(t->legal), free(t->grad), free(t->ckpt_rows);
    tb_release(t->tb);
    t->ws = NULL, t->optim = NULL, t->net = t->best_net = t->sp_net = NULL, t->rb = NULL, t->tb = NULL;
    t->x = t->pi = t->z = t->margin = t->grad = NULL, t->legal = NULL, t->ckpt_rows = NULL;
    t->ckpt_rows_len = 0;
    t->iteration = t->games = t->samples = t->best_iteration = t->eval_iteration = t->rounds = 0;
    t->elapsed_base = t->last_eval_s = 0;
    t->last_eval_games = t->have_best_net = t->have_last_accuracy = t->have_row = 0;
    t->gate_counts[0] = t->gate_counts[1] = 0;
    return setup(t, err);
}

static void teardown(trainer *t)
{
    train_round_free(t); /* first: the round in flight reads the trainer's buffer, tablebase and config */
    train_metrics_close(t->metrics);
    free(t->ckpt_rows);
    cfg_positions_free(&t->positions);
    nn_workspace_free(t->ws);
    nn_optim_free(t->optim);
    nn_net_free(t->net);
    nn_net_free(t->best_net);
    nn_net_free(t->sp_net);
    replay_free(t->rb);
    free(t->x);
    free(t->pi);
    free(t->z);
    free(t->margin);
    free(t->legal);
    free(t->grad);
    train_unlock(t->lock_fd);
    tb_release(t->tb);
}

/* A fresh run's directory holds no config.ini (checked by the caller) and nothing else a run would
 * overwrite: TRAIN_OK when it is missing or blank (train_dir_blank), TRAIN_EINVAL with err otherwise. */
static int not_a_run(trainer *t, char *err)
{
    char path[TRAIN_PATH_LEN + 32], what[512];
    train_join(path, sizeof path, t->dir, "config.ini");
    if (train_exists(path))
        return TRAIN_OK; /* the caller's "already holds a run" */
    int blank = train_dir_blank(t->dir, what, sizeof what);
    if (blank == 1)
        return TRAIN_OK;
    if (blank < 0)
        train_err(err, "run directory: %s", what);
    else
        train_err(err, "'%s' is not empty (it holds '%s') and is not a run (no config.ini): a run writes config.ini, "
                  "metrics.csv, latest.h5, best.h5 and checkpoints/ there, overwriting what is there; choose a new or "
                  "empty --run-dir", t->dir, what);
    return TRAIN_EINVAL;
}

/* The run directory: a fresh one (must not already hold a run) or the one to resume. */
static int open_run_dir(trainer *t, char *err)
{
    const cfg_config *c = t->cfg;
    const train_options *o = t->opt;
    char path[TRAIN_PATH_LEN + 32], lerr[512];
    if (o->run_dir) {
        if (!*o->run_dir) {
            train_err(err, "the run directory is empty (--run-dir \"\"); name a directory, or leave --run-dir out "
                      "for <run.dir>/<run.name>-<date-time>");
            return TRAIN_EINVAL;
        }
        if (strlen(o->run_dir) >= sizeof t->dir - 64) {
            train_err(err, "run directory path too long");
            return TRAIN_EINVAL;
        }
        snprintf(t->dir, sizeof t->dir - 64, "%s", o->run_dir);
    } else if (o->resume) {
        train_err(err, "resuming needs the run directory");
        return TRAIN_EINVAL;
    } else if (!train_create_default_run_dir(t->dir, sizeof t->dir - 64, c->run.dir, c->run.name, time(NULL), lerr,
                                             sizeof lerr)) {
        train_err(err, "%s", lerr);
        return TRAIN_EINVAL;
    }
    if (!o->resume && o->run_dir && not_a_run(t, err) != TRAIN_OK) /* before anything is created in it */
        return TRAIN_EINVAL;
    /* An unusable path is the user's input: exit status 2 with the system's reason. */
    train_join(path, sizeof path, t->dir, "checkpoints");
    if (train_mkdirs(path, lerr, sizeof lerr) != 0) {
        train_err(err, "run directory: %s", lerr);
        return TRAIN_EINVAL;
    }
    long holder;
    t->lock_fd = train_lock(t->dir, &holder, lerr, sizeof lerr);
    const int lock_errno = errno;
    if (t->lock_fd == -2) {
        if (holder > 0)
            train_err(err, "run %s is in use by process %ld (another sowzero train); wait for it to finish or stop "
                      "it first", t->dir, holder);
        else
            train_err(err, "run %s is in use by another process (sowzero train starting)", t->dir);
        return TRAIN_EINVAL;
    }
    if (t->lock_fd < 0) { /* a directory the user cannot write is an unusable path too (exit 2) */
        train_err(err, "run directory: %s", lerr);
        return lock_errno == EROFS || lock_errno == EACCES || lock_errno == EPERM ? TRAIN_EINVAL : TRAIN_EIO;
    }
    /* Under the lock: a fresh run racing another for the same --run-dir sees its config.ini now. */
    train_join(path, sizeof path, t->dir, "config.ini");
    if (!o->resume && train_exists(path)) {
        train_err(err, "'%s' already holds a run (config.ini); continue it with --resume %s (a run without a "
                  "checkpoint starts again from iteration 0) or choose another --run-dir", t->dir, t->dir);
        return TRAIN_EINVAL;
    }
    if (!o->resume && not_a_run(t, err) != TRAIN_OK)
        return TRAIN_EINVAL;
    int removed = train_remove_tmp(t->dir, lerr, sizeof lerr);
    if (removed < 0) {
        train_err(err, "run directory: %s", lerr);
        return TRAIN_EIO;
    }
    if (removed > 0)
        train_msg(t, TRAIN_MSG_INFO, "removed %d unfinished *.tmp file%s left by a stopped run", removed,
                  removed > 1 ? "s" : "");
    return TRAIN_OK;
}

static void plot(trainer *t)
{
    char perr[512];
    const char *opp[CFG_MAX_OPPONENTS];
    for (int k = 0; k < t->cfg->eval.n_opponents; k++)
        opp[k] = t->cfg->eval.opponents[k];
    int what = (t->have_loss_rows ? TRAIN_PLOT_LOSS : 0) | (t->have_eval_rows ? TRAIN_PLOT_EVAL : 0) |
               (t->have_accuracy_rows ? TRAIN_PLOT_ACCURACY : 0);
    if (!what)
        return;
    int rc = train_plot(t->dir, opp, t->cfg->eval.n_opponents, what, perr, sizeof perr);
    if (rc == TRAIN_PLOT_NO_GNUPLOT && !t->warned_gnuplot) {
        t->warned_gnuplot = 1;
        train_msg(t, TRAIN_MSG_WARN, "warning: gnuplot not found: no plots, the curves are in %s/metrics.csv "
                  "(Debian: apt-get install gnuplot-nox)", t->dir);
    } else if (rc == TRAIN_PLOT_ERROR && !t->warned_plot) {
        t->warned_plot = 1;
        train_msg(t, TRAIN_MSG_WARN, "warning: plots not updated: %s", perr);
    }
}

/* Flush-to-zero and denormals-are-zero for this thread and every thread it starts (threads inherit the
 * SSE control register): subnormal operands cost ~100 cycles each on x86 cores, and the net produces them
 * (softmax exp() of large negative logits, products of tiny weights); measured: self-play 2-20x faster
 * with them off. Results stay deterministic (the mode is the same for every run). Restored on return. */
static unsigned fp_fast_begin(void)
{
#if defined(__SSE__)
    unsigned old = _mm_getcsr();
    _mm_setcsr(old | 0x8040); /* FTZ (bit 15) | DAZ (bit 6) */
    return old;
#else
    return 0;
#endif
}

static void fp_fast_end(unsigned old)
{
#if defined(__SSE__)
    _mm_setcsr(old);
#else
    (void)old;
#endif
}

/* Replaces subnormal floats by zero. Why: with L2 decay, the weights of ReLU units that no longer fire get
 * only the decay gradient and shrink geometrically into the subnormal range (and Adam's moments with them);
 * x86 cores take ~100 cycles per subnormal operand, which made nn_forward 15x slower after a few dozen
 * iterations. Flushing after every step keeps training deterministic and every saved net fast. */
static void flush_subnormals(float *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (fabsf(a[i]) < FLT_MIN)
            a[i] = 0.0f;
}

static void flush_state(trainer *t)
{
    size_t np = nn_param_count(t->net);
    flush_subnormals(nn_params(t->net), np);
    for (int i = 0; i < nn_optim_state_count(t->optim); i++) {
        const char *name;
        flush_subnormals(nn_optim_state(t->optim, i, &name), np);
    }
}

int64_t train_time_anneal_steps(int64_t steps_done, int64_t its_done, int64_t its_planned, double elapsed_s,
                                double limit_s, double final_eval_s, int steps_per_iteration)
{
    int64_t left = its_planned - its_done;
    if (its_done >= 1 && elapsed_s > 0) {
        double fit = floor((limit_s - elapsed_s - final_eval_s) / (elapsed_s / (double)its_done));
        if (fit < (double)left)
            left = fit < 1 ? 1 : (int64_t)fit;
    }
    if (left < 1)
        left = 1;
    int64_t total = steps_done + left * (int64_t)steps_per_iteration;
    return total < 1 ? 1 : total;
}

static double final_eval_estimate(const trainer *t);

/* One iteration's SGD phase. Returns TRAIN_OK, TRAIN_EDIVERGED or TRAIN_EFAIL (err says where). */
static int sgd(trainer *t, train_row *row, char *err)
{
    const cfg_config *c = t->cfg;
    if (replay_size(t->rb) < (size_t)c->train.min_replay || replay_size(t->rb) == 0 ||
        c->train.steps_per_iteration == 0)
        return TRAIN_OK;
    if (c->train.lr_anneal_by == CFG_ANNEAL_TIME) /* planned from the iteration's start: before its self-play */
        nn_optim_set_total_steps(t->optim, train_time_anneal_steps(nn_optim_steps(t->optim), t->iteration,
                                                                   c->run.iterations, train_elapsed(t) - row->selfplay_s,
                                                                   c->run.time_limit * 60, final_eval_estimate(t),
                                                                   c->train.steps_per_iteration));
    nn_set_blas_threads(c->train.threads);
    size_t np = nn_param_count(t->net);
    nn_batch b = {.batch = c->train.batch_size, .x = t->x, .legal = t->legal, .pi = t->pi, .z = t->z,
                  .margin = c->net.margin_head ? t->margin : NULL};
    double sum[5] = {0};
    int steps = c->train.steps_per_iteration;
    for (int s = 0; s < steps; s++) {
        nn_loss l;
        if (replay_sample_batch(t->rb, &t->rng, b.batch, t->x, t->legal, t->pi, t->z, t->margin) != MCTS_OK ||
            nn_train_grad(t->net, t->ws, &b, &c->loss, t->grad, &l) != NN_OK) {
            train_err(err, "SGD step %d of iteration %" PRId64 " failed (batch %d, replay %zu)", s + 1,
                      t->iteration + 1, b.batch, replay_size(t->rb));
            nn_set_blas_threads(1);
            return TRAIN_EFAIL;
        }
        if (!isfinite(l.total)) {
            snprintf(err, TRAIN_ERRLEN,
                     "training diverged: the loss is %g at iteration %" PRId64 ", SGD step %d (policy %g, value %g, "
                     "margin %g, l2 %g)",
                     l.total, t->iteration + 1, s + 1, l.policy, l.value, l.margin, l.l2);
            nn_set_blas_threads(1);
            return TRAIN_EDIVERGED;
        }
        row->lr = nn_optim_step(t->optim, nn_params(t->net), t->grad);
        flush_state(t);
        sum[0] += l.total;
        sum[1] += l.policy;
        sum[2] += l.value;
        sum[3] += l.margin;
        sum[4] += l.l2;
    }
    nn_set_blas_threads(1);
    const float *p = nn_params_const(t->net);
    for (size_t i = 0; i < np; i++)
        if (!isfinite(p[i])) {
            train_err(err, "training diverged: a weight became %g at iteration %" PRId64, (double)p[i],
                     t->iteration + 1);
            return TRAIN_EDIVERGED;
        }
    row->have_loss = 1;
    row->loss = sum[0] / steps;
    row->loss_policy = sum[1] / steps;
    row->loss_value = sum[2] / steps;
    row->loss_margin = sum[3] / steps;
    row->loss_l2 = sum[4] / steps;
    t->have_loss_rows = 1;
    return TRAIN_OK;
}

_Static_assert(CFG_MAX_OPPONENTS <= SELFPLAY_MAX_LEAGUE, "every selfplay.opponents entry has its league counts");

/* Adds a self-play round's league games to the counts the next evaluation reports. */
static void add_league(trainer *t, const selfplay_stats *st)
{
    for (int k = 0; k < SELFPLAY_MAX_LEAGUE; k++)
        t->league_games[k] += st->league_games[k], t->league_score[k] += st->league_score[k];
}

/* One line: the search's score against each league opponent in the self-play games since the last report
 * (the league's own win rates, as AlphaStar's league tracks them); the counts start again. */
static void report_league(trainer *t)
{
    const cfg_league *lg = &t->cfg->league;
    char line[1024];
    size_t w = 0;
    for (int k = 0; k < lg->n_opponents && w < sizeof line; k++)
        w += (size_t)snprintf(line + w, sizeof line - w, "%s %s %.3f (%llu games)", k ? "," : "", lg->opponents[k],
                              t->league_games[k] ? t->league_score[k] / (double)t->league_games[k] : 0.0,
                              (unsigned long long)t->league_games[k]);
    if (lg->n_opponents)
        train_msg(t, TRAIN_MSG_INFO, "  self-play league since the last evaluation, the search's score against:%s",
                  line);
    memset(t->league_games, 0, sizeof t->league_games);
    memset(t->league_score, 0, sizeof t->league_score);
}

static void report_eval(trainer *t, const train_eval_result *res, int games, double mean)
{
    const cfg_config *c = t->cfg;
    train_msg(t, TRAIN_MSG_INFO, "evaluation after iteration %" PRId64 " (%d games per opponent): mean score %.3f%s",
              t->iteration, games, mean,
              t->best_iteration == t->iteration && !train_has_positions(t) ? " (new best)" : ""); /* else: the accuracy's */
    for (int k = 0; k < c->eval.n_opponents && t->players > 2; k++)
        train_msg(t, TRAIN_MSG_INFO,
                  "  vs a field of %-12s rank score %.3f [%.2f, %.2f]  mean place %.2f of %d  first %d of %d  "
                  "(seat 0 %.3f, other seats %.3f)",
                  res[k].opponent, res[k].score, res[k].score_lo, res[k].score_hi, res[k].mean_place,
                  t->players, res[k].wins, res[k].games, res[k].seat_score[0], res[k].seat_score[1]);
    for (int k = 0; k < c->eval.n_opponents && t->players == 2; k++)
        train_msg(t, TRAIN_MSG_INFO, "  vs %-20s %.3f [%.2f, %.2f]  as %s %.3f  as %s %.3f  (W-D-L %d-%d-%d)",
                  res[k].opponent, res[k].score, res[k].score_lo, res[k].score_hi, t->seat[0], res[k].seat_score[0],
                  t->seat[1], res[k].seat_score[1], res[k].wins, res[k].draws, res[k].losses);
    report_league(t);
}

/* Copies the last evaluation (t->last_eval, t->last_accuracy, t->eval_iteration) and best.h5's record into
 * the summary. */
static void summarise_eval(trainer *t)
{
    if (!t->sum || t->eval_iteration <= 0)
        return;
    t->sum->have_eval = 1;
    t->sum->eval_iteration = t->eval_iteration;
    t->sum->n_opponents = t->cfg->eval.n_opponents;
    memcpy(t->sum->eval, t->last_eval, sizeof t->last_eval);
    t->sum->best_score = t->best_score;
    t->sum->best_iteration = t->best_iteration;
    t->sum->have_accuracy = t->have_last_accuracy;
    t->sum->accuracy_raw = t->last_accuracy[0];
    t->sum->regret_raw = t->last_accuracy[1];
    t->sum->accuracy_search = t->last_accuracy[2];
    t->sum->regret_search = t->last_accuracy[3];
}

/* Evaluates latest.h5 (which must hold t->net): matches, and the accuracy on [eval] positions; fills the
 * row's scores, the last evaluation and the summary. A better train_best_measure makes the current net the
 * best one (*new_best = 1; best.h5 follows the checkpoint). */
static int evaluate(trainer *t, int games, train_row *row, int *new_best, char *err)
{
    const cfg_config *c = t->cfg;
    train_eval_result res[CFG_MAX_OPPONENTS];
    memset(res, 0, sizeof res); /* no opponents: the last evaluation holds no match */
    double mean = 0;
    double t_eval = train_now();
    nn_set_blas_threads(1);
    int rc = c->eval.n_opponents > 0 ? train_evaluate(t, games, res, &mean, err) : TRAIN_OK;
    if (rc == TRAIN_OK && train_has_positions(t))
        rc = train_accuracy(t, row, err);
    if (rc != TRAIN_OK)
        return rc;
    row->eval_s = train_now() - t_eval;
    t->last_eval_s = row->eval_s;
    t->last_eval_games = games;
    row->have_eval = c->eval.n_opponents > 0;
    t->have_accuracy_rows |= row->have_accuracy;
    for (int k = 0; k < c->eval.n_opponents; k++) {
        row->score[k] = res[k].score;
        row->south[k] = res[k].seat_score[KALAH_SOUTH];
        row->north[k] = res[k].seat_score[KALAH_NORTH];
    }
    t->have_eval_rows |= row->have_eval;
    double measure = train_best_measure(t, row, mean);
    if (measure > t->best_score) {
        t->best_score = measure;
        t->best_iteration = t->iteration;
        if (nn_net_copy_params(t->best_net, t->net) != NN_OK) {
            train_err(err, "cannot copy the best net");
            return TRAIN_EFAIL;
        }
        t->have_best_net = 1;
        *new_best = 1;
    }
    t->eval_iteration = t->iteration;
    memcpy(t->last_eval, res, sizeof res);
    t->have_last_accuracy = row->have_accuracy;
    t->last_accuracy[0] = row->accuracy_raw;
    t->last_accuracy[1] = row->regret_raw;
    t->last_accuracy[2] = row->accuracy_search;
    t->last_accuracy[3] = row->regret_search;
    summarise_eval(t);
    if (c->eval.n_opponents > 0)
        report_eval(t, res, games, mean);
    if (row->have_accuracy)
        train_msg(t, TRAIN_MSG_INFO, "accuracy after iteration %" PRId64 " on %s: raw policy %.1f%% optimal, mean "
                  "regret %.2f seeds; search (sims=%d) %.1f%%, %.2f%s", t->iteration, c->eval.positions,
                  100 * row->accuracy_raw, row->regret_raw, c->eval.sims, 100 * row->accuracy_search,
                  row->regret_search, t->best_iteration == t->iteration ? " (new best)" : "");
    return TRAIN_OK;
}

/* Whether best.h5 is chosen by an evaluation: opponents to play, or [eval] positions to measure. */
static int judged(const cfg_config *c) { return c->eval.n_opponents > 0 || c->eval.positions[0]; }

/* Whether iteration it plays an evaluation: every eval.every-th and the last (docs/design.md §3.4; the last is
 * run.iterations, or an earlier one that run.time_limit made the last: t->last_it). */
static int eval_due(const trainer *t, int64_t it)
{
    const cfg_config *c = t->cfg;
    return judged(c) && it > 0 && (it == t->last_it || (c->eval.every > 0 && it % c->eval.every == 0));
}

static int eval_games(const trainer *t, int64_t it)
{
    const cfg_config *c = t->cfg;
    return it == t->last_it && c->eval.final_games ? c->eval.final_games : c->eval.games;
}

/* Seconds an evaluation of `games` games per opponent will take: the last one measured (in this process, or
 * the checkpoint's row on resume), its matches scaled by games / its games; 0 before any was measured. */
static double eval_estimate(const trainer *t, int games)
{
    if (t->last_eval_s <= 0 || t->last_eval_games <= 0)
        return 0;
    return games > t->last_eval_games ? t->last_eval_s * games / t->last_eval_games : t->last_eval_s;
}

/* Seconds the final evaluation will take (eval_estimate of final_games, or games), 0 when nothing is judged:
 * what run.time_limit's stop rule and train.lr_anneal_by = time's plan keep back from the budget. */
static double final_eval_estimate(const trainer *t)
{
    const cfg_config *c = t->cfg;
    return judged(c) ? eval_estimate(t, c->eval.final_games ? c->eval.final_games : c->eval.games) : 0;
}

/* run.time_limit: whether the run must end after iteration it (its self-play, SGD and gate done) so that the
 * final evaluation and checkpoint still finish within the budget: one more iteration needs the mean time of
 * an iteration so far (elapsed / it, evaluations included, earlier sessions counted), plus it's own
 * evaluation when one is due, plus the final one (eval_estimate). *need_s gets that estimate. */
static int out_of_time(const trainer *t, int64_t it, double *need_s)
{
    const cfg_config *c = t->cfg;
    double limit = c->run.time_limit * 60;
    *need_s = 0;
    if (limit <= 0 || it < 1)
        return 0;
    double now = train_elapsed(t);
    int due = judged(c) && c->eval.every > 0 && it % c->eval.every == 0;
    *need_s = now / (double)it + (due ? eval_estimate(t, c->eval.games) : 0) + final_eval_estimate(t);
    return now + *need_s > limit;
}

/* Plays iteration it's evaluation (announcing the final one). */
static int evaluate_iteration(trainer *t, train_row *row, int *new_best, char *err)
{
    const cfg_config *c = t->cfg;
    int games = eval_games(t, t->iteration), n_opp = c->eval.n_opponents;
    if (t->iteration == t->last_it && n_opp)
        train_msg(t, TRAIN_MSG_INFO, "final evaluation: %d games against each of %d opponent%s...", games, n_opp,
                  n_opp > 1 ? "s" : "");
    return evaluate(t, games, row, new_best, err);
}

/* best.h5 after a checkpoint: the best evaluated net, or (nothing to judge by) the current one. */
static int export_best(trainer *t, char *err)
{
    if (!judged(t->cfg))
        return export_net(t, t->net, "best.h5", err);
    return t->have_best_net && t->best_iteration > 0 ? export_net(t, t->best_net, "best.h5", err) : TRAIN_OK;
}

static int stop_requested(const trainer *t)
{
    return (t->opt->stop && *t->opt->stop) || (t->opt->stop_after > 0 && t->iteration >= t->opt->stop_after);
}

/* One whole iteration. TRAIN_OK to go on, TRAIN_STOPPED, or an error.
 * Order of the writes, so that a kill at any point leaves a run that resumes exactly: latest.h5 (rewritten
 * from the checkpoint on resume), the checkpoint (holding this iteration's metrics row, best net and
 * evaluation), then best.h5 from it, then the metrics row (both redone from the checkpoint on resume). */
static int iteration(trainer *t, double session_t0, int64_t session_it0, char *err)
{
    const cfg_config *c = t->cfg;
    train_row row;
    memset(&row, 0, sizeof row);
    int64_t it = t->iteration + 1;

    /* Self-play: the round this iteration trains on, unless train.overlap played it beside the last one. */
    selfplay_stats st = {0};
    char serr[MCTS_ERRLEN];
    nn_set_blas_threads(1);
    const nn_net *sp_net = t->sp_net ? t->sp_net : t->net; /* gating (eval.gate): the self-play net */
    int rc;
    if (t->rounds < it) {
        uint64_t sp_seed = train_seed(c->run.seed, 3, (uint64_t)it);
        int sp_rc;
        if (t->opt->selfplay) /* under mpirun: the workers' samples (train/mpi_train.h) */
            sp_rc = t->opt->selfplay(t->opt->selfplay_ud, t->dir, sp_net, t->iteration, t->rb, &st, serr);
        else
            sp_rc = train_selfplay_round(c, t->rules_spec, &c->selfplay, sp_net, t->tb, t->rb, sp_seed, &st, serr);
        if (sp_rc != MCTS_OK) {
            train_err(err, "self-play failed in iteration %" PRId64 ": %s", it, serr);
            return TRAIN_EFAIL;
        }
        t->rounds = it;
        t->games += (int64_t)st.games;
        t->samples += (int64_t)st.samples;
        add_league(t, &st);
        row.selfplay_s = st.seconds;
        row.selfplay_pos_per_s = st.positions_per_s;
    }
    /* train.overlap: the next iteration's round, beside this iteration's SGD and evaluation, with the net
     * from before them (train_overlap.c); it joins the buffer before the checkpoint, below. */
    if (c->train.overlap && it < t->last_it && (rc = train_round_start(t, it + 1, sp_net, err)) != TRAIN_OK)
        return rc;

    double t_train = train_now();
    rc = sgd(t, &row, err);
    if (rc != TRAIN_OK)
        return rc;
    row.train_s = train_now() - t_train;
    t->iteration = it;

    if ((rc = export_net(t, t->net, "latest.h5", err)) != TRAIN_OK)
        return rc;
    /* Played even when stopping, so that a stopped and resumed run gates as one that never stopped. */
    if (t->sp_net && it % c->eval.gate_every == 0 && (rc = train_gate(t, NULL, err)) != TRAIN_OK)
        return rc;
    if (t->sum && t->sp_net) {
        t->sum->gates = t->gate_counts[0];
        t->sum->gates_accepted = t->gate_counts[1];
    }
    /* After the gate, so that only the evaluations are still to come in this iteration. */
    double need_s;
    if (it < t->last_it && out_of_time(t, it, &need_s)) {
        t->last_it = it;
        train_msg(t, TRAIN_MSG_INFO, "run.time_limit: iteration %" PRId64 " is the last (%.1f of %g minutes used; "
                  "another iteration and the final evaluation would need about %.1f more)", it,
                  train_elapsed(t) / 60, c->run.time_limit, need_s / 60);
        if (t->sum)
            t->sum->time_limited = 1;
    }
    int last = it == t->last_it;
    int n_opp = c->eval.n_opponents;
    int new_best = 0;
    /* Stopped: the evaluation is skipped; the checkpoint records it as owed and a resume plays it. */
    if (eval_due(t, it) && !stop_requested(t) && (rc = evaluate_iteration(t, &row, &new_best, err)) != TRAIN_OK)
        return rc;
    if (t->round.running) {
        if (stop_requested(t))
            train_msg(t, TRAIN_MSG_INFO, "stopping: waiting for the self-play round in flight (train.overlap)");
        selfplay_stats bst = {0};
        if ((rc = train_round_finish(t, &bst, err)) != TRAIN_OK)
            return rc;
        add_league(t, &bst);
        t->games += (int64_t)bst.games;
        t->samples += (int64_t)bst.samples;
        row.selfplay_s += bst.seconds;
        row.selfplay_pos_per_s = bst.positions_per_s;
    }

    row.iteration = it;
    row.games = t->games;
    row.samples = t->samples;
    row.replay = (int64_t)replay_size(t->rb);
    row.steps = nn_optim_steps(t->optim);
    row.elapsed_s = train_elapsed(t);
    t->row = row;
    t->have_row = 1;

    int stopping = stop_requested(t);
    int saved = 0;
    char ckpt[TRAIN_PATH_LEN + 64];
    /* A new best forces a checkpoint: best.h5 is only ever written from one (train_state.c). */
    if (last || stopping || new_best || it % c->run.checkpoint_every == 0) {
        if ((rc = train_save_checkpoint(t, ckpt, sizeof ckpt, err)) != TRAIN_OK)
            return rc;
        saved = 1;
        if ((new_best || !judged(c)) && (rc = export_best(t, err)) != TRAIN_OK)
            return rc;
    }

    char merr[512];
    if (train_metrics_append(t->metrics, &row, merr, sizeof merr) != 0) {
        train_err(err, "%s", merr);
        return TRAIN_EIO;
    }
    if (row.have_eval || row.have_accuracy || saved)
        plot(t);

    if (t->opt->progress) {
        train_progress_info pi = {.iteration = it, .iterations = c->run.iterations, .games = t->games,
                                  .samples = t->samples, .have_loss = row.have_loss, .loss = row.loss,
                                  .lr = row.lr, .pos_per_s = row.selfplay_pos_per_s, .have_eval = row.have_eval,
                                  .have_accuracy = row.have_accuracy, .accuracy = row.accuracy_search,
                                  .regret = row.regret_search, .elapsed_s = row.elapsed_s};
        if (row.have_eval) {
            double s = 0;
            for (int k = 0; k < n_opp; k++)
                s += row.score[k];
            pi.eval_score = s / n_opp;
        }
        double per_it = (train_now() - session_t0) / (double)(it - session_it0);
        pi.eta_s = per_it * (double)(c->run.iterations - it);
        if (c->run.time_limit > 0 && pi.eta_s > c->run.time_limit * 60 - row.elapsed_s)
            pi.eta_s = fmax(0, c->run.time_limit * 60 - row.elapsed_s);
        t->opt->progress(t->opt->ud, &pi);
    }
    if (t->sum) {
        t->sum->iterations = it;
        t->sum->games = t->games;
        t->sum->samples = t->samples;
        t->sum->steps = row.steps;
        t->sum->elapsed_s = row.elapsed_s;
    }
    if (stopping) {
        train_msg(t, TRAIN_MSG_INFO, "stopped after iteration %" PRId64 "; checkpoint %s; continue with --resume %s",
                  it, ckpt, t->dir);
        return TRAIN_STOPPED;
    }
    return TRAIN_OK;
}

/* Renames path to path.suffix (kept for inspection, no longer a checkpoint name). */
static void set_aside(trainer *t, const char *path, const char *suffix)
{
    char to[TRAIN_PATH_LEN + 96];
    snprintf(to, sizeof to, "%s.%s", path, suffix);
    if (rename(path, to) != 0)
        train_msg(t, TRAIN_MSG_WARN, "warning: cannot rename %s: %s", path, strerror(errno));
}

/* Whether the loaded checkpoint's metrics row (when it has one) starts as metrics.csv's row of that
 * iteration (when it has one): the counts (games, samples, replay, steps) of two runs differ, so a checkpoint
 * of another run with the right iteration and name is told apart. */
static int same_history(trainer *t)
{
    char path[TRAIN_PATH_LEN + 32], line[4096], want[160], merr[512];
    const char *opp[CFG_MAX_OPPONENTS];
    for (int k = 0; k < t->cfg->eval.n_opponents; k++)
        opp[k] = t->cfg->eval.opponents[k];
    /* a damaged metrics.csv tells nothing (it is rebuilt from the checkpoint chosen) */
    if (!t->have_row || !train_join(path, sizeof path, t->dir, "metrics.csv") ||
        train_metrics_check(path, opp, t->cfg->eval.n_opponents, -1, NULL, merr, sizeof merr) != TRAIN_METRICS_OK ||
        train_metrics_find_row(path, t->iteration, line, sizeof line) != 1)
        return 1;
    train_metrics_row_counts(&t->row, want, sizeof want);
    return strncmp(line, want, strlen(want)) == 0;
}

/* Loads the checkpoint to resume from into t: opt->checkpoint when given (newer checkpoints are set aside
 * as *.abandoned, so they are not taken for this run's next ones), else the newest usable one: newer ones
 * that do not read back are set aside as *.corrupt (damaged) or *.unreadable (cannot be opened: a dangling
 * or looping link, a directory), one holding another iteration than its name says as *.foreign (another
 * run's copied in, a renamed file: trusting it would leave a gap in metrics.csv, and its name would make
 * the rotation delete newer real checkpoints) or a metrics row other than metrics.csv's of that iteration
 * (same_history) as *.foreign, each with a warning. TRAIN_OK with the file in used; 1
 * when no checkpoint can be used (*tried gets how many were set aside now); an error otherwise. */
static int load_resume_checkpoint(trainer *t, char *used, size_t n, int *tried, char *err)
{
    char lerr[512];
    int64_t *its;
    int count, corrupt;
    *tried = 0;
    if (train_list_checkpoints(t->dir, &its, &count, lerr, sizeof lerr) != 0) {
        train_err(err, "cannot resume '%s': %s", t->dir, lerr);
        return TRAIN_EIO;
    }
    int rc = 1;
    if (t->opt->checkpoint) {
        snprintf(used, n, "%s", t->opt->checkpoint);
        rc = train_load_checkpoint(t, used, &corrupt, err);
        if (rc == TRAIN_EIO)
            rc = TRAIN_EINVAL;   /* the file the user named: bad input */
        /* another run's checkpoint would replace this run's metrics rows and history under its config.ini:
         * refused before anything is set aside or rewritten */
        if (rc == TRAIN_OK && !same_history(t)) {
            train_err(err, "--checkpoint %s is not a checkpoint of the run in '%s': its metrics row of iteration "
                      "%" PRId64 " differs from the one in metrics.csv (to go on from another run's net, resume "
                      "that run, or copy its whole run directory)", used, t->dir, t->iteration);
            rc = TRAIN_EINVAL;
        }
        for (int i = 0; i < count && rc == TRAIN_OK; i++) {
            char path[TRAIN_PATH_LEN + 64];
            if (its[i] > t->iteration && train_checkpoint_path(path, sizeof path, t->dir, its[i])) {
                set_aside(t, path, "abandoned");
                train_msg(t, TRAIN_MSG_INFO, "%s is newer than the chosen checkpoint: set aside as %s.abandoned",
                          path, path);
            }
        }
        free(its);
        return rc;
    }
    for (int i = count - 1; i >= 0 && rc != TRAIN_OK; i--) {
        if (!train_checkpoint_path(used, n, t->dir, its[i]))
            continue;
        rc = train_load_checkpoint(t, used, &corrupt, err);
        const char *why = NULL;
        if (rc == TRAIN_OK && t->iteration != its[i]) {
            train_err(err, "%s holds iteration %" PRId64 ", not the %" PRId64 " its name says (not this run's "
                      "checkpoint of that name)", used, t->iteration, its[i]);
            why = "foreign";
            rc = TRAIN_EIO;
        } else if (rc == TRAIN_OK && !same_history(t)) {
            train_err(err, "%s is not this run's checkpoint: its metrics row of iteration %" PRId64 " differs from "
                      "the one in metrics.csv", used, t->iteration);
            why = "foreign";
            rc = TRAIN_EIO;
        } else if (rc == TRAIN_EIO) {
            why = corrupt ? "corrupt" : "unreadable";
        }
        if (!why)
            break;   /* loaded, or a checkpoint that does not fit the config (bad input: nothing is changed) */
        train_msg(t, TRAIN_MSG_WARN, "warning: %s; set aside as %s.%s, trying the checkpoint before it", err, used,
                  why);
        set_aside(t, used, why);
        ++*tried;
    }
    free(its);
    return rc == TRAIN_EIO ? 1 : rc;
}

/* latest.h5 and best.h5 as the loaded checkpoint says (a crash may have left newer ones from iterations that
 * are being redone); before the first checkpoint, neither. */
static int sync_exports(trainer *t, char *err)
{
    char path[TRAIN_PATH_LEN + 32];
    int rc = TRAIN_OK;
    if (t->iteration > 0)
        rc = export_net(t, t->net, "latest.h5", err);
    else if (train_join(path, sizeof path, t->dir, "latest.h5"))
        remove(path);
    if (rc != TRAIN_OK)
        return rc;
    if (!judged(t->cfg) ? t->iteration > 0 : t->have_best_net && t->best_iteration > 0)
        return export_best(t, err);
    /* No best net recorded: an older checkpoint format keeps its best.h5; a run before its first
     * evaluation has none (one left there came from abandoned iterations). */
    if (t->best_iteration == 0 && train_join(path, sizeof path, t->dir, "best.h5"))
        remove(path);
    return TRAIN_OK;
}

/* What the checkpoint still owes on resume: the evaluation of its iteration when that was due and skipped
 * (stopped), then its metrics row (metrics.csv was cut back to the rows before it). */
static int settle_owed(trainer *t, char *err)
{
    if (!t->have_row)
        return TRAIN_OK;
    int rc;
    if (eval_due(t, t->iteration) && t->eval_iteration != t->iteration) {
        train_msg(t, TRAIN_MSG_INFO, "iteration %" PRId64 "'s evaluation was not played (the run stopped first): "
                  "playing it now", t->iteration);
        int new_best = 0;
        char ckpt[TRAIN_PATH_LEN + 64];
        if ((rc = evaluate_iteration(t, &t->row, &new_best, err)) != TRAIN_OK ||
            (rc = train_save_checkpoint(t, ckpt, sizeof ckpt, err)) != TRAIN_OK ||
            (new_best && (rc = export_best(t, err)) != TRAIN_OK))
            return rc;
    }
    char merr[512];
    if (train_metrics_append(t->metrics, &t->row, merr, sizeof merr) != 0) {
        train_err(err, "%s", merr);
        return TRAIN_EIO;
    }
    if (t->row.have_eval || t->row.have_accuracy)
        plot(t);
    return TRAIN_OK;
}

/* Resuming a run none of whose checkpoints can be used (tried: how many were set aside just now). A run
 * that never wrote one starts again from iteration 0. One that did (set-aside checkpoints, best.h5 - only
 * ever written after a checkpoint -, a damaged metrics.csv or one of other columns, rows at or past the
 * first iteration that writes a checkpoint, or latest.h5 or a plot with no metrics.csv to date it) is
 * refused, changing nothing, unless opt->restart: then its
 * files are moved into restart-<k>/ first. TRAIN_OK to train from iteration 0, else an error. */
static int no_checkpoint(trainer *t, const char *metrics_path, const char *const *opp, int tried, char *err)
{
    const cfg_config *c = t->cfg;
    char proof[1024] = "", lerr[512], p[TRAIN_PATH_LEN + 32];
    size_t len = 0;
#define PROOF(...) (len += (size_t)snprintf(proof + len, len < sizeof proof ? sizeof proof - len : 0, __VA_ARGS__))
    int aside = train_count_set_aside(t->dir, lerr, sizeof lerr);
    if (aside < 0) {
        train_err(err, "cannot resume '%s': %s", t->dir, lerr);
        return TRAIN_EIO;
    }
    if (aside > 0)
        PROOF("%s%d checkpoint%s set aside in checkpoints/", len ? "; " : "", aside, aside > 1 ? "s" : "");
    if (train_join(p, sizeof p, t->dir, "best.h5") && train_exists(p))
        PROOF("%sbest.h5", len ? "; " : "");
    int64_t last = 0, first_ckpt = c->run.checkpoint_every < c->run.iterations ? c->run.checkpoint_every
                                                                             : c->run.iterations;
    int ms = train_metrics_check(metrics_path, opp, c->eval.n_opponents, -1, &last, lerr, sizeof lerr);
    if (ms == TRAIN_METRICS_DAMAGED || ms == TRAIN_METRICS_MISMATCH)
        PROOF("%s%s", len ? "; " : "", lerr);
    else if (ms == TRAIN_METRICS_OK && last >= first_ckpt)
        PROOF("%smetrics.csv has rows through iteration %" PRId64, len ? "; " : "", last);
    else if (ms == TRAIN_METRICS_MISSING) {
        /* Without metrics.csv nothing dates the net or the plots: they may be all that is left of a run
         * past its first checkpoint, so they are kept (--restart moves them aside). */
        static const char *const traces[] = {"latest.h5", "loss.png", "eval.png", "accuracy.png"};
        for (size_t i = 0; i < sizeof traces / sizeof *traces; i++)
            if (train_join(p, sizeof p, t->dir, traces[i]) && train_exists(p))
                PROOF("%s%s without a metrics.csv", len ? "; " : "", traces[i]);
    }
#undef PROOF
    if (!proof[0] && !t->opt->restart) {
        train_msg(t, TRAIN_MSG_INFO, "%s has no checkpoint (the run stopped before its first): starting it again "
                  "from iteration 0 with its config", t->dir);
    } else if (!t->opt->restart) {
        train_err(err, "cannot resume '%s': none of its checkpoints can be used, yet it has trained (%s); nothing "
                  "was deleted. Resume from a saved copy with --resume %s --checkpoint FILE, or start it again from "
                  "iteration 0 with --resume %s --restart (its files are moved into %s/restart-N/ first), or "
                  "train into a new --run-dir", t->dir, proof, t->dir, t->dir, t->dir);
        return TRAIN_EINVAL;
    } else {
        char sub[TRAIN_PATH_LEN + 32];
        int moved = train_move_aside(t->dir, sub, sizeof sub, lerr, sizeof lerr);
        if (moved < 0) {
            train_err(err, "--restart: %s", lerr);
            return TRAIN_EIO;
        }
        train_msg(t, TRAIN_MSG_INFO, "--restart: starting %s again from iteration 0 with its config; its %d earlier "
                  "file%s moved into %s", t->dir, moved, moved == 1 ? " was" : "s were", sub);
    }
    return tried > 0 ? fresh_state(t, err) : TRAIN_OK;
}

/* metrics.csv missing or damaged (how: TRAIN_METRICS_MISSING / _DAMAGED, t->rebuild_why says where): the
 * damaged file is kept as metrics.csv.corrupt (or .corrupt-<k>), and the file is written anew from the
 * checkpoint's copy of the rows through keep (or, from a checkpoint of an older build without one, from
 * the damaged file's whole rows); rows neither holds are named as lost. */
static int rebuild_metrics(trainer *t, const char *path, const char *const *opp, int64_t keep, int how, char *err)
{
    char aside[TRAIN_PATH_LEN + 96] = "", merr[512];
    if (how == TRAIN_METRICS_DAMAGED) {
        for (int k = 1; k < 1000 && !aside[0]; k++) {
            if (k == 1)
                snprintf(aside, sizeof aside, "%s.corrupt", path);
            else
                snprintf(aside, sizeof aside, "%s.corrupt-%d", path, k);
            if (train_exists(aside))
                aside[0] = 0;
        }
        if (!aside[0] || rename(path, aside) != 0) {
            train_err(err, "%s; cannot set it aside: %s", t->rebuild_why, aside[0] ? strerror(errno) : "no free name");
            return TRAIN_EIO;
        }
    }
    /* A checkpoint of an older build holds no copy of the rows: then the damaged file's whole rows are
     * what there is. */
    const char *rows = t->ckpt_rows, *from = "the checkpoint";
    size_t rows_n = t->ckpt_rows_len;
    char *salvage = NULL;
    if (!rows && aside[0]) {
        FILE *f = fopen(aside, "r");
        size_t cap = 0;
        ssize_t got = f ? getdelim(&salvage, &cap, 0, f) : -1;
        if (f)
            fclose(f);
        rows = got > 0 ? salvage : NULL;
        rows_n = got > 0 ? (size_t)got : 0;
        from = "the damaged file's whole rows (the checkpoint holds no copy of them)";
    }
    int64_t first, count;
    int rc = train_metrics_rebuild(path, opp, t->cfg->eval.n_opponents, rows, rows_n, keep, &first, &count, merr,
                                   sizeof merr);
    free(salvage);
    if (rc != 0) {
        train_err(err, "%s", merr);
        return TRAIN_EIO;
    }
    char lost[256] = "";
    if (count < keep)
        snprintf(lost, sizeof lost, "; the rows of %" PRId64 " of the iterations 1..%" PRId64 " are lost (%s)",
                 keep - count, keep, t->ckpt_rows ? "the checkpoint holds no copy of them" :
                 "the checkpoint, written by an older sowzero, holds no copy of the rows");
    train_msg(t, TRAIN_MSG_WARN, "warning: %s%s%s; rebuilt %s from %s (%" PRId64 " row%s)%s", t->rebuild_why,
              aside[0] ? "; kept as " : "", aside, path, from, count + t->have_row,
              count + t->have_row == 1 ? "" : "s", lost);
    return TRAIN_OK;
}

int train_run(const cfg_config *cfg, const train_options *opt, train_summary *sum, char *err)
{
    trainer tr, *t = &tr;
    memset(t, 0, sizeof *t);
    t->cfg = cfg;
    t->opt = opt;
    t->sum = sum;
    t->t0 = train_now();
    t->lock_fd = -1;
    unsigned fp_mode = fp_fast_begin();
    if (sum) {
        memset(sum, 0, sizeof *sum);
        sum->best_score = -1;
    }
    /* The position set before the run directory: a bad eval.positions leaves nothing behind. */
    int rc = cfg_load_positions(cfg, &t->positions, err) ? TRAIN_EINVAL : TRAIN_OK;
    if (rc == TRAIN_OK && cfg->train.overlap && opt->selfplay) { /* refused before anything is written too */
        train_err(err, "train.overlap plays self-play on a thread beside the learner; under mpirun the workers "
                  "already play beside it: set train.overlap = 0");
        rc = TRAIN_EINVAL;
    }
    if (rc == TRAIN_OK)
        rc = open_run_dir(t, err);
    if (rc == TRAIN_OK)
        rc = setup(t, err);
    if (rc != TRAIN_OK)
        goto out;
    if (sum)
        memcpy(sum->run_dir, t->dir, sizeof sum->run_dir);

    const char *opp[CFG_MAX_OPPONENTS];
    for (int k = 0; k < cfg->eval.n_opponents; k++)
        opp[k] = cfg->eval.opponents[k];
    char path[TRAIN_PATH_LEN + 64], merr[512];
    train_join(path, sizeof path, t->dir, "metrics.csv");
    int64_t keep = -1;
    int rebuild = 0;   /* metrics.csv: 0 cut back, TRAIN_METRICS_MISSING / _DAMAGED rebuilt from the checkpoint */
    if (opt->resume) {
        char ckpt[TRAIN_PATH_LEN + 64];
        int tried = 0;
        rc = load_resume_checkpoint(t, ckpt, sizeof ckpt, &tried, err);
        if (rc == 1) {
            if ((rc = no_checkpoint(t, path, opp, tried, err)) != TRAIN_OK)
                goto out;
        } else if (rc != TRAIN_OK) {
            goto out;
        } else if (opt->restart) {
            train_err(err, "--restart: '%s' has a checkpoint to resume from (%s); --restart only starts again a run "
                      "none of whose checkpoints can be used: leave it out to resume", t->dir, ckpt);
            rc = TRAIN_EINVAL;
            goto out;
        } else {
            flush_state(t);  /* checkpoints written before the flush existed may hold subnormals */
            if (t->have_row && (t->row.have_eval || t->row.have_accuracy)) { /* run.time_limit's estimate */
                t->last_eval_s = t->row.eval_s;
                t->last_eval_games = eval_games(t, t->iteration);
            }
            /* the checkpoint's own row is appended again by settle_owed */
            keep = t->have_row ? t->iteration - 1 : t->iteration;
            t->have_loss_rows = nn_optim_steps(t->optim) > 0;
            t->have_eval_rows = t->best_iteration > 0 && cfg->eval.n_opponents > 0;
            t->have_accuracy_rows = t->best_iteration > 0 && train_has_positions(t);
            train_msg(t, TRAIN_MSG_INFO, "resuming %s from %s (iteration %" PRId64 " of %" PRId64 ")", t->dir, ckpt,
                      t->iteration, cfg->run.iterations);
        }
        /* Everything is checked before anything is written: a rejected --set changes nothing on disk. */
        int ms = keep >= 0 ? train_metrics_check(path, opp, cfg->eval.n_opponents, keep, NULL, merr, sizeof merr) : 0;
        if (ms == TRAIN_METRICS_MISMATCH || ms < 0) {
            train_err(err, "%s", merr);
            rc = ms > 0 ? TRAIN_EINVAL : TRAIN_EIO;
            goto out;
        }
        if (ms == TRAIN_METRICS_DAMAGED || ms == TRAIN_METRICS_MISSING) {
            rebuild = ms;
            snprintf(t->rebuild_why, sizeof t->rebuild_why, "%s", merr);
        }
    } else {
        train_msg(t, TRAIN_MSG_INFO, "run directory: %s", t->dir);
        /* config.ini first: a fresh run killed before it leaves a directory a new start may take again */
        if ((rc = write_config(t, err)) != TRAIN_OK)
            goto out;
    }
    if (rebuild && (rc = rebuild_metrics(t, path, opp, keep, rebuild, err)) != TRAIN_OK)
        goto out;
    t->metrics = train_metrics_open(path, opp, cfg->eval.n_opponents, keep, merr, sizeof merr);
    if (!t->metrics) {
        train_err(err, "%s", merr);
        rc = TRAIN_EIO;
        goto out;
    }
    if (opt->resume && (rc = write_config(t, err)) != TRAIN_OK)
        goto out;
    if (opt->resume && ((rc = sync_exports(t, err)) != TRAIN_OK || (rc = settle_owed(t, err)) != TRAIN_OK))
        goto out;
    if (sum) {
        sum->iterations = t->iteration;
        sum->games = t->games;
        sum->samples = t->samples;
        sum->steps = nn_optim_steps(t->optim);
        sum->elapsed_s = t->elapsed_base;
        sum->best_score = t->best_score;
        sum->best_iteration = t->best_iteration;
        sum->gates = t->gate_counts[0];
        sum->gates_accepted = t->gate_counts[1];
        summarise_eval(t);
    }
    if (t->iteration >= cfg->run.iterations) {
        train_msg(t, TRAIN_MSG_INFO, "the run has done all %" PRId64 " iterations; raise run.iterations (--set "
                  "run.iterations=N) to train further", cfg->run.iterations);
        rc = TRAIN_OK;
        goto out;
    }
    double need_s;
    if (out_of_time(t, t->iteration, &need_s)) {
        train_msg(t, TRAIN_MSG_INFO, "the run has used its time budget (%.1f of run.time_limit = %g minutes; another "
                  "iteration and the final evaluation would need about %.1f more); raise run.time_limit (--set "
                  "run.time_limit=MINUTES) to train further", train_elapsed(t) / 60, cfg->run.time_limit,
                  need_s / 60);
        if (sum)
            sum->time_limited = 1;
        rc = TRAIN_OK;
        goto out;
    }
    double session_t0 = train_now();
    int64_t session_it0 = t->iteration;
    while (t->iteration < t->last_it) {
        rc = iteration(t, session_t0, session_it0, err);
        if (rc != TRAIN_OK)
            break;
    }
    if (rc == TRAIN_EDIVERGED) {
        char path2[TRAIN_PATH_LEN + 64], lerr[256];
        int64_t it;
        char first[TRAIN_ERRLEN];
        snprintf(first, sizeof first, "%s", err);
        if (train_find_latest_checkpoint(t->dir, path2, sizeof path2, &it, lerr, sizeof lerr) == 1)
            train_err(err, "%s; nothing of this iteration was saved, the last good checkpoint is %s; try a lower "
                      "train.lr", first, path2);
        else
            train_err(err, "%s; no checkpoint was written yet; try a lower train.lr", first);
    }
out:
    if (sum && t->dir[0])
        memcpy(sum->run_dir, t->dir, sizeof sum->run_dir);
    teardown(t);
    fp_fast_end(fp_mode);
    return rc;
}
