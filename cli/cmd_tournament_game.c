/* sowzero tournament — tournaments of any game: with 2 players a round robin of pairs rated
 * by Bradley–Terry (eval/elo.h); with 3–4 players every combination of `players` agents plays every seat
 * permutation, reported as mean place and first places per agent. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd_game.h"
#include "nn/h5io.h"
#include "cli/commands.h"
#include "cli/elo_report.h"
#include "cli/game_progress.h"
#include "cli/match_opts.h"
#include "cli/output_path.h"
#include "eval/elo.h"

#define CMD "tournament"
#define MAX_AGENTS 64

static void help(void)
{
    puts("usage: sowzero tournament --agent NAME=SPEC --agent NAME=SPEC ... [--rules GAME[:key=value,...]]\n"
         "                         [--games N] [--openings K | --book FILE] [--threads T] [--seed S]\n"
         "                         [--adjudicate N] [--tc MOVE_MS] [--tc BASE+INC] [--tc-margin MS]\n"
         "                         [--anchor NAME[=ELO]] [--pgn FILE] [--csv FILE] [--json]\n"
         "Tournaments of any registered game (--rules: kalah, the default; basico = Mancala basico; congklak,\n"
         "oware, ...; agents as for `sowzero match --help`).\n"
         "2 players: round robin, every pair plays a match of N games (colour-swapped pairs from random\n"
         "openings, the same openings for every pair), then Bradley-Terry maximum-likelihood ratings over all\n"
         "games (draws = half a win each) with 95% intervals and the likelihood-of-superiority table.\n"
         "3-4 players: every combination of P agents plays N games cycling through all P! seat permutations;\n"
         "each agent is reported by its mean place (1 = first), mean rank score (P - place)/(P - 1), first places\n"
         "and mean place by seat, over all its games.\n"
         "  --agent NAME=SPEC  an agent (at least two, at least P for P > 2); a bare SPEC is its own name.\n"
         "                     Every agent is created once per worker thread and kept for the whole\n"
         "                     tournament, every pair or combination it plays reusing it (each game still\n"
         "                     reseeds it, so results are those of fresh agents): a solver's table and\n"
         "                     endgame database carry over, and the openings, the same for every pair, are\n"
         "                     solved once per thread. Memory: each agent's tables per thread for the whole\n"
         "                     tournament: a solver's tt_mb MiB (default 256) x T, plus its database once;\n"
         "                     a Kalah ab agent's tt_mb MiB (default 4) x T\n"
         "  --games N          games per pair or combination (default 20 for 2 players, even; else 4 * P!)\n"
         "  --openings K       random sowings before the agents play (default 2)\n"
         "  --tc MOVE_MS, --tc BASE+INC, --tc-margin MS\n"
         "                     time controls as for `match --help`: a move over its time loses the game on time\n"
         "  --adjudicate N     end a game once its pits hold at most N seeds, with the result of perfect\n"
         "                     play from there (see `match --help`)\n"
         "  --book FILE        the openings of FILE instead (positions or move lists, one a line; see `match\n"
         "                     --help`), the same for every pair: opening i serves the group of games i (both\n"
         "                     colours); --games then defaults to the book once through. Not with --openings\n"
         "  --threads T        worker threads (default: the number of CPUs)\n"
         "  --rules SPEC       rules (default: kalah)\n"
         "  --seed S           seed of the openings and the agents (default 1)\n"
         "  --anchor NAME[=ELO]  2 players: the agent whose rating is fixed (default: the first at 0); ELO\n"
         "                     a finite number in -1e6..1e6, 0 when not given\n"
         "  --pgn FILE         append every game's record to FILE as the game ends (eval/record.h; `elo` and\n"
         "                     `replay --pgn` read it); what FILE held stays before them. --records FILE is the\n"
         "                     same\n"
         "  --csv FILE         2 players: name,elo,lo,hi,games,score; else name,games,mean_place,mean_score,\n"
         "                     firsts (written at the end, replacing FILE)\n"
         "                     Output files are checked before any game: one that cannot be written, or that\n"
         "                     is an input (an az agent's net) or the other output, is refused (exit 2)\n"
         "  --json             2 players: {\"ratings\":[{\"name\",\"elo\",\"lo\",\"hi\",\"games\",\"score\",\"perfect\"}],\n"
         "                     \"anchor\",\"anchor_elo\",\"prior\",\"los\",\"pairs\",\"games\",\"stopped\",\"seconds\",\n"
         "                     \"rules\"}; each pair {\"a\",\"b\",\"wins\",\"draws\",\"losses\",\"score\",\"seconds\",\n"
         "                     \"nodes\",\"games\",\"adjudicated\",\"forfeits\"}\n"
         "                     with nodes [A's, B's]: Kalah ab/solver positions searched, mcts/az root visits;\n"
         "                     3-4 players: {\"rules\",\"agents\":[{\"name\",\"spec\",\"games\",\"seats\",\"mean_place\",\n"
         "                     \"mean_score\",\"firsts\",\"first_share\",\"per_seat\"}] (best mean place first),\n"
         "                     \"combinations\":[{\"agents\",\"mean_place\",\"firsts\",\"games\",\"seconds\"}],\n"
         "                     \"games\",\"stopped\",\"seconds\"}\n"
         "Ctrl-C (SIGINT) or SIGTERM stops the tournament: no game starts after it, the games in play are\n"
         "abandoned (a move being searched is finished first), the ratings or table of the finished games are\n"
         "printed (marked STOPPED; the pair or combination cut short is marked too), their records are all in\n"
         "--pgn FILE already, and the exit status is 130 (SIGINT) or 143 (SIGTERM). A second signal ends the\n"
         "process at once. Exit status 2: a bad flag or path (before any game), 1: a failure while playing.");
}

/* NAME=SPEC, where NAME has no ':' and no ',' (a bare spec such as maxn:depth=3, random,seed=2 or greedy is
 * its own name). */
static void split_agent(char *text, const char **name, const char **spec)
{
    char *eq = strchr(text, '=');
    if (eq && strcspn(text, ":,") > (size_t)(eq - text) && eq != text) {
        *eq = 0;
        *name = text;
        *spec = eq + 1;
    } else {
        *name = *spec = text;
    }
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct {
    int n;
    const char **name, **spec;
    const game *g;
    game_match_config *cfg;
    int json;
    game_progress *prog;
    int stopped; /* a signal stopped the tournament: the last match ran only in part, no later one ran */
    int played;  /* games finished */
    int pgn_failed; /* the --pgn file refused a record (cli_records.error) */
} tourney;

/* Runs one game_match of the agents idx[0..k-1]; prints its error. 0 or 1. */
static int run_one(tourney *t, const int *idx, int k, game_match_result *res)
{
    const char *specs[GAME_MAX_PLAYERS] = {NULL}, *names[GAME_MAX_PLAYERS] = {NULL};
    for (int i = 0; i < k; i++) {
        specs[i] = t->spec[idx[i]];
        names[i] = t->name[idx[i]];
    }
    char err[MATCH_ERRLEN];
    game_match_config cfg = *t->cfg; /* the records name the agents (what `elo` rates them by) */
    cfg.names = names;
    cfg.event = "sowzero tournament";
    int rc = game_match_run(specs, k, t->g, &cfg, res, err);
    t->stopped = rc == MATCH_STOPPED;
    t->pgn_failed = rc == MATCH_EIO;
    if (rc != MATCH_OK && rc != MATCH_STOPPED) {
        char who[4 * (AGENT_SPEC_MAX + 8)];
        size_t len = 0;
        for (int i = 0; i < k && len < sizeof who; i++)
            len += (size_t)snprintf(who + len, sizeof who - len, "%s%s", i ? (k > 2 ? ", " : " vs ") : "",
                                    t->name[idx[i]]);
        game_progress_end(t->prog);
        if (rc != MATCH_EIO) /* the --pgn failure is reported with its reason by the caller */
            cli_error(CMD, "%s: %s", who, err);
        game_match_result_free(res);
        return 1;
    }
    t->prog->offset += t->cfg->games;
    t->played += res->games;
    return 0;
}

/* Two players: round robin of pairs, Bradley–Terry ratings (the Kalah tournament's report). */
/* A pool of the n agents by name (pool index = agent index); NULL after "out of memory". */
static elo_pool *agent_pool(const char *const *name, int n)
{
    elo_pool *pool = elo_pool_create();
    for (int i = 0; pool && i < n; i++)
        if (elo_pool_player(pool, name[i]) != i) {
            elo_pool_free(pool);
            pool = NULL;
        }
    if (!pool)
        cli_error(CMD, "out of memory");
    return pool;
}

/* --anchor NAME=ELO into eo (buf holds the name): 0; 2 after the message when NAME is not an agent or ELO
 * not a finite number in range; 1 when out of memory. The names are known before any game: refused then. */
static int parse_anchor(const char *const *name, int n, const char *anchor, char *buf, size_t bn, elo_options *eo)
{
    elo_pool *pool = agent_pool(name, n);
    if (!pool)
        return 1;
    int bad = elo_report_anchor(anchor, pool, buf, bn, eo), known = 0;
    elo_pool_free(pool);
    if (bad) {
        cli_error(CMD, "--anchor %s: expected NAME=ELO with ELO a finite number in %g..%g", anchor, -ELO_ANCHOR_MAX,
                  ELO_ANCHOR_MAX);
        return 2;
    }
    for (int i = 0; i < n; i++)
        known |= !strcmp(eo->anchor, name[i]);
    if (!known) {
        cli_error(CMD, "--anchor %s: expected NAME=ELO with NAME one of the --agent names", anchor);
        return 2;
    }
    return 0;
}

typedef struct {
    int i, j, w, d, l;
} pair_result;

static int duel_tournament(tourney *t, const char *anchor, const char *csv)
{
    int n = t->n, rc = 1, n_pairs = 0, played[MAX_AGENTS] = {0};
    pair_result *pr = calloc((size_t)(n * (n - 1) / 2 + 1), sizeof *pr);
    elo_pool *pool = agent_pool(t->name, n);
    cJSON *pairs_json = cJSON_CreateArray();
    if (!pool || !pairs_json || !pr) {
        cli_error(CMD, "out of memory");
        goto out;
    }
    elo_options eo = {NULL, 0};
    char anchor_buf[AGENT_SPEC_MAX + 32], eerr[ELO_ERRLEN];
    if (anchor && (rc = parse_anchor(t->name, n, anchor, anchor_buf, sizeof anchor_buf, &eo)))
        goto out;
    rc = 1;
    double t0 = now();
    for (int i = 0; i < n && !t->stopped; i++)
        for (int j = i + 1; j < n && !t->stopped; j++) {
            game_match_result res;
            int idx[2] = {i, j};
            if (run_one(t, idx, 2, &res))
                goto out;
            const match_result *m = &res.two;
            if (!res.games) { /* stopped before this pair's first game ended */
                game_match_result_free(&res);
                break;
            }
            elo_pool_add(pool, i, j, m->all.wins, m->all.draws, m->all.losses);
            played[i] = played[j] = 1;
            pr[n_pairs++] = (pair_result){i, j, m->all.wins, m->all.draws, m->all.losses};
            cJSON *pj = cJSON_CreateObject();
            cJSON_AddStringToObject(pj, "a", t->name[i]);
            cJSON_AddStringToObject(pj, "b", t->name[j]);
            cJSON_AddNumberToObject(pj, "wins", m->all.wins);
            cJSON_AddNumberToObject(pj, "draws", m->all.draws);
            cJSON_AddNumberToObject(pj, "losses", m->all.losses);
            cJSON_AddNumberToObject(pj, "score", m->score);
            cJSON_AddNumberToObject(pj, "seconds", res.seconds);
            cJSON *nodes = cJSON_AddArrayToObject(pj, "nodes");
            for (int a = 0; a < 2; a++)
                cJSON_AddItemToArray(nodes, cJSON_CreateNumber((double)res.agent[a].nodes));
            cJSON *ff = cJSON_AddArrayToObject(pj, "forfeits"); /* games lost by an engine's forfeit */
            for (int a = 0; a < 2; a++)
                cJSON_AddItemToArray(ff, cJSON_CreateNumber(res.agent[a].forfeits));
            cJSON_AddItemToArray(pairs_json, pj);
            cJSON_AddNumberToObject(pj, "games", res.games);
            cJSON_AddNumberToObject(pj, "adjudicated", res.adjudicated);
            if (!t->json) {
                game_progress_end(t->prog);
                printf("  %-16s vs %-16s  +%d =%d -%d  score %.3f  (%.1f s)", t->name[i], t->name[j], m->all.wins,
                       m->all.draws, m->all.losses, m->score, res.seconds);
                if (res.agent[0].forfeits || res.agent[1].forfeits)
                    printf("  forfeits %d / %d", res.agent[0].forfeits, res.agent[1].forfeits);
                if (res.adjudicated)
                    printf("  adjudicated %d", res.adjudicated);
                printf("%s\n", t->stopped ? "  STOPPED: in part" : "");
                fflush(stdout);
            }
            game_match_result_free(&res);
        }
    game_progress_end(t->prog);
    double secs = now() - t0;
    int games = t->played;
    elo_result *er;
    if (t->stopped) { /* ratings of the agents that played: a pool of those alone */
        elo_pool *sub = elo_pool_create();
        int ok = sub != NULL, at[MAX_AGENTS];
        for (int i = 0; ok && i < n; i++)
            if (played[i])
                ok = (at[i] = elo_pool_player(sub, t->name[i])) >= 0;
        for (int k = 0; ok && k < n_pairs; k++)
            ok = elo_pool_add(sub, at[pr[k].i], at[pr[k].j], pr[k].w, pr[k].d, pr[k].l) == ELO_OK;
        if (!ok) {
            elo_pool_free(sub);
            cli_error(CMD, "out of memory");
            goto out;
        }
        if (eo.anchor) {
            int anchored = 0;
            for (int i = 0; i < n; i++)
                anchored |= played[i] && !strcmp(eo.anchor, t->name[i]);
            if (!anchored) {
                cli_error(CMD, "--anchor %s: the agent played no game before the stop: the first agent is "
                          "anchored at 0 instead", anchor);
                eo = (elo_options){NULL, 0};
            }
        }
        elo_pool_free(pool);
        pool = sub;
    }
    int erc = elo_fit(pool, &eo, &er, eerr);
    if (erc && t->stopped) {
        cli_error(CMD, "stopped after %d games: no ratings from them (%s)", games, eerr);
        rc = 1;
        goto out;
    }
    if (erc) {
        cli_error(CMD, "%s%s", erc == ELO_EINVAL && anchor ? "--anchor: " : "", eerr);
        rc = erc == ELO_EINVAL && anchor ? 2 : 1;
        goto out;
    }
    if (csv && elo_report_csv(er, csv)) {
        cli_error(CMD, "--csv %s: cannot write", csv);
        elo_result_free(er);
        goto out;
    }
    if (t->json) {
        cJSON *o = elo_report_json(er);
        cJSON_AddItemToObject(o, "pairs", pairs_json);
        pairs_json = NULL;
        cJSON_AddNumberToObject(o, "games", games);
        cJSON_AddBoolToObject(o, "stopped", t->stopped);
        cJSON_AddNumberToObject(o, "seconds", secs);
        cJSON_AddStringToObject(o, "rules", game_spec(t->g));
        rc = cli_print_json(o);
    } else {
        printf("\n%s%d games in %.1f s\n\n", t->stopped ? "STOPPED: the ratings below are from the finished " : "",
               games, secs);
        elo_report_print(er, stdout);
        rc = 0;
    }
    elo_result_free(er);
out:
    cJSON_Delete(pairs_json);
    elo_pool_free(pool);
    free(pr);
    return rc;
}

/* Adds one match's per-agent statistics into the totals (sums; means are taken at the end). */
static void accumulate(game_match_agent_stats *tot, const game_match_agent_stats *a, int players)
{
    tot->games += a->games;
    tot->seats += a->seats;
    tot->place_sum += a->place_sum;
    tot->mean_score += a->mean_score * a->seats;
    tot->firsts += a->firsts;
    tot->first_share += a->first_share;
    for (int s = 0; s < players; s++) {
        tot->seat_n[s] += a->seat_n[s];
        tot->seat_place[s] += a->seat_place[s] * a->seat_n[s];
    }
}

/* Agents by mean place, best first (ties: the order given); n <= MAX_AGENTS, so insertion sort. */
static void sort_by_place(int *order, int n, const game_match_agent_stats *tot)
{
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && tot[order[j]].mean_place < tot[order[j - 1]].mean_place; j--) {
            int x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
}

/* 3–4 players: every combination of `players` agents (lexicographic), all seat permutations each. */
static int field_tournament(tourney *t, const char *csv)
{
    const int n = t->n, P = game_players(t->g);
    game_match_agent_stats *tot = calloc((size_t)n, sizeof *tot);
    int *order = calloc((size_t)n, sizeof *order), rc = 1, combos = 0;
    cJSON *combos_json = cJSON_CreateArray();
    if (!tot || !order || !combos_json) {
        cli_error(CMD, "out of memory");
        goto out;
    }
    double t0 = now();
    int idx[GAME_MAX_PLAYERS];
    for (int i = 0; i < P; i++)
        idx[i] = i;
    for (;;) {
        game_match_result res;
        if (run_one(t, idx, P, &res))
            goto out;
        if (!res.games) { /* stopped before this combination's first game ended */
            game_match_result_free(&res);
            break;
        }
        combos++;
        int last = t->stopped;
        cJSON *cj = cJSON_CreateObject(), *names = cJSON_AddArrayToObject(cj, "agents"),
              *mp = cJSON_AddArrayToObject(cj, "mean_place"), *fi = cJSON_AddArrayToObject(cj, "firsts");
        for (int i = 0; i < P; i++) {
            accumulate(&tot[idx[i]], &res.agent[i], P);
            cJSON_AddItemToArray(names, cJSON_CreateString(t->name[idx[i]]));
            cJSON_AddItemToArray(mp, cJSON_CreateNumber(res.agent[i].mean_place));
            cJSON_AddItemToArray(fi, cJSON_CreateNumber(res.agent[i].firsts));
        }
        cJSON_AddNumberToObject(cj, "games", res.games);
        cJSON_AddNumberToObject(cj, "seconds", res.seconds);
        cJSON_AddItemToArray(combos_json, cj);
        if (!t->json) {
            game_progress_end(t->prog);
            printf(" ");
            for (int i = 0; i < P; i++)
                printf(" %s %.2f%s", t->name[idx[i]], res.agent[i].mean_place, i + 1 < P ? "," : "");
            printf("  (mean places; %.1f s)%s\n", res.seconds, t->stopped ? "  STOPPED: in part" : "");
            fflush(stdout);
        }
        game_match_result_free(&res);
        if (last)
            break;
        /* Next combination in lexicographic order. */
        int i = P - 1;
        while (i >= 0 && idx[i] == n - P + i)
            i--;
        if (i < 0)
            break;
        idx[i]++;
        for (int j = i + 1; j < P; j++)
            idx[j] = idx[j - 1] + 1;
    }
    game_progress_end(t->prog);
    double secs = now() - t0;
    for (int i = 0; i < n; i++) {
        game_match_agent_stats *a = &tot[i];
        a->mean_place = a->seats ? a->place_sum / a->seats : 0;
        a->mean_score = a->seats ? a->mean_score / a->seats : 0;
        for (int s = 0; s < P; s++)
            if (a->seat_n[s])
                a->seat_place[s] /= a->seat_n[s];
    }
    sort_by_place(order, n, tot);
    if (csv) {
        FILE *f = fopen(csv, "w");
        int bad = !f;
        if (f) {
            fprintf(f, "name,games,mean_place,mean_score,firsts\n");
            for (int k = 0; k < n; k++) {
                const game_match_agent_stats *a = &tot[order[k]];
                fprintf(f, "%s,%d,%.6f,%.6f,%d\n", t->name[order[k]], a->games, a->mean_place, a->mean_score,
                        a->firsts);
            }
            bad = fclose(f) != 0;
        }
        if (bad) {
            cli_error(CMD, "--csv %s: cannot write", csv);
            goto out;
        }
    }
    int games = t->played;
    if (t->json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "rules", game_spec(t->g));
        cJSON_AddBoolToObject(o, "stopped", t->stopped);
        cJSON *arr = cJSON_AddArrayToObject(o, "agents");
        for (int k = 0; k < n; k++) {
            const game_match_agent_stats *a = &tot[order[k]];
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "name", t->name[order[k]]);
            cJSON_AddStringToObject(e, "spec", t->spec[order[k]]);
            cJSON_AddNumberToObject(e, "games", a->games);
            cJSON_AddNumberToObject(e, "seats", a->seats);
            cJSON_AddNumberToObject(e, "mean_place", a->mean_place);
            cJSON_AddNumberToObject(e, "mean_score", a->mean_score);
            cJSON_AddNumberToObject(e, "firsts", a->firsts);
            cJSON_AddNumberToObject(e, "first_share", a->first_share);
            cJSON *ps = cJSON_AddArrayToObject(e, "per_seat");
            for (int s = 0; s < P; s++)
                cJSON_AddItemToArray(ps, a->seat_n[s] ? cJSON_CreateNumber(a->seat_place[s]) : cJSON_CreateNull());
            cJSON_AddItemToArray(arr, e);
        }
        cJSON_AddItemToObject(o, "combinations", combos_json);
        combos_json = NULL;
        cJSON_AddNumberToObject(o, "games", games);
        cJSON_AddNumberToObject(o, "seconds", secs);
        rc = cli_print_json(o);
    } else {
        int w = 4;
        for (int i = 0; i < n; i++)
            if ((int)strlen(t->name[i]) > w)
                w = (int)strlen(t->name[i]);
        printf("\n%s%d games in %.1f s\n\n%4s  %-*s %6s  %10s  %10s  %6s   mean place by seat\n",
               t->stopped ? "STOPPED: the table below is from the finished " : "", games, secs, "rank", w,
               "name", "games", "mean place", "mean score", "firsts");
        for (int k = 0; k < n; k++) {
            const game_match_agent_stats *a = &tot[order[k]];
            printf("%4d  %-*s %6d  %10.3f  %10.3f  %6d  ", k + 1, w, t->name[order[k]], a->games, a->mean_place,
                   a->mean_score, a->firsts);
            for (int s = 0; s < P; s++)
                printf(" %5.2f", a->seat_place[s]);
            printf("\n");
        }
        printf("\nplace 1 = first; rank score = (%d - place) / %d; %s.\n", P, P - 1,
               t->stopped ? "stopped before every combination of agents played every seat permutation"
                          : "every combination of agents played every seat permutation");
        rc = 0;
    }
out:
    cJSON_Delete(combos_json);
    free(tot);
    free(order);
    return rc;
}

int cmd_tournament(int argc, char **argv)
{
    static const struct option opts[] = {MATCH_OPTIONS,
                                         {"agent", required_argument, 0, 'a'},
                                         {"rules", required_argument, 0, 'r'},
                                         {"anchor", required_argument, 0, 'A'},
                                         {"records", required_argument, 0, 'R'},
                                         {"pgn", required_argument, 0, 'p'},
                                         {"csv", required_argument, 0, 'c'},
                                         {"json", no_argument, 0, 'j'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *name[MAX_AGENTS], *spec[MAX_AGENTS];
    int n = 0, json = 0, c;
    cli_match_opts mo = {0};
    game_match_config cfg = game_match_config_default();
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cfg.threads = cpus > 0 ? (int)cpus : 1;
    const char *rules_spec = "kalah", *anchor = NULL, *records = NULL, *csv = NULL;
    int rules_given = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'a':
            if (n == MAX_AGENTS) {
                cli_error(CMD, "--agent: at most %d agents", MAX_AGENTS);
                return 2;
            }
            split_agent(optarg, &name[n], &spec[n]);
            n++;
            break;
        case 'r': rules_spec = optarg; rules_given = 1; break;
        case 'A': anchor = optarg; break;
        case 'R': /* --records: the older name of --pgn */
        case 'p': records = optarg; break;
        case 'c': csv = optarg; break;
        case 'j': json = 1; break;
        case 'h': help(); return 0;
        default:
            switch (cli_match_option(CMD, c, optarg, &cfg, &mo)) {
            case 1: break;
            case 0: return cli_usage_error(CMD);
            default: return 2;
            }
        }
    }
    if (optind < argc) {
        cli_error(CMD, "unexpected argument '%s' (agents are given with --agent NAME=SPEC)", argv[optind]);
        return 2;
    }
    char net_rules[NN_META_LEN];
    if (!rules_given && cli_rules_of_nets((const char *const *)spec, n, net_rules, sizeof net_rules))
        rules_spec = net_rules; /* the rules the agents' nets were trained for */
    game *g = cli_game_create(CMD, rules_spec);
    if (!g)
        return game_free(g), 2;
    const int P = game_players(g);
    if (n < 2 || n < P) {
        cli_error(CMD, "--agent: needs at least %d agents for %d players (got %d)", P > 2 ? P : 2, P, n);
        return game_free(g), 2;
    }
    if (anchor && P > 2) {
        cli_error(CMD, "--anchor: ratings are only fitted for 2 players (%d players report mean places)", P);
        return game_free(g), 2;
    }
    if (anchor) { /* before anything is written or played */
        char buf[AGENT_SPEC_MAX + 32];
        elo_options eo;
        int arc = parse_anchor(name, n, anchor, buf, sizeof buf, &eo);
        if (arc)
            return game_free(g), arc;
    }
    if (!cli_match_setup(CMD, g, P, P == 2 ? 20 : 4 * game_match_group_size(P, P), 1, &cfg, &mo))
        return cli_match_opts_free(&mo), game_free(g), 2;
    /* Output paths are flags: refuse a bad one (exit 2) before hours of games, not after. */
    if (csv && records && cli_same_output(csv, records)) {
        cli_error(CMD, "--csv %s and --pgn %s: the same file; give two", csv, records);
        return cli_match_opts_free(&mo), game_free(g), 2;
    }
    if (records && !cli_check_records_path(CMD, records, spec, n, name, mo.book_path, "the --csv file", csv))
        return cli_match_opts_free(&mo), game_free(g), 2;
    if (csv) {
        cli_input in[MAX_AGENTS + 2];
        char nets[MAX_AGENTS][512], what[MAX_AGENTS][AGENT_SPEC_MAX + 560];
        int k = 0;
        for (int i = 0; i < n; i++)
            if (cli_spec_net(spec[i], nets[k], sizeof nets[k])) {
                snprintf(what[k], sizeof what[k], "the net %s of agent '%s'", nets[k], name[i]);
                in[k] = (cli_input){what[k], nets[k]};
                k++;
            }
        if (records)
            in[k++] = (cli_input){"the --pgn file", records};
        if (mo.book_path)
            in[k++] = (cli_input){"the --book file", mo.book_path};
        if (!cli_output_check(CMD, "--csv", csv, CLI_OUT_STREAM, in, k))
            return cli_match_opts_free(&mo), game_free(g), 2;
    }
    char aerr[AGENT_ERRLEN];
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < i; j++)
            if (!strcmp(name[i], name[j])) {
                cli_error(CMD, "--agent: the name '%s' is given twice", name[i]);
                return cli_match_opts_free(&mo), game_free(g), 2;
            }
        game_agent *ag = game_agent_create(spec[i], g, aerr);
        if (!ag) {
            cli_error(CMD, "--agent %s: %s", name[i], aerr);
            return cli_match_opts_free(&mo), game_free(g), 2;
        }
        game_agent_free(ag);
    }
    long long matches = 1;
    for (int i = 0; i < P; i++) /* C(n, P) */
        matches = matches * (n - i) / (i + 1);
    if (matches * cfg.games > 1000000000LL) {
        cli_error(CMD, "--games: %lld matches of %d games is too many", matches, cfg.games);
        return cli_match_opts_free(&mo), game_free(g), 2;
    }
    cli_records rf = {-1, NULL, 0};
    if (records && cli_records_open(CMD, records, &rf))
        return cli_match_opts_free(&mo), game_free(g), 1;
    game_progress prog;
    game_progress_init(&prog, (int)(matches * cfg.games));
    cfg.progress = game_progress_cb;
    cfg.progress_ud = &prog;
    if (records) {
        cfg.on_record = cli_records_write;
        cfg.record_ud = &rf;
    }
    cfg.stop = cli_stop_flag();
    /* One pool for the whole tournament: every agent once per worker thread (see --help). */
    if (!(cfg.pool = game_match_pool_create(g))) {
        cli_error(CMD, "out of memory");
        if (records)
            cli_records_close(&rf);
        return cli_match_opts_free(&mo), game_free(g), 1;
    }
    tourney t = {n, name, spec, g, &cfg, json, &prog, 0, 0, 0};
    if (!json) {
        printf("%s: %d agents, %lld %s of %d games, rules %s\n\n", P == 2 ? "round robin" : "every combination", n,
               matches, P == 2 ? "pairs" : "combinations", cfg.games, game_spec(g));
    }
    cli_stop_install();
    int rc = P == 2 ? duel_tournament(&t, anchor, csv) : field_tournament(&t, csv);
    cli_stop_restore();
    int pgn_bad = records && (cli_records_close(&rf) || t.pgn_failed);
    if (pgn_bad) {
        cli_error(CMD, "--pgn %s: write failed: %s", records, strerror(rf.error ? rf.error : EIO));
        rc = 1;
    }
    if (t.stopped) {
        int sig = cli_stop_signal();
        cli_error(CMD, "%s: stopped after %d games%s%s", sig == SIGINT ? "interrupted" : "terminated", t.played,
                  records ? "; their records are in " : "", records ? records : "");
        if (!pgn_bad)
            rc = 128 + sig;
    }
    game_match_pool_free(cfg.pool);
    cli_match_opts_free(&mo);
    game_free(g);
    return rc;
}
