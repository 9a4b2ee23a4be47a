/* sowzero train — the main job: self-play → replay → SGD → evaluation → checkpoints (docs/design.md §3.4, §4). */
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "env/game.h"
#include "train/config.h"
#include "train/progress.h"
#include "train/mpi_train.h"
#include "train/rundir.h"
#include "train/train.h"

#define MAX_SETS 64

static void help(void)
{
    puts("usage: sowzero train CONFIG.ini [--set SECTION.KEY=VALUE]... [--run-dir DIR] [--stop-after N]\n"
         "       sowzero train --resume RUN_DIR [--checkpoint FILE | --restart] [--set SECTION.KEY=VALUE]...\n"
         "                     [--stop-after N]\n"
         "       sowzero train CONFIG.ini [--set SECTION.KEY=VALUE]... --print-config\n"
         "Trains an agent of any registered game by self-play as the INI config says: Kalah, Mancala basico,\n"
         "and any other game through rules.spec (configs/kalah.ini documents every key; configs/basico-3p.ini,\n"
         "configs/congklak.ini, configs/oware.ini; an installed sowzero also finds configs/NAME.ini and the\n"
         "data/ set a config names in its share/sowzero/ when the working directory has none).\n"
         "Writes a run directory: config.ini (the effective config), metrics.csv, checkpoints/, latest.h5,\n"
         "best.h5 (the evaluated net that did best: highest search accuracy on [eval] positions when set,\n"
         "else best mean match score), loss.png, eval.png (and accuracy.png). Progress goes to stderr (a bar on a\n"
         "terminal), the final evaluation table to stdout. Ctrl-C (or SIGTERM, SIGUSR1) finishes the current\n"
         "iteration, writes a checkpoint and exits 0; a second Ctrl-C aborts at once.\n"
         "  --set S.K=V       override one config key (validated like the file), repeatable\n"
         "  --run-dir DIR     the run directory (default: <run.dir>/<run.name>-<YYYYmmdd-HHMMSS>): new,\n"
         "                    empty or missing (a run there: --resume it)\n"
         "  --resume DIR      continue the run in DIR from its newest checkpoint (its config.ini, plus any\n"
         "                    --set, e.g. --set run.iterations=200 to train further); an evaluation the\n"
         "                    stop skipped is played first; a damaged checkpoint is set aside (*.corrupt,\n"
         "                    *.unreadable, or *.foreign when it is not this run's checkpoint of its name),\n"
         "                    the one before used; a missing or damaged metrics.csv is rebuilt from the\n"
         "                    checkpoint (a damaged one kept as metrics.csv.corrupt); a run that stopped\n"
         "                    before its first checkpoint starts again from iteration 0, but one that has\n"
         "                    trained and has no usable checkpoint left is refused (exit 2, nothing changed)\n"
         "  --checkpoint FILE with --resume: continue from FILE instead of the newest checkpoint (newer ones\n"
         "                    are set aside as *.abandoned); FILE must be one of this run's (its metrics row\n"
         "                    as metrics.csv's): another run's is refused\n"
         "  --restart         with --resume, when no checkpoint can be used: start the run again from\n"
         "                    iteration 0 with its config, its earlier files moved into DIR/restart-N/\n"
         "  --stop-after N    stop as if interrupted once N iterations are done (checkpoint, exit 0)\n"
         "  --print-config    print the effective config with every key documented, and exit\n"
         "One process at a time trains in a run directory (DIR/lock); a second one exits 2 naming the first.\n"
         "Many machines (built with MPI): mpirun -np N sowzero train ... makes rank 0 the learner (everything\n"
         "above) and ranks 1..N-1 self-play workers with selfplay.threads threads each, which stream their\n"
         "samples to it ([mpi] in configs/kalah.ini; <run>/mpi.csv counts what each worker sent). A rank that\n"
         "dies ends the job; --resume continues from the last checkpoint. Stop a job cleanly with\n"
         "kill -USR1 <mpirun's pid> (mpirun forwards SIGUSR1; on Ctrl-C it sends SIGTERM and, 1 s later\n"
         "by default, SIGKILL: raise that with --mca odls_base_sigkill_timeout S).\n"
         "Exit status: 0 done or stopped, 1 runtime error (I/O, divergence: NaN loss), 2 usage/config error.");
}

static volatile sig_atomic_t stop_flag;
static int signal_quiet;   /* MPI self-play ranks: the learner speaks for the job */

static void on_signal(int sig)
{
    if (stop_flag) {
        /* Second request: the user wants out now. */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    stop_flag = 1;
    if (signal_quiet)
        return;
    static const char msg[] = "\nsowzero train: stopping after this iteration (checkpoint follows); "
                              "press Ctrl-C again to abort without saving\n";
    ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)w;
}

typedef struct {
    train_progress *bar;
} ui;

static void on_message(void *ud, int level, const char *text)
{
    (void)level;
    train_progress_message(((ui *)ud)->bar, text);
}

static void on_progress(void *ud, const train_progress_info *info)
{
    train_progress_update(((ui *)ud)->bar, info);
}

static void print_summary(const train_summary *s, const cfg_config *cfg)
{
    char el[32];
    printf("run directory: %s\n", s->run_dir);
    printf("iterations %" PRId64 ", games %" PRId64 ", samples %" PRId64 ", SGD steps %" PRId64 ", elapsed %s\n",
           s->iterations, s->games, s->samples, s->steps, train_format_duration(s->elapsed_s, el, sizeof el));
    if (s->time_limited)
        printf("run.time_limit (%g minutes) ended the run after iteration %" PRId64 " of %" PRId64 "\n",
               cfg->run.time_limit, s->iterations, cfg->run.iterations);
    if (cfg->eval.gate == CFG_GATE_SPRT)
        printf("gate (SPRT, elo %g..%g): %" PRId64 " tests, %" PRId64 " nets accepted as the self-play net\n",
               cfg->eval.gate_elo0, cfg->eval.gate_elo1, s->gates, s->gates_accepted);
    if (!s->have_eval)
        return;
    char spec[GAME_SPEC_MAX], seat[2][24] = {"South", "North"};
    game *g = game_create(cfg_rules_spec(cfg, spec, sizeof spec), NULL); /* the run's rules: accepted */
    const int players = g ? game_players(g) : 2;
    for (int q = 0; g && q < 2; q++)
        game_seat_name(g, q, seat[q], sizeof seat[q]);
    game_free(g);
    if (players > 2) {
        printf("evaluation after iteration %" PRId64 ": az sims=%d in one seat (rotating), the opponent in the "
               "other %d\n", s->eval_iteration, cfg->eval.sims, players - 1);
        printf("%-22s %6s %11s %15s %11s %8s %8s %12s\n", "opponent", "games", "rank score", "95% interval",
               "mean place", "firsts", "seat 0", "other seats");
        for (int k = 0; k < s->n_opponents; k++) {
            const train_eval_result *r = &s->eval[k];
            printf("%-22s %6d %11.3f    [%.3f, %.3f] %11.2f %8d %8.3f %12.3f\n", r->opponent, r->games, r->score,
                   r->score_lo, r->score_hi, r->mean_place, r->wins, r->seat_score[0], r->seat_score[1]);
        }
        if (s->best_iteration > 0)
            printf("best.h5: iteration %" PRId64 " (mean rank score %.3f)\n", s->best_iteration, s->best_score);
        return;
    }
    printf("evaluation after iteration %" PRId64 ": az sims=%d vs each opponent, colour-swapped games\n",
           s->eval_iteration, cfg->eval.sims);
    char head[2][40];
    for (int q = 0; q < 2; q++)
        snprintf(head[q], sizeof head[q], "as %s (W-D-L)", seat[q]);
    printf("%-22s %6s %7s %15s %20s %20s\n", "opponent", "games", "score", "95% interval", head[0], head[1]);
    for (int k = 0; k < s->n_opponents; k++) {
        const train_eval_result *r = &s->eval[k];
        char south[32], north[32];
        snprintf(south, sizeof south, "%.3f (%d-%d-%d)", r->seat_score[0], r->seat_wins[0], r->seat_draws[0],
                 r->seat_losses[0]);
        snprintf(north, sizeof north, "%.3f (%d-%d-%d)", r->seat_score[1], r->seat_wins[1], r->seat_draws[1],
                 r->seat_losses[1]);
        printf("%-22s %6d %7.3f    [%.3f, %.3f] %20s %20s\n", r->opponent, r->games, r->score, r->score_lo,
               r->score_hi, south, north);
    }
    if (s->have_accuracy) {
        printf("accuracy on %s: raw policy %.1f%% optimal moves, mean regret %.2f seeds; search (sims=%d) "
               "%.1f%%, %.2f seeds\n", cfg->eval.positions, 100 * s->accuracy_raw, s->regret_raw, cfg->eval.sims,
               100 * s->accuracy_search, s->regret_search);
        if (s->best_iteration > 0)
            printf("best.h5: iteration %" PRId64 " (the best search accuracy on the set, %.2f%%)\n",
                   s->best_iteration, 100 * s->best_score);
        return;
    }
    if (s->best_iteration > 0)
        printf("best.h5: iteration %" PRId64 " (mean score %.3f)\n", s->best_iteration, s->best_score);
}

#ifdef SOWZERO_MPI
/* A self-play rank of an MPI job (train/mpi_train.h) until the learner's stop. An error ends the whole
 * job: the learner cannot go on without knowing, and the run resumes from its last checkpoint. */
static int train_worker(const cfg_config *cfg, int rank, char *err)
{
    if (mpit_worker_run(cfg, rank, &stop_flag, err) != 0) {
        cli_error("train", "rank %d: %s", rank, err);
        mpit_abort(1);
    }
    mpit_finalize();
    return 0;
}

static void train_msg_late(int64_t late, int size)
{
    fprintf(stderr, "sowzero train: %d self-play worker%s stopped (%" PRId64 " samples that arrived after the "
            "last iteration were not used)\n", size - 1, size > 2 ? "s" : "", late);
}
#endif

int cmd_train(int argc, char **argv)
{
    static const struct option opts[] = {{"set", required_argument, NULL, 's'},
                                         {"run-dir", required_argument, NULL, 'd'},
                                         {"resume", required_argument, NULL, 'r'},
                                         {"stop-after", required_argument, NULL, 'a'},
                                         {"print-config", no_argument, NULL, 'p'},
                                         {"checkpoint", required_argument, NULL, 'c'},
                                         {"restart", no_argument, NULL, 'R'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *sets[MAX_SETS], *run_dir = NULL, *resume = NULL, *checkpoint = NULL;
    int n_sets = 0, print_config = 0, restart = 0, c;
    long stop_after = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (n_sets == MAX_SETS) {
                cli_error("train", "--set: at most %d overrides", MAX_SETS);
                return 2;
            }
            sets[n_sets++] = optarg;
            break;
        case 'd':
            run_dir = optarg;
            break;
        case 'r':
            resume = optarg;
            break;
        case 'a':
            if (!cli_long("train", "--stop-after", optarg, 1, 1000000000L, &stop_after))
                return 2;
            break;
        case 'p':
            print_config = 1;
            break;
        case 'c':
            checkpoint = optarg;
            break;
        case 'R':
            restart = 1;
            break;
        case 'h':
            help();
            return 0;
        default:
            return cli_usage_error("train");
        }
    }
    const char *config_path = optind < argc ? argv[optind] : NULL;
    if (optind + 1 < argc) {
        cli_error("train", "unexpected argument '%s' (one CONFIG file)", argv[optind + 1]);
        return 2;
    }
    if (resume && (config_path || run_dir)) {
        cli_error("train", "--resume DIR continues DIR with its own config.ini: give no CONFIG and no --run-dir");
        return 2;
    }
    if (checkpoint && !resume) {
        cli_error("train", "--checkpoint FILE chooses where --resume DIR continues from: give --resume too");
        return 2;
    }
    if (restart && (!resume || checkpoint)) {
        cli_error("train", "--restart starts a run again that --resume DIR cannot continue: give --resume, and no "
                  "--checkpoint");
        return 2;
    }
    if (checkpoint && access(checkpoint, R_OK) != 0) {
        cli_error("train", "--checkpoint %s: cannot read it", checkpoint);
        return 2;
    }
    if (!resume && !config_path) {
        cli_error("train", "missing CONFIG.ini (or --resume RUN_DIR); see 'sowzero train --help'");
        return 2;
    }

    cfg_config cfg;
    char err[CFG_ERRLEN > TRAIN_ERRLEN ? CFG_ERRLEN : TRAIN_ERRLEN], resume_cfg[TRAIN_PATH_LEN + 16];
    cfg_defaults(&cfg);
    if (resume) {
        train_join(resume_cfg, sizeof resume_cfg, resume, "config.ini");
        config_path = resume_cfg;
        if (access(resume_cfg, R_OK) != 0) {
            cli_error("train", "--resume %s: not a run directory (no readable config.ini in it)", resume);
            return 2;
        }
    }
    char data_path[4096];
    if (!resume)   /* a shipped config (configs/...) is also found in an installed share/sowzero/ */
        config_path = cli_data_path(config_path, data_path, sizeof data_path);
    if (cfg_load(&cfg, config_path, err) != 0) {
        cli_error("train", "%s", err);
        return 2;
    }
    for (int i = 0; i < n_sets; i++)
        if (cfg_set(&cfg, sets[i], err) != 0) {
            cli_error("train", "%s", err);
            return 2;
        }
    if (cfg_finish(&cfg, err) != 0) {
        cli_error("train", "%s", err);
        return 2;
    }
    /* The shipped configs name the shipped position set as data/...: found in share/sowzero/ too. */
    char positions_path[4096];
    const char *positions = cli_data_path(cfg.eval.positions, positions_path, sizeof positions_path);
    if (positions != cfg.eval.positions && strlen(positions) < sizeof cfg.eval.positions)
        strcpy(cfg.eval.positions, positions);
    if (print_config) {
        cfg_write(&cfg, stdout, CFG_WRITE_DOCS);
        return fflush(stdout) == 0 ? 0 : 1;
    }

    char header[4096];
    size_t len = (size_t)snprintf(header, sizeof header, "%s %s", resume ? "resumed from" : "source:", config_path);
    for (int i = 0; i < n_sets && len < sizeof header; i++)
        len += (size_t)snprintf(header + len, sizeof header - len, "%s--set %s", i ? " " : "\noverrides: ", sets[i]);

    int mpi_rank = 0, mpi_size = 1;
#ifdef SOWZERO_MPI
    if (mpit_launched() && mpit_init(&mpi_rank, &mpi_size, err) != 0) {
        cli_error("train", "%s", err);
        return 1;
    }
#endif
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    struct sigaction old_int, old_term, old_usr1;
    stop_flag = 0;
    signal_quiet = mpi_rank > 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGUSR1, &sa, &old_usr1); /* mpirun forwards it without killing: the cluster's clean stop */
#ifdef SOWZERO_MPI
    if (mpi_size > 1 && mpi_rank > 0)
        return train_worker(&cfg, mpi_rank, err);
#endif

    ui u = {.bar = train_progress_create(stderr, isatty(STDERR_FILENO))};
    if (!u.bar) {
        cli_error("train", "out of memory");
        return 1;
    }
    train_options o = {.run_dir = resume ? resume : run_dir, .resume = resume != NULL, .checkpoint = checkpoint,
                       .restart = restart,
                       .stop = &stop_flag,
                       .stop_after = stop_after, .config_header = header, .message = on_message,
                       .progress = on_progress, .ud = &u};
    train_summary sum;
#ifdef SOWZERO_MPI
    mpit_learner *learner = NULL;
    if (mpi_size > 1) {
        if (!(learner = mpit_learner_create(&cfg, mpi_size, &stop_flag, err))) {
            cli_error("train", "%s", err);
            mpit_abort(1);
        }
        o.selfplay = mpit_learner_selfplay;
        o.selfplay_ud = learner;
    }
#endif
    int rc = train_run(&cfg, &o, &sum, err);
#ifdef SOWZERO_MPI
    if (learner) {
        char ferr[MPIT_ERRLEN];
        int64_t late = 0;
        if (mpit_learner_finish(learner, 1800, &late, ferr) != 0) {
            if (rc < 0)
                cli_error("train", "%s", err);
            cli_error("train", "stopping the self-play workers: %s", ferr);
            mpit_abort(1);
        }
        mpit_learner_free(learner);
        mpit_finalize();
        if (rc >= 0)
            train_msg_late(late, mpi_size);
    }
#endif
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGUSR1, &old_usr1, NULL);
    train_progress_free(u.bar);
    if (rc < 0) {
        cli_error("train", "%s", err);
        return rc == TRAIN_EINVAL ? 2 : 1;
    }
    print_summary(&sum, &cfg);
    return fflush(stdout) == 0 ? 0 : 1;
}
