/* sowzero play — a person against an agent in the terminal. Reads one command per line from
 * stdin, so it also runs from a script or a pipe; end of input ends the game like `quit`. */
#include <ctype.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd_game.h"
#include "nn/h5io.h"
#include "cli/commands.h"
#include "eval/engine_agent.h"
#include "cli/net_search.h"
#include "eval/agent.h"
#include "eval/engine_agent.h"
#include "eval/record.h"

static void help(void)
{
    puts("usage: sowzero play [AGENT] [--as south|north] [--rules SPEC] [--seed N] [--pgn FILE]\n"
         "Play against AGENT (random, greedy, ab:depth=8, mcts:sims=800, az:net=PATH.h5,sims=200, ...);\n"
         "without one (and without --rules), against the shipped net az:net=nets/kalah-6-4.h5 in Kalah(6,4).\n"
         "South moves first. At your turn type a pit: its letter (South a.., North A..) or its number 1..m\n"
         "counted from your far end (a = 1), or one of\n"
         "  undo   take back your last move (and the agent's replies)\n"
         "  hint   the agent's choice for your position\n"
         "  quit   stop (end of input and Ctrl-C do the same)\n"
         "Commands are case-insensitive. The board is drawn from your seat (your row at the bottom) after\n"
         "every move, the agent's included (an extra turn shows each sowing).\n"
         "At the end, also after Ctrl-C: the score and the game record (eval/record.h format).\n"
         "  --as SIDE     south (default) or north\n"
         "  --rules SPEC  rules (default: kalah; another game: see 'sowzero play --rules basico --help')\n"
         "  --seed N      the agent's per-game seed (default 0)\n"
         "  --pgn FILE    also append the game record to FILE (checked before the game: exit 2 when it cannot\n"
         "                be written or is the agent's net)");
}

/* The board from the human's seat: the human's row at the bottom, left to right a.. (their pits in
 * sowing order), the agent's row on top from the other end, each player's store at their right hand
 * (North playing used to see South's row at the bottom as if seated South). */
static void draw(const kalah_rules *r, const kalah_pos *p, int human, const char *spec)
{
    int m = r->pits, bot = human, top = !human;
    const char *name[2] = {"South", "North"};
    char sep[64] = "";
    for (int k = 0; k < m; k++)
        strcat(sep, "+----");
    strcat(sep, "+");
    printf("\n        ");
    for (int k = m - 1; k >= 0; k--)
        printf("  %c  ", kalah_move_letter(top, k));
    printf("    %s: %s\n        %s\n        |", name[top], spec, sep);
    for (int k = m - 1; k >= 0; k--)
        printf(" %2d |", p->cell[kalah_pit_index(r, top, k)]);
    printf("\n %c%4d  %s  %-4d %c\n        |", name[top][0], p->cell[kalah_store(r, top)], sep,
           p->cell[kalah_store(r, bot)], name[bot][0]);
    for (int k = 0; k < m; k++)
        printf(" %2d |", p->cell[kalah_pit_index(r, bot, k)]);
    printf("\n        %s\n        ", sep);
    for (int k = 0; k < m; k++)
        printf("  %c  ", kalah_move_letter(bot, k));
    printf("    %s: you\n", name[bot]);
    if (!p->over)
        printf("%s to move (%s)\n", name[p->side], p->side == human ? "you" : "agent");
}

/* Set by Ctrl-C (SIGINT): the game stops as at `quit`, so its record is still printed and saved. */
static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
    /* Closing stdin makes the wait for a line end whenever the signal comes: inside read() (EINTR, no
     * SA_RESTART) or just before it (EBADF), where a flag alone would leave getline blocked. */
    close(STDIN_FILENO);
}

/* Plays k from *p, printing what happened. */
static void apply(const kalah_rules *r, kalah_pos *p, int k, const char *who, record_game *g, agent *a)
{
    kalah_step st;
    int side = p->side;
    agent_notify(a, p, k);
    kalah_play(r, p, k, &st);
    record_push(g, k);
    printf("%s %s %c", who, strcmp(who, "you") ? "plays" : "play", kalah_move_letter(side, k));
    if (st.extra_turn)
        printf(" - last seed in the store: another turn");
    if (st.captured)
        printf(" - captures %d", st.captured);
    putchar('\n');
}

/* Replays the record's first n moves into *p and re-syncs the agent (after undo). */
static void rewind_to(const kalah_rules *r, record_game *g, int n, kalah_pos *p, agent *a, uint64_t seed)
{
    kalah_start(r, p);
    agent_new_game(a, p, seed);
    for (int i = 0; i < n; i++) {
        agent_notify(a, p, g->moves[i]);
        kalah_sow(r, p, g->moves[i], NULL);
    }
    g->n_moves = n;
}

int cmd_play(int argc, char **argv)
{
    static const struct option opts[] = {{"as", required_argument, 0, 'a'},
                                         {"rules", required_argument, 0, 'r'},
                                         {"seed", required_argument, 0, 's'},
                                         {"pgn", required_argument, 0, 'p'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *rules_spec = "kalah", *pgn = NULL;
    int human = KALAH_SOUTH, c;
    uint64_t seed = 0;
    int rules_flag = 0;
    for (int i = 1; i < argc; i++)
        rules_flag |= !strncmp(argv[i], "--rules", 7);
    char net_rules[NN_META_LEN], rules_opt[NN_META_LEN + 16];
    if (!rules_flag && argc < 62 &&
        cli_rules_of_nets((const char *const *)argv + 1, argc - 1, net_rules, sizeof net_rules)) {
        /* no --rules: the rules the agent's net was trained for */
        char *args[64];
        snprintf(rules_opt, sizeof rules_opt, "--rules=%s", net_rules);
        args[0] = argv[0];
        args[1] = rules_opt;
        for (int i = 1; i <= argc; i++)
            args[i + 1] = argv[i];
        return cmd_play(argc + 1, args);
    }
    if (cli_game_wanted(argc, argv)) /* every other game: cli/cmd_play_game.c */
        return cmd_play_game(argc, argv);
    for (int e = 1; e < argc && argc < 62; e++)
        if (engine_spec_is_engine(argv[e])) {
            /* an outside engine (eval/engine_agent.h) plays through the game interface, Kalah included
             * (a --rules given on the line comes later and wins) */
            char *args[64], rules_opt[] = "--rules=kalah";
            args[0] = argv[0];
            args[1] = rules_opt;
            for (int i = 1; i <= argc; i++)
                args[i + 1] = argv[i];
            return cmd_play_game(argc + 1, args);
        }
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'a':
            if (!strcmp(optarg, "south"))
                human = KALAH_SOUTH;
            else if (!strcmp(optarg, "north"))
                human = KALAH_NORTH;
            else {
                cli_error("play", "--as: '%s' is not south or north", optarg);
                return 2;
            }
            break;
        case 'r': rules_spec = optarg; break;
        case 's': {
            char *end;
            seed = strtoull(optarg, &end, 10);
            if (!*optarg || *end || *optarg == '-') {
                cli_error("play", "--seed: '%s' is not a whole number >= 0", optarg);
                return 2;
            }
            break;
        }
        case 'p': pgn = optarg; break;
        case 'h': help(); return 0;
        default: return cli_usage_error("play");
        }
    }
    /* No agent: the shipped net, under its own rules (Kalah(6,4), the default ones). */
    char shipped[4200], where[4096];
    if (argc - optind == 0 && !rules_flag)
        snprintf(shipped, sizeof shipped, "az:net=%s", cli_data_path("nets/kalah-6-4.h5", where, sizeof where));
    else if (argc - optind != 1) {
        cli_error("play", "needs one agent spec (got %d arguments%s)", argc - optind,
                  argc - optind == 0 ? "; only Kalah(6,4) without --rules has a default agent, the shipped net" : "");
        return cli_usage_error("play");
    }
    const char *spec = argc - optind == 0 ? shipped : argv[optind];
    if (pgn && !cli_check_records_path("play", pgn, &spec, 1, NULL, NULL, NULL))
        return 2;
    kalah_rules r;
    if (!cli_rules("play", rules_spec, &r))
        return 2;
    char err[AGENT_ERRLEN];
    agent *a = agent_create(spec, &r, err);
    if (!a) {
        cli_error("play", "%s", err);
        return 2;
    }
    record_game g;
    record_game_init(&g, &r, NULL);
    record_set(&g.event, "sowzero play");
    record_set(&g.south, human == KALAH_SOUTH ? "human" : spec);
    record_set(&g.north, human == KALAH_NORTH ? "human" : spec);
    kalah_pos p;
    rewind_to(&r, &g, 0, &p, a, seed);
    const char *agent_side = human == KALAH_SOUTH ? "North" : "South";
    printf("sowzero play: you are %s against %s.\n", human == KALAH_SOUTH ? "South" : "North", spec);
    ns_print_plays("  ", spec, agent_describe(a));
    printf("Type a pit letter or number, undo, hint, quit (help for more).\n");
    char *line = NULL;
    size_t cap = 0;
    int rc = 0, quit = 0, need_board = 1, tty_in = isatty(STDIN_FILENO);
    /* No SA_RESTART: Ctrl-C interrupts the wait for a line. SA_RESETHAND: a second Ctrl-C (say, during a
     * long search of the agent, which is not interruptible) kills as usual. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    while (!p.over && !quit) {
        if (interrupted) {
            printf("\n(interrupted)\n");
            break;
        }
        if (p.side != human) {
            int k;
            if (agent_choose(a, &p, &k) != AGENT_OK) {
                cli_error("play", "the agent failed: %s", agent_error(a));
                rc = 1;
                break;
            }
            apply(&r, &p, k, agent_side, &g, a);
            if (!p.over)
                draw(&r, &p, human, spec); /* every sowing of a multi-move turn */
            need_board = 0;
            continue;
        }
        if (need_board)
            draw(&r, &p, human, spec);
        need_board = 0;
        printf("your move> ");
        fflush(stdout);
        ssize_t len = getline(&line, &cap, stdin);
        if (len < 0 && interrupted)
            continue; /* reported at the top of the loop */
        if (len < 0) {
            printf("\n(end of input)\n");
            break;
        }
        if (!tty_in) { /* echo scripted input, so a transcript reads like a session */
            fputs(line, stdout);
            if (!len || line[len - 1] != '\n')
                putchar('\n');
        }
        char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        for (char *e = s + strlen(s); e > s && isspace((unsigned char)e[-1]);)
            *--e = 0;
        if (!*s)
            continue;
        /* Commands in any case (UNDO, Quit); a move keeps its letter's case, which names the row. */
        char cmd[8] = "";
        for (int i = 0; i < 7 && s[i]; i++)
            cmd[i] = (char)tolower((unsigned char)s[i]);
        if (strlen(s) < sizeof cmd && (!strcmp(cmd, "quit") || !strcmp(cmd, "q") || !strcmp(cmd, "exit") ||
                                       !strcmp(cmd, "help") || !strcmp(cmd, "hint") || !strcmp(cmd, "undo")))
            s = cmd;
        if (!strcmp(s, "quit") || !strcmp(s, "q") || !strcmp(s, "exit")) {
            quit = 1;
        } else if (!strcmp(s, "help") || !strcmp(s, "?")) {
            printf("a pit: %c..%c or 1..%d (1 = your far end); undo, hint, quit\n", kalah_move_letter(human, 0),
                   kalah_move_letter(human, r.pits - 1), r.pits);
        } else if (!strcmp(s, "hint")) {
            int k;
            if (agent_choose(a, &p, &k) == AGENT_OK)
                printf("hint: %s would play %c\n", spec, kalah_move_letter(p.side, k));
            else
                printf("no hint: %s\n", agent_error(a));
        } else if (!strcmp(s, "undo")) {
            /* Back to the position before the human's last move (the agent's replies go too). */
            int n = g.n_moves;
            kalah_pos q;
            int target = -1;
            kalah_start(&r, &q);
            for (int i = 0; i < n; i++) {
                if (q.side == human)
                    target = i;
                kalah_sow(&r, &q, g.moves[i], NULL);
            }
            if (target < 0) {
                printf("nothing to undo\n");
            } else {
                rewind_to(&r, &g, target, &p, a, seed);
                printf("undone: back %d move%s\n", n - target, n - target > 1 ? "s" : "");
                need_board = 1;
            }
        } else {
            int k = kalah_move_parse(&r, p.side, s, 1);
            if (k == KALAH_EILLEGAL)
                printf("'%s' is %s's pit; you play %c..%c\n", s, human == KALAH_SOUTH ? "North" : "South",
                       kalah_move_letter(human, 0), kalah_move_letter(human, r.pits - 1));
            else if (k < 0)
                printf("'%s' is not a move: type %c..%c or 1..%d, or undo, hint, quit\n", s,
                       kalah_move_letter(human, 0), kalah_move_letter(human, r.pits - 1), r.pits);
            else if (!(kalah_legal(&r, &p) & (1u << k)))
                printf("pit %c is empty\n", kalah_move_letter(human, k));
            else {
                apply(&r, &p, k, "you", &g, a);
                if (!p.over && p.side != human)
                    draw(&r, &p, human, spec); /* the board after your move, before the agent's reply */
                else
                    need_board = 1;
            }
        }
    }
    free(line);
    signal(SIGINT, SIG_DFL);
    if (rc == 0) {
        if (p.over)
            draw(&r, &p, human, spec);
        int south = p.cell[kalah_store(&r, 0)], north = p.cell[kalah_store(&r, 1)];
        if (p.over) {
            int w = kalah_winner(&r, &p), mine = human == KALAH_SOUTH ? w : -w;
            printf("game over: South %d - North %d: %s\n", south, north,
                   mine > 0 ? "you win" : mine < 0 ? "you lose" : "a draw");
        } else {
            printf("game stopped: South %d - North %d (unfinished)\n", south, north);
        }
        char rerr[RECORD_ERRLEN];
        printf("\n");
        if (record_write(stdout, &g, rerr)) {
            cli_error("play", "%s", rerr);
            rc = 1;
        }
        if (pgn && cli_records_append("play", pgn, &g))
            rc = 1;
    }
    record_game_clear(&g);
    agent_free(a);
    return rc;
}
