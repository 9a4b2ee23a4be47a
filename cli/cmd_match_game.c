/* sowzero match — games of any game among 2–4 agents (eval/game_match.h; for two players colour-swapped
 * pairs from random openings), and the helpers cmd_game.h shares. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd_game.h"
#include "cli/commands.h"
#include "cli/net_search.h"
#include "cli/game_progress.h"
#include "cli/match_opts.h"
#include "cli/match_sprt.h"
#include "cli/output_path.h"
#include "nn/h5io.h"
#include "nn/net.h"

#define CMD "match"

const char *cli_rules_of_nets(const char *const *specs, int n, char *buf, size_t len)
{
    const char *found = NULL;
    for (int i = 0; i < n; i++) {
        char path[1024], err[NN_ERRLEN];
        if (!specs[i] || !cli_spec_net(specs[i], path, sizeof path))
            continue;
        nn_net *net = NULL;
        nn_file_info info;
        if (nn_load(path, NULL, &net, &info, err) != NN_OK)
            continue; /* the agent itself reports the file's fault */
        nn_net_free(net);
        if (found && strcmp(found, info.rules))
            return NULL; /* nets of other rules: the user must say which */
        snprintf(buf, len, "%s", info.rules);
        found = buf;
    }
    return found;
}

game *cli_game_create(const char *cmd, const char *spec)
{
    char err[GAME_ERRLEN];
    game *g = game_create(spec, err);
    if (!g)
        cli_error(cmd, "--rules '%s': %s", spec, err);
    return g;
}

int cli_check_records_path(const char *cmd, const char *path, const char *const *specs, int n_specs,
                           const char *const *names, const char *book, const char *other_flag,
                           const char *other_path)
{
    cli_input in[GAME_MATCH_MAX_AGENTS * 16 + 2];
    char nets[GAME_MATCH_MAX_AGENTS * 16][1024], what[GAME_MATCH_MAX_AGENTS * 16][1200];
    int n = 0;
    for (int i = 0; i < n_specs && n < GAME_MATCH_MAX_AGENTS * 16; i++)
        if (cli_spec_net(specs[i], nets[n], sizeof nets[n])) {
            snprintf(what[n], sizeof what[n], "the net %s of agent '%s'", nets[n], names ? names[i] : specs[i]);
            in[n] = (cli_input){what[n], nets[n]};
            n++;
        }
    if (book)
        in[n++] = (cli_input){"the --book file", book};
    if (other_path)
        in[n++] = (cli_input){other_flag, other_path}; /* other_flag says what it is: "the --csv file" */
    return cli_output_check(cmd, "--pgn", path, CLI_OUT_STREAM, in, n);
}

int cli_records_open(const char *cmd, const char *path, cli_records *r)
{
    r->path = path;
    r->error = 0;
    r->fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
    if (r->fd < 0) {
        cli_error(cmd, "--pgn %s: cannot open for appending: %s", path, strerror(errno));
        return 1;
    }
    /* The tail of what is there: a record must start after a blank line, not on the last line of text. */
    struct stat st;
    char tail[2] = {'\n', '\n'};
    const char *sep = "";
    if (fstat(r->fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        int rfd = open(path, O_RDONLY | O_CLOEXEC);
        off_t at = st.st_size >= 2 ? st.st_size - 2 : 0;
        ssize_t got = rfd >= 0 ? pread(rfd, tail, (size_t)(st.st_size - at), at) : -1;
        if (rfd >= 0)
            close(rfd);
        if (got == 1)
            sep = tail[0] == '\n' ? "\n" : "\n\n";
        else if (got == 2)
            sep = tail[1] != '\n' ? "\n\n" : tail[0] != '\n' ? "\n" : "";
    }
    if (*sep && cli_records_write(r, -1, sep)) {
        cli_error(cmd, "--pgn %s: %s", path, strerror(r->error));
        close(r->fd);
        return 1;
    }
    return 0;
}

int cli_records_write(void *ud, int game, const char *record)
{
    (void)game;
    cli_records *r = ud;
    size_t len = strlen(record);
    while (len) {
        ssize_t n = write(r->fd, record, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            r->error = n < 0 ? errno : EIO;
            return -1;
        }
        record += n;
        len -= (size_t)n;
    }
    return 0;
}

int cli_records_close(cli_records *r)
{
    if (close(r->fd) && !r->error)
        r->error = errno;
    r->fd = -1;
    return r->error ? -1 : 0;
}

int cli_records_append(const char *cmd, const char *path, record_game *g)
{
    char *text = NULL, rerr[RECORD_ERRLEN] = "";
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    int bad = !f || record_write(f, g, rerr) != RECORD_OK;
    if (f)
        bad |= fclose(f) != 0;
    if (bad) {
        cli_error(cmd, "--pgn %s: the record: %s", path, *rerr ? rerr : "out of memory");
        free(text);
        return 1;
    }
    cli_records r;
    if (cli_records_open(cmd, path, &r)) {
        free(text);
        return 1;
    }
    bad = cli_records_write(&r, 0, text);
    free(text);
    if (cli_records_close(&r) || bad) {
        cli_error(cmd, "--pgn %s: write failed: %s", path, strerror(r.error));
        return 1;
    }
    return 0;
}

static atomic_int stop_signal;
static struct sigaction old_int, old_term;

static void on_stop(int sig)
{
    atomic_store(&stop_signal, sig);
    signal(SIGINT, SIG_DFL); /* async-signal-safe; a second signal of either kind ends the process */
    signal(SIGTERM, SIG_DFL);
}

void cli_stop_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    atomic_store(&stop_signal, 0);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
}

void cli_stop_restore(void)
{
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
}

const atomic_int *cli_stop_flag(void)
{
    return &stop_signal;
}

int cli_stop_signal(void)
{
    return atomic_load(&stop_signal);
}

static void help(void)
{
    puts("usage: sowzero match A B [C D] [--rules GAME[:key=value,...]] [--games N] [--openings K | --book FILE]\n"
         "                    [--threads T] [--seed S] [--pgn FILE] [--exact] [--adjudicate N]\n"
         "                    [--tc MOVE_MS] [--tc BASE+INC] [--tc-margin MS] [--sprt ...] [--json]\n"
         "Plays agents against each other in any registered game (--rules: kalah, the default, docs/design.md §1.1;\n"
         "basico = Mancala basico, 1.2; congklak, oware, ...). Two players: colour-swapped pairs, both games\n"
         "of a pair from the same random opening of K sowings, A as South in one and as North in the other;\n"
         "reports A's wins, draws and losses overall and per seat, A's score (a draw = 1/2) with its 95% Wilson\n"
         "interval, the Elo difference A - B the score implies (400 log10(s/(1-s)); at a 0% or 100% score it\n"
         "is shown at n - 1/2 points of n and marked as a bound) and the mean seconds per game by A's seat.\n"
         "More players: with as many agents as players the games cycle through every seat permutation (groups\n"
         "of P! games share one opening); with two agents A plays against copies of B in the other seats, A's\n"
         "seat rotating 0..P-1 (groups of P games). Reports per agent its games, mean place (1 = first; a\n"
         "shared place counts as its number), mean score ((value + 1)/2: basico's rank score (P - place)/(P - 1)),\n"
         "first places and the mean place in each seat.\n"
         "Agents (eval/game_agent.h), each with ,seed=N:\n"
         "  Kalah: random, greedy, ab:depth=8 (nodes=, ms=, tt_mb=), mcts:sims=800, az:net=PATH.h5,sims=200,\n"
         "    solver (perfect play; tt_mb=, endgame=) (eval/agent.h), and maxn, paranoid, solve as below. ab's\n"
         "    and solver's table (tt_mb MiB) is allocated per agent and per worker thread: ab against ab with\n"
         "    --threads T uses 2 x T x tt_mb MiB.\n"
         "  other games: random, greedy, maxn:depth=4, paranoid:depth=4, ab:depth=4 and solve[:nodes=N] (two\n"
         "    players), mcts:sims=800[,rollouts=1][,c_puct=1.5][,solver=1],\n"
         "    az:net=PATH.h5,sims=200[,c_puct][,fpu][,batch]; mcts and az also [,root=puct|gumbel][,gumbel_k=16]\n"
         "    [,gumbel_c_visit=50][,gumbel_c_scale=1] (the Gumbel AlphaZero root, docs/agents.md).\n"
         "  every game: br:target=SPEC[,rollout=SPEC] (a best response to target by playouts, its sub-specs\n"
         "    quoted when they hold commas: match br:target=X X measures how far X can be exploited) and\n"
         "    engine:cmd='...' (an outside engine, docs/protocol.md).\n"
         "  --games N      games (default 100 for two players, even; else 120, a multiple of 3, 4, 6 and 24)\n"
         "  --openings K   random sowings before the agents play (default 2)\n"
         "  --book FILE    play the openings of FILE instead, one a line: a position (\"4,4,0,5,5,5,1,4,4,4,4,4,4,0 S\")\n"
         "                 or moves from the start (\"c f A\"); '#' starts a comment (docs/records.md, \"Opening\n"
         "                 books\"). Opening i serves the games of pair i (group i), both colours, in file order,\n"
         "                 wrapping round; --games defaults to the book once through (--sprt: walked through in\n"
         "                 order). A bad line is an error naming FILE:LINE. Not with --openings. Shipped:\n"
         "                 data/kalah-6-4-fair.book\n"
         "  --threads T    worker threads (default: the number of CPUs)\n"
         "  --rules SPEC   rules (default: kalah; each game's keys: docs/concepts.md, \"Rules specs\")\n"
         "  --seed S       seed of the openings and the agents' per-game randomness (default 1)\n"
         "  --sprt elo0=E0,elo1=E1[,alpha=0.05][,beta=0.05]\n"
         "                 two players: play batches of colour-swapped pairs until the pentanomial GSPRT\n"
         "                 (fishtest's) accepts H1 (A - B = elo1) or H0 (= elo0), at most --games games (default\n"
         "                 20000); prints the LLR after each batch, the pentanomial counts, the score, the Elo and\n"
         "                 the normalized Elo with 95% intervals (--json: {\"sprt\":{...}})\n"
         "  --pgn FILE     append every game's record to FILE as the game ends (eval/record.h; `elo` and\n"
         "                 `replay --pgn` read it), in the order the games end; what FILE held stays before\n"
         "                 them. FILE must not be an input (an az agent's net). --records FILE is the same\n"
         "  --exact        Kalah only (its solver; other games refuse it): also measure A against perfect play (the\n"
         "                 default when A or B is a solver): the exact value V of every opening (one solve per\n"
         "                 pair; --openings 0: the start position) and, per seat, A's mean margin M - V (South's\n"
         "                 margin; North: V - M; seeds) with its 95% Student-t interval and the games where A\n"
         "                 reached V (eval/perfect.h); a solver agent per worker when neither A nor B is one\n"
         "  --tc MOVE_MS   time control: each move may take MOVE_MS milliseconds (1..3600000)\n"
         "  --tc BASE+INC  time control: a game clock of BASE seconds per side, INC seconds added after each of\n"
         "                 its moves (as cutechess's tc=, e.g. 10+0.1); --tc may be given twice, once of each\n"
         "                 kind, and both apply. A move may take its time plus the margin: one that takes\n"
         "                 longer, or an engine with no move by then, loses the game on time ([Termination\n"
         "                 \"time forfeit\"]). Each move's agent aims at MOVE_MS, or at clock/20 + INC (at most\n"
         "                 half the clock): ab stops deepening, mcts and az stop simulating (within their\n"
         "                 depth=, sims= as the most), engines are sent stop (the spec's ms= is replaced);\n"
         "                 random, greedy, solver, maxn, paranoid, solve search as they would\n"
         "  --tc-margin MS how far past its time a move may end (0..60000; default 20)\n"
         "  --adjudicate N once the agents play, a game whose pits hold at most N seeds (1..255; 0 = never)\n"
         "                 ends there with the result of perfect play (games with an exact solver whose end\n"
         "                 sweeps the seeds into the stores: Kalah's solver and endgame database, A's or B's\n"
         "                 when a solver plays, else one per worker; Congklak the game interface's solve);\n"
         "                 its record ends with\n"
         "                 [Termination \"adjudication\"] and the [Result] and [Score] of perfect play\n"
         "  --json         print {\"rules\",\"agents\":[{\"spec\",\"games\",\"seats\" (seats held over the games:\n"
         "                 B's copies count each),\"mean_place\",\"mean_score\",\"firsts\" (first places),\n"
         "                 \"first_share\" (first places, one shared by m seats counting 1/m),\"per_seat\" (mean\n"
         "                 place by seat, null if never there),\"seat_games\",\"plays\" (a spec that plays the\n"
         "                 same with every search key spelt out, az's some from the net's search record;\n"
         "                 null when the spec says it all),\"plays_note\" (where those came from, or null)}],\n"
         "                 \"games\",\"group\",\"openings\",\"threads\",\"seed\",\"avg_sows\",\"seconds\",\n"
         "                 \"planned\" (the games asked for),\n"
         "                 \"book\" (--book FILE or null),\"book_openings\",\"adjudicate\" (N or null),\n"
         "                 \"adjudicated\" (games),\"tc\" ({\"move_ms\",\"base_ms\",\"inc_ms\",\"margin_ms\"} or null);\n"
         "                 per agent also \"forfeits\",\"time_forfeits\",\"ms_per_move\",\n"
         "                 \"stopped\" (true after a signal: \"games\" then counts the finished ones)}; with 2\n"
         "                 players also \"a\",\"b\",\"wins\",\"draws\",\"losses\",\"score\",\n"
         "                 \"score_lo\",\"score_hi\",\"elo\",\"elo_lo\",\"elo_hi\",\"elo_bound\" (\"lower\"/\"upper\"\n"
         "                 when A won/lost every point, else null) and \"per_seat\": {\"south\",\"north\"}, A's\n"
         "                 {wins,draws,losses,score} in each seat, with south_seconds and north_seconds: mean seconds\n"
         "                 per game by A's seat; with exact values also \"perfect\": {\"south\",\"north\": {\"games\",\n"
         "                 \"mean\",\"lo\",\"hi\",\"reached\",\"exact_mean\"}, \"start_value\" (--openings 0: V for\n"
         "                 South, else null), \"seconds_per_solve\"}\n"
         "Ctrl-C (SIGINT) or SIGTERM stops the match: no game starts after it, the games in play are abandoned\n"
         "(a move being searched is finished first), the results of the finished games are printed (marked\n"
         "STOPPED), their records are all in --pgn FILE already, and the exit status is 130 (SIGINT) or 143\n"
         "(SIGTERM). A second signal ends the process at once. Exit status 2: a bad flag, spec or path (checked\n"
         "before any game), or a damaged tablebase file or one for other rules (a solver's default database,\n"
         "sized by the first position, at its first move); 1: a failure while playing.");
}

static void tally_json(cJSON *o, const match_tally *t, double score)
{
    cJSON_AddNumberToObject(o, "wins", t->wins);
    cJSON_AddNumberToObject(o, "draws", t->draws);
    cJSON_AddNumberToObject(o, "losses", t->losses);
    cJSON_AddNumberToObject(o, "score", score);
}

static cJSON *agent_json(const char *spec, const char *desc, const game_match_agent_stats *a, int players)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "spec", spec);
    ns_add_plays_json(e, spec, desc);
    cJSON_AddNumberToObject(e, "games", a->games);
    cJSON_AddNumberToObject(e, "seats", a->seats);
    cJSON_AddNumberToObject(e, "mean_place", a->mean_place);
    cJSON_AddNumberToObject(e, "mean_score", a->mean_score);
    cJSON_AddNumberToObject(e, "firsts", a->firsts);
    cJSON_AddNumberToObject(e, "forfeits", a->forfeits);
    cJSON_AddNumberToObject(e, "time_forfeits", a->time_forfeits);
    cJSON_AddNumberToObject(e, "ms_per_move", a->moves ? a->think_ms / a->moves : 0);
    cJSON_AddNumberToObject(e, "first_share", a->first_share);
    cJSON *ps = cJSON_AddArrayToObject(e, "per_seat"), *sg = cJSON_AddArrayToObject(e, "seat_games");
    for (int s = 0; s < players; s++) {
        cJSON_AddItemToArray(ps, a->seat_n[s] ? cJSON_CreateNumber(a->seat_place[s]) : cJSON_CreateNull());
        cJSON_AddItemToArray(sg, cJSON_CreateNumber(a->seat_n[s]));
    }
    return e;
}

static void perfect_json(cJSON *o, const game_match_config *cfg, const game_match_result *res)
{
    cJSON *pj = cJSON_AddObjectToObject(o, "perfect");
    static const char *seat[2] = {"south", "north"};
    for (int s = 0; s < 2; s++) {
        const perfect_stats *p = &res->perfect[s];
        cJSON *q = cJSON_AddObjectToObject(pj, seat[s]);
        cJSON_AddNumberToObject(q, "games", p->games);
        cJSON_AddNumberToObject(q, "mean", p->mean);
        if (p->have_interval) {
            cJSON_AddNumberToObject(q, "lo", p->lo);
            cJSON_AddNumberToObject(q, "hi", p->hi);
        } else {
            cJSON_AddNullToObject(q, "lo");
            cJSON_AddNullToObject(q, "hi");
        }
        cJSON_AddNumberToObject(q, "reached", p->reached);
        cJSON_AddNumberToObject(q, "exact_mean", p->exact_mean);
    }
    cJSON_AddNumberToObject(pj, "seconds_per_solve", res->exact_seconds);
    if (cfg->opening_plies == 0 && !cfg->book)
        cJSON_AddNumberToObject(pj, "start_value", res->exact[0]);
    else
        cJSON_AddNullToObject(pj, "start_value");
}

static int print_json(char **spec, int k, const game *g, const game_match_config *cfg, const cli_match_opts *mo,
                      int threads, const game_match_result *res, int stopped)
{
    const int players = game_players(g);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "rules", game_spec(g));
    cJSON *arr = cJSON_AddArrayToObject(o, "agents");
    for (int i = 0; i < k; i++)
        cJSON_AddItemToArray(arr, agent_json(spec[i], res->describe[i], &res->agent[i], players));
    cJSON_AddNumberToObject(o, "games", res->games);
    cJSON_AddNumberToObject(o, "planned", cfg->games);
    cJSON_AddBoolToObject(o, "stopped", stopped);
    if (res->duel) {
        const match_result *t = &res->two;
        cJSON_AddStringToObject(o, "a", spec[0]);
        cJSON_AddStringToObject(o, "b", spec[1]);
        tally_json(o, &t->all, t->score);
        cJSON_AddNumberToObject(o, "score_lo", t->score_lo);
        cJSON_AddNumberToObject(o, "score_hi", t->score_hi);
        cJSON_AddNumberToObject(o, "elo", t->elo);
        cJSON_AddNumberToObject(o, "elo_lo", t->elo_lo);
        cJSON_AddNumberToObject(o, "elo_hi", t->elo_hi);
        if (t->elo_clamped)
            cJSON_AddStringToObject(o, "elo_bound", t->elo_clamped > 0 ? "lower" : "upper");
        else
            cJSON_AddNullToObject(o, "elo_bound");
        cJSON *seats = cJSON_AddObjectToObject(o, "per_seat");
        tally_json(cJSON_AddObjectToObject(seats, "south"), &t->seat[0], t->seat_score[0]);
        tally_json(cJSON_AddObjectToObject(seats, "north"), &t->seat[1], t->seat_score[1]);
        cJSON_AddNumberToObject(seats, "south_seconds", t->seat_seconds[0]);
        cJSON_AddNumberToObject(seats, "north_seconds", t->seat_seconds[1]);
    }
    if (res->have_exact)
        perfect_json(o, cfg, res);
    cJSON_AddNumberToObject(o, "group", game_match_group_size(k, players));
    cJSON_AddNumberToObject(o, "openings", cfg->book ? 0 : cfg->opening_plies);
    if (cfg->book) {
        cJSON_AddStringToObject(o, "book", mo->book_path);
        cJSON_AddNumberToObject(o, "book_openings", cfg->book->n);
    } else {
        cJSON_AddNullToObject(o, "book");
    }
    cJSON_AddNumberToObject(o, "threads", threads);
    cJSON_AddNumberToObject(o, "seed", (double)cfg->seed);
    cJSON_AddNumberToObject(o, "avg_sows", res->avg_sows);
    cJSON_AddItemToObject(o, "tc", cli_match_tc_json(cfg));
    if (cfg->adjudicate)
        cJSON_AddNumberToObject(o, "adjudicate", cfg->adjudicate);
    else
        cJSON_AddNullToObject(o, "adjudicate");
    cJSON_AddNumberToObject(o, "adjudicated", res->adjudicated);
    cJSON_AddNumberToObject(o, "seconds", res->seconds);
    return cli_print_json(o);
}

/* Two players: A's tally overall and by seat, the score and the Elo difference it implies. */
static void print_duel(char **spec, const game *g, const game_match_config *cfg, const char *openings, int threads,
                       const game_match_result *res)
{
    const match_result *t = &res->two;
    printf("match  A = %s\n", spec[0]);
    ns_print_plays("           ", spec[0], res->describe[0]);
    printf("       B = %s\n", spec[1]);
    ns_print_plays("           ", spec[1], res->describe[1]);
    printf("%d games (%d opening pairs %s), %d %s, rules %s, seed %llu\n", res->games,
           res->games / 2, openings, threads, cli_threads(threads), game_spec(g),
           (unsigned long long)cfg->seed);
    printf("\n             wins  draws  losses   score\n");
    printf("  A overall  %5d  %5d  %6d   %.3f  [%.3f, %.3f] 95%%\n", t->all.wins, t->all.draws, t->all.losses,
           t->score, t->score_lo, t->score_hi);
    static const char *seat[2] = {"A South ", "A North "};
    for (int s = 0; s < 2; s++)
        printf("  %s   %5d  %5d  %6d   %.3f\n", seat[s], t->seat[s].wins, t->seat[s].draws, t->seat[s].losses,
               t->seat_score[s]);
    if (t->elo_clamped > 0)
        printf("\nElo A - B: > %+.0f  (A scored every point: the estimate is +infinity; shown at %d.5 of %d "
               "points), 95%% lower bound %+.0f\n", t->elo, res->games - 1, res->games, t->elo_lo);
    else if (t->elo_clamped < 0)
        printf("\nElo A - B: < %+.0f  (A scored no point: the estimate is -infinity; shown at 0.5 of %d points), "
               "95%% upper bound %+.0f\n", t->elo, res->games, t->elo_hi);
    else
        printf("\nElo A - B: %+.1f  [%+.0f, %+.0f] 95%%\n", t->elo, t->elo_lo, t->elo_hi);
    printf("%.3f s per game with A South, %.3f with A North\n", t->seat_seconds[0], t->seat_seconds[1]);
}

/* A against the exact values (eval/perfect.h): one line per seat. */
static void print_perfect(const game_match_config *cfg, const game_match_result *res)
{
    if (cfg->opening_plies == 0 && !cfg->book)
        printf("\nagainst perfect play, from the start position (exact value %+d for South):\n", res->exact[0]);
    else
        printf("\nagainst perfect play (the exact value V of each of the %d openings; mean %+.2f for South):\n",
               res->games / 2, res->perfect[0].exact_mean);
    printf("             games   margin - V (seeds)   95%% interval      reached V\n");
    static const char *seat[2] = {"A South ", "A North "};
    for (int s = 0; s < 2; s++) {
        const perfect_stats *p = &res->perfect[s];
        printf("  %s   %5d   %+8.2f             ", seat[s], p->games, p->mean);
        if (p->have_interval)
            printf("[%+6.2f, %+6.2f]", p->lo, p->hi);
        else
            printf("%-16s", "(one game)");
        printf("   %d of %d\n", p->reached, p->games);
    }
    printf("%.3f s per opening's exact solve (the solver's endgame database included; its table then serves "
           "the games)\n", res->exact_seconds);
}

static void print_text(char **spec, int k, const game *g, const game_match_config *cfg, const cli_match_opts *mo,
                       int threads, const game_match_result *res, int stopped)
{
    char openings[4200];
    cli_match_openings_text(cfg, mo, openings, sizeof openings);
    const int players = game_players(g);
    int group = game_match_group_size(k, players);
    if (stopped)
        printf("STOPPED: the results below are those of the %d games that finished, of %d planned\n\n", res->games,
               cfg->games);
    if (res->duel) {
        print_duel(spec, g, cfg, openings, threads, res);
    } else {
        printf("match  rules %s\n", game_spec(g));
        for (int i = 0; i < k; i++) {
            printf("       %c = %s\n", 'A' + i, spec[i]);
            ns_print_plays("           ", spec[i], res->describe[i]);
        }
        if (k == players)
            printf("%d games: every seat permutation, groups of %d games sharing an opening %s; "
                   "%d %s, seed %llu\n", res->games, group, openings, threads, cli_threads(threads),
                   (unsigned long long)cfg->seed);
        else
            printf("%d games: A in one seat (rotating), B in the other %d; groups of %d games sharing an opening "
                   "%s; %d %s, seed %llu\n", res->games, players - 1, group,
                   openings, threads, cli_threads(threads), (unsigned long long)cfg->seed);
        printf("\n     games  seats  mean place  mean score  firsts  |");
        for (int s = 0; s < players; s++)
            printf(" seat%d", s);
        printf("  (mean place by seat)\n");
        for (int i = 0; i < k; i++) {
            const game_match_agent_stats *a = &res->agent[i];
            printf("  %c  %5d  %5d  %10.3f  %10.3f  %6d  |", 'A' + i, a->games, a->seats, a->mean_place,
                   a->mean_score, a->firsts);
            for (int s = 0; s < players; s++)
                if (a->seat_n[s])
                    printf(" %5.2f", a->seat_place[s]);
                else
                    printf(" %5s", "-");
            printf("\n");
        }
    }
    printf("%.1f plies per game; %.3f s, %.1f games/s\n", res->avg_sows, res->seconds,
           res->seconds > 0 ? res->games / res->seconds : 0);
    char tc[160];
    if (*cli_match_tc_text(cfg, tc, sizeof tc)) {
        printf("time control: %s; time per move", tc);
        for (int i = 0; i < k; i++)
            printf("%s%c %.1f ms (%d lost on time)", i ? ", " : " ", 'A' + i,
                   res->agent[i].moves ? res->agent[i].think_ms / res->agent[i].moves : 0, res->agent[i].time_forfeits);
        printf("\n");
    }
    int forfeits = 0;
    for (int i = 0; i < k; i++)
        forfeits += res->agent[i].forfeits;
    for (int i = 0; forfeits && i < k; i++) /* engine agents' lost games (game_match.h, "Forfeits") */
        printf("%s%c %d", i ? ", " : "forfeits (lost by an engine's illegal move, bad line, silence or exit, or on "
               "time; the records' [Termination] says which): ", 'A' + i, res->agent[i].forfeits);
    if (forfeits)
        printf("\n");
    if (cfg->adjudicate)
        printf("%d of %d games adjudicated (ended once the pits held at most %d seeds, scored by perfect play from "
               "there)\n", res->adjudicated, res->games, cfg->adjudicate);
    if (res->have_exact)
        print_perfect(cfg, res);
}

int cmd_match(int argc, char **argv)
{
    static const struct option opts[] = {MATCH_OPTIONS,
                                         {"rules", required_argument, 0, 'r'},
                                         {"records", required_argument, 0, 'R'},
                                         {"pgn", required_argument, 0, 'p'},
                                         {"json", no_argument, 0, 'j'},
                                         {"exact", no_argument, 0, 'x'},
                                         {"sprt", required_argument, 0, 'S'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    game_match_config cfg = game_match_config_default();
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cfg.threads = cpus > 0 ? (int)cpus : 1;
    const char *rules_spec = "kalah", *records = NULL;
    int rules_given = 0;
    int json = 0, c, sprt_given = 0;
    match_sprt_args sprt;
    cli_match_opts mo = {0};
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'r': rules_spec = optarg; rules_given = 1; break;
        case 'R': /* --records: the older name of --pgn */
        case 'p': records = optarg; break;
        case 'j': json = 1; break;
        case 'x': cfg.exact = 1; break;
        case 'S':
            if (!cli_match_sprt_parse(CMD, optarg, &sprt))
                return 2;
            sprt_given = 1;
            break;
        case 'h': help(); return 0;
        default:
            switch (cli_match_option(CMD, c, optarg, &cfg, &mo)) {
            case 1: break;
            case 0: return cli_usage_error(CMD);
            default: return 2;
            }
        }
    }
    char net_rules[NN_META_LEN];
    if (!rules_given && cli_rules_of_nets((const char *const *)argv + optind, argc - optind, net_rules,
                                          sizeof net_rules))
        rules_spec = net_rules; /* the rules the agents' nets were trained for */
    game *g = cli_game_create(CMD, rules_spec);
    if (!g)
        return 2;
    int k = argc - optind, players = game_players(g);
    if (k != players && k != 2) {
        if (players == 2)
            cli_error(CMD, "needs two agent specs A and B (got %d arguments)", k);
        else
            cli_error(CMD, "needs %d agent specs (one per seat) or 2 (A against a field of B) for %d players (got %d)",
                      players, players, k);
        game_free(g);
        return cli_usage_error(CMD);
    }
    if (!cli_match_setup(CMD, g, k, players == 2 ? (sprt_given ? 20000 : 100) : cfg.games, !sprt_given, &cfg,
                         &mo)) {
        cli_match_opts_free(&mo);
        game_free(g);
        return 2;
    }
    char **spec = argv + optind;
    if (records && !cli_check_records_path(CMD, records, (const char *const *)spec, k, NULL, mo.book_path, NULL, NULL)) {
        cli_match_opts_free(&mo);
        game_free(g);
        return 2;
    }
    char aerr[AGENT_ERRLEN];
    for (int i = 0; i < k; i++) {
        game_agent *ag = game_agent_create(spec[i], g, aerr);
        if (!ag) {
            cli_error(CMD, "%s", aerr);
            cli_match_opts_free(&mo);
            game_free(g);
            return 2;
        }
        /* against Kalah's solver the exact values come at no extra solve (its table holds them) */
        cfg.exact |= !strcmp(game_agent_kind(ag), "solver");
        game_agent_free(ag);
    }
    cli_records rf = {-1, NULL, 0};
    if (records && cli_records_open(CMD, records, &rf)) {
        cli_match_opts_free(&mo);
        game_free(g);
        return 1;
    }
    if (sprt_given) { /* cli/match_sprt.h: batches until the test decides; each record written as it ends */
        if (records) {
            cfg.on_record = cli_records_write;
            cfg.record_ud = &rf;
        }
        int src = cli_match_sprt(CMD, spec, g, &cfg, &sprt, json);
        if (records && cli_records_close(&rf) && !src) {
            cli_error(CMD, "--pgn %s: write failed: %s", records, strerror(rf.error));
            src = 1;
        }
        cli_match_opts_free(&mo);
        game_free(g);
        return src;
    }
    game_progress prog;
    game_progress_init(&prog, cfg.games);
    cfg.progress = game_progress_cb;
    cfg.progress_ud = &prog;
    if (records) {
        cfg.on_record = cli_records_write;
        cfg.record_ud = &rf;
    }
    cfg.stop = cli_stop_flag();
    cli_stop_install();
    game_match_result res;
    char err[MATCH_ERRLEN];
    int rc = game_match_run((const char *const *)spec, k, g, &cfg, &res, err);
    cli_stop_restore();
    game_progress_end(&prog);
    if (records && cli_records_close(&rf) && rc != MATCH_EIO)
        rc = MATCH_EIO;
    if (rc == MATCH_EIO)
        cli_error(CMD, "--pgn %s: write failed: %s", records, strerror(rf.error));
    else if (rc != MATCH_OK && rc != MATCH_STOPPED)
        cli_error(CMD, "%s", err);
    if (rc != MATCH_OK && rc != MATCH_STOPPED) {
        game_match_result_free(&res);
        cli_match_opts_free(&mo);
        game_free(g);
        return rc == MATCH_EINVAL ? 2 : 1;
    }
    int stopped = rc == MATCH_STOPPED, sig = cli_stop_signal();
    if (stopped)
        cli_error(CMD, "%s: stopped after %d of %d games%s%s", sig == SIGINT ? "interrupted" : "terminated",
                  res.games, cfg.games, records ? "; their records are in " : "", records ? records : "");
    int threads = cfg.threads < cfg.games ? cfg.threads : cfg.games;
    if (json)
        rc = print_json(spec, k, g, &cfg, &mo, threads, &res, stopped);
    else
        print_text(spec, k, g, &cfg, &mo, threads, &res, stopped);
    game_match_result_free(&res);
    cli_match_opts_free(&mo);
    game_free(g);
    return stopped ? 128 + sig : rc;
}
