/* sowzero move — one agent's choice at one position, with what its search found
 * (eval/game_agent.h, game_agent_last_stats): every game. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/cmd_game.h"
#include "cli/commands.h"
#include "eval/game_agent.h"

#define CMD "move"

static void help(void)
{
    puts("usage: sowzero move AGENT --position POS [--rules SPEC] [--json]\n"
         "The move AGENT chooses at POS, and what it found: for mcts:/az: the visits N, mean value Q (for the\n"
         "player to move, -1..1) and prior P of every root move (az sims=0: the raw policy's P only); for\n"
         "ab: the value (seeds, store difference at the horizon) and principal variation; for solver: the\n"
         "exact final margin after every legal move (a solve per move) and the principal variation.\n"
         "Every game's agents (eval/game_agent.h): random, greedy, ab:depth=8, mcts:sims=800,\n"
         "az:net=PATH.h5,sims=200, solver (Kalah), solve, maxn, paranoid.\n"
         "  --position POS  position string in the game's notation (docs/design.md section 2), e.g.\n"
         "                  \"4,4,4,4,4,4,0,4,4,4,4,4,4,0 S\"\n"
         "  --rules SPEC    rules of any game (default: kalah, or the pits and seeds the position implies)\n"
         "  --json          print {\"agent\",\"rules\",\"position\",\"move\",\"seconds\"} and, when the agent has\n"
         "                  them, \"moves\":[{\"move\",\"visits\",\"q\",\"prior\"}], \"root_visits\"; \"value\",\n"
         "                  \"exact\",\"depth\",\"nodes\",\"pv\":[letters]; \"values\":{letter: margin}\n"
         "Exit status 2: a bad flag, spec, position or rules, or a damaged tablebase file or one for other\n"
         "rules (solver, az tb=); 1: the agent failed otherwise (no memory, a net evaluation).");
}

int cmd_move(int argc, char **argv)
{
    static const struct option opts[] = {{"position", required_argument, 0, 'p'},
                                         {"rules", required_argument, 0, 'r'},
                                         {"json", no_argument, 0, 'j'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *rules_spec = NULL, *pos_text = NULL;
    int json = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'p': pos_text = optarg; break;
        case 'r': rules_spec = optarg; break;
        case 'j': json = 1; break;
        case 'h': help(); return 0;
        default: return cli_usage_error(CMD);
        }
    }
    if (argc - optind != 1) {
        cli_error(CMD, "needs one agent spec (got %d arguments)", argc - optind);
        return cli_usage_error(CMD);
    }
    if (!pos_text) {
        cli_error(CMD, "needs --position POS");
        return cli_usage_error(CMD);
    }
    /* Without --rules, Kalah's rules come from the position itself (cli_setup). */
    char rbuf[128];
    if (!rules_spec) {
        kalah_rules r;
        kalah_pos kp;
        if (!cli_setup(CMD, rules_spec, pos_text, &r, &kp))
            return 2;
        rules_spec = kalah_rules_format(&r, rbuf, sizeof rbuf);
    }
    game *g = cli_game_create(CMD, rules_spec);
    if (!g)
        return 2;
    char err[AGENT_ERRLEN > GAME_ERRLEN ? AGENT_ERRLEN : GAME_ERRLEN];
    game_pos p;
    if (game_pos_parse(g, pos_text, &p, err) != GAME_OK) {
        cli_error(CMD, "--position %s: %s", pos_text, err);
        game_free(g);
        return 2;
    }
    if (p.over || !game_legal(g, &p)) {
        cli_error(CMD, "--position %s: the game is over (no move to choose)", pos_text);
        game_free(g);
        return 2;
    }
    game_agent *a = game_agent_create(argv[optind], g, err);
    if (!a) {
        cli_error(CMD, "%s", err);
        game_free(g);
        return 2;
    }
    game_agent_set_detail(a, 1);
    game_agent_new_game(a, &p, 0);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int mv, rc = game_agent_choose(a, &p, &mv);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (rc != AGENT_OK) {
        cli_error(CMD, "%s", game_agent_error(a));
        game_agent_free(a);
        game_free(g);
        /* a tablebase file found at the first move (the default size waits for the position) is input */
        return rc == SZ_EFORMAT || rc == SZ_EMISMATCH ? 2 : 1;
    }
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    game_agent_stats in;
    game_agent_last_stats(a, &in);
    int tree = in.have_visits || in.have_prior, value = (int)in.value; /* ab, solver: a seed margin */
    /* The principal variation's names: replayed, since an extra turn keeps the mover. */
    char pv[GAME_AGENT_MAX_PV][8], name[GAME_MAX_MOVES][8], letter[8], pbuf[GAME_POS_STR], seat[32];
    int pv_len = 0;
    game_pos q = p;
    for (int i = 0; i < in.pv_len && !q.over; i++, pv_len++) {
        game_move_format(g, &q, in.pv[i], pv[i], sizeof pv[i]);
        if (game_apply(g, &q, in.pv[i], NULL) != GAME_OK)
            break;
    }
    const int moves = game_moves(g);
    for (int k = 0; k < moves; k++)
        game_move_format(g, &p, k, name[k], sizeof name[k]);
    snprintf(letter, sizeof letter, "%s", name[mv]);
    unsigned legal = game_legal(g, &p);
    game_pos_format(g, &p, pbuf, sizeof pbuf);
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "agent", argv[optind]);
        cJSON_AddStringToObject(o, "rules", game_spec(g));
        cJSON_AddStringToObject(o, "position", pbuf);
        cJSON_AddStringToObject(o, "move", letter);
        cJSON_AddNumberToObject(o, "seconds", seconds);
        if (tree) {
            cJSON_AddNumberToObject(o, "root_visits", in.have_visits ? (double)in.nodes : 0);
            cJSON *arr = cJSON_AddArrayToObject(o, "moves");
            for (int k = 0; k < moves; k++)
                if (legal >> k & 1) {
                    cJSON *m = cJSON_CreateObject();
                    cJSON_AddStringToObject(m, "move", name[k]);
                    cJSON_AddNumberToObject(m, "visits", in.visits[k]);
                    cJSON_AddNumberToObject(m, "q", in.q[k]);
                    cJSON_AddNumberToObject(m, "prior", in.prior[k]);
                    cJSON_AddItemToArray(arr, m);
                }
        }
        if (in.have_pv) {
            cJSON_AddNumberToObject(o, "value", value);
            cJSON_AddBoolToObject(o, "exact", in.exact);
            cJSON_AddNumberToObject(o, "depth", in.depth);
            cJSON_AddNumberToObject(o, "nodes", (double)in.nodes);
            cJSON *arr = cJSON_AddArrayToObject(o, "pv");
            for (int i = 0; i < pv_len; i++)
                cJSON_AddItemToArray(arr, cJSON_CreateString(pv[i]));
        }
        if (in.have_values) {
            cJSON *vals = cJSON_AddObjectToObject(o, "values");
            for (int k = 0; k < moves; k++)
                if (legal >> k & 1)
                    cJSON_AddNumberToObject(vals, name[k], in.values[k]);
        }
        game_agent_free(a);
        game_free(g);
        return cli_print_json(o);
    }
    printf("agent %s\nrules %s\nposition %s (%s to move)\nmove %s  (%.3f s)\n", argv[optind], game_spec(g), pbuf,
           game_seat_name(g, p.to_move, seat, sizeof seat), letter, seconds);
    if (tree) {
        printf("\n  move   visits       Q   prior\n");
        for (int k = 0; k < moves; k++)
            if (legal >> k & 1)
                printf("  %s%s %8d  %+6.3f  %6.3f\n", name[k], k == mv ? " *" : "  ", in.visits[k], in.q[k],
                       in.prior[k]);
        printf("  root visits %llu\n", in.have_visits ? (unsigned long long)in.nodes : 0ULL);
    }
    if (in.have_values) {
        printf("\n  move  exact margin\n");
        for (int k = 0; k < moves; k++)
            if (legal >> k & 1)
                printf("  %s%s  %+4d%s\n", name[k], k == mv ? " *" : "  ", in.values[k],
                       in.values[k] == value ? "  best" : "");
    }
    if (in.have_pv) {
        printf("\nvalue %+d seeds%s", value, in.exact ? " (exact: final margin under perfect play)" : "");
        if (!in.exact)
            printf(" (depth %d)", in.depth);
        printf(", %llu nodes\npv", (unsigned long long)in.nodes);
        for (int i = 0; i < pv_len; i++)
            printf(" %s", pv[i]);
        printf("\n");
    }
    game_agent_free(a);
    game_free(g);
    return 0;
}
