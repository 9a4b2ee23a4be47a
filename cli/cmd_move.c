/* sowzero move — one agent's choice at one position, with what its search found
 * (eval/agent.h, agent_stats). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "eval/agent.h"

#define CMD "move"

static void help(void)
{
    puts("usage: sowzero move AGENT --position POS [--rules SPEC] [--json]\n"
         "The move AGENT chooses at POS, and what it found: for mcts:/az: the visits N, mean value Q (for the\n"
         "player to move, -1..1) and prior P of every root move (az sims=0: the raw policy's P only); for\n"
         "ab: the value (seeds, store difference at the horizon) and principal variation; for solver: the\n"
         "exact final margin after every legal move (a solve per move) and the principal variation.\n"
         "Agents: random, greedy, ab:depth=8, mcts:sims=800, az:net=PATH.h5,sims=200, solver (eval/agent.h).\n"
         "  --position POS  position string (docs/design.md section 2), e.g. \"4,4,4,4,4,4,0,4,4,4,4,4,4,0 S\"\n"
         "  --rules SPEC    rules (default: kalah, or the pits and seeds the position implies)\n"
         "  --json          print {\"agent\",\"rules\",\"position\",\"move\",\"seconds\"} and, when the agent has\n"
         "                  them, \"moves\":[{\"move\",\"visits\",\"q\",\"prior\"}], \"root_visits\"; \"value\",\n"
         "                  \"exact\",\"depth\",\"nodes\",\"pv\":[letters]; \"values\":{letter: margin}");
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
    kalah_rules r;
    kalah_pos p;
    if (!cli_setup(CMD, rules_spec, pos_text, &r, &p))
        return 2;
    if (p.over || !kalah_legal(&r, &p)) {
        cli_error(CMD, "--position %s: the game is over (no move to choose)", pos_text);
        return 2;
    }
    char err[AGENT_ERRLEN];
    agent *a = agent_create(argv[optind], &r, err);
    if (!a) {
        cli_error(CMD, "%s", err);
        return 2;
    }
    agent_set_detail(a, 1);
    agent_new_game(a, &p, 0);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int mv, rc = agent_choose(a, &p, &mv);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (rc != AGENT_OK) {
        cli_error(CMD, "%s", agent_error(a));
        agent_free(a);
        return 1;
    }
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    agent_stats in;
    agent_last_stats(a, &in);
    int tree = in.have_visits || in.have_prior, value = (int)in.value; /* ab, solver: a seed margin */
    /* The principal variation's letters: replayed, since an extra turn keeps the side. */
    char pv[AGENT_MAX_PV][2];
    int pv_len = 0;
    kalah_pos q = p;
    for (int i = 0; i < in.pv_len && !q.over; i++, pv_len++) {
        pv[i][0] = kalah_move_letter(q.side, in.pv[i]);
        pv[i][1] = 0;
        if (kalah_play(&r, &q, in.pv[i], NULL) != KALAH_OK)
            break;
    }
    char rbuf[128], pbuf[80], letter[2] = {kalah_move_letter(p.side, mv), 0};
    unsigned legal = kalah_legal(&r, &p);
    kalah_rules_format(&r, rbuf, sizeof rbuf);
    kalah_pos_format(&r, &p, pbuf, sizeof pbuf);
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "agent", argv[optind]);
        cJSON_AddStringToObject(o, "rules", rbuf);
        cJSON_AddStringToObject(o, "position", pbuf);
        cJSON_AddStringToObject(o, "move", letter);
        cJSON_AddNumberToObject(o, "seconds", seconds);
        if (tree) {
            cJSON_AddNumberToObject(o, "root_visits", in.have_visits ? (double)in.nodes : 0);
            cJSON *arr = cJSON_AddArrayToObject(o, "moves");
            for (int k = 0; k < r.pits; k++)
                if (legal >> k & 1) {
                    cJSON *m = cJSON_CreateObject();
                    char l[2] = {kalah_move_letter(p.side, k), 0};
                    cJSON_AddStringToObject(m, "move", l);
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
            for (int k = 0; k < r.pits; k++)
                if (legal >> k & 1) {
                    char l[2] = {kalah_move_letter(p.side, k), 0};
                    cJSON_AddNumberToObject(vals, l, in.values[k]);
                }
        }
        agent_free(a);
        return cli_print_json(o);
    }
    printf("agent %s\nrules %s\nposition %s (%s to move)\nmove %s  (%.3f s)\n", argv[optind], rbuf, pbuf,
           p.side ? "North" : "South", letter, seconds);
    if (tree) {
        printf("\n  move   visits       Q   prior\n");
        for (int k = 0; k < r.pits; k++)
            if (legal >> k & 1)
                printf("  %c%s %8d  %+6.3f  %6.3f\n", kalah_move_letter(p.side, k), k == mv ? " *" : "  ",
                       in.visits[k], in.q[k], in.prior[k]);
        printf("  root visits %llu\n", in.have_visits ? (unsigned long long)in.nodes : 0ULL);
    }
    if (in.have_values) {
        printf("\n  move  exact margin\n");
        for (int k = 0; k < r.pits; k++)
            if (legal >> k & 1)
                printf("  %c%s  %+4d%s\n", kalah_move_letter(p.side, k), k == mv ? " *" : "  ", in.values[k],
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
    agent_free(a);
    return 0;
}
