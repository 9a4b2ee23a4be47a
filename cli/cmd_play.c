/* sowzero play — a person against agents in the terminal, for every registered game, through the game
 * interface (env/game.h) and the agents of eval/game_agent.h. Reads one command per line from stdin, so it
 * also runs from a script or a pipe; end of input ends the game like `quit`. */
#include <ctype.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd_game.h"
#include "cli/commands.h"
#include "cli/net_search.h"
#include "eval/game_agent.h"
#include "eval/record.h"

#define CMD "play"

static void help(void)
{
    puts("usage: sowzero play [AGENT] [--rules SPEC] [--as south|north | --seat N] [--seed N] [--pgn FILE]\n"
         "Play against AGENT (random, greedy, ab:depth=8, mcts:sims=800, az:net=PATH.h5,sims=200, maxn:depth=3,\n"
         "engine:cmd=..., ...), which takes every other seat (one instance per seat). Without --rules: the rules\n"
         "the agent's net was trained for, else Kalah(6,4); without an agent (and without --rules), the shipped\n"
         "net az:net=nets/kalah-6-4.h5 in Kalah(6,4).\n"
         "At your turn type a move in the game's notation (your pits' letters, a = your first pit in sowing\n"
         "order), or its number 1..m counted the same way, or one of\n"
         "  undo    take back your last move (and the agents' replies)\n"
         "  hint    the agent's choice for your position\n"
         "  resign  leave the game, where the game allows it (basico)\n"
         "  quit    stop (end of input and Ctrl-C do the same)\n"
         "Commands are case-insensitive. The board is drawn from your seat (your row at the bottom) after\n"
         "every move, the agents' included (an extra turn shows each sowing).\n"
         "At the end, also after Ctrl-C: the result and the game record (eval/record.h format; `replay --pgn`\n"
         "and `elo` read it).\n"
         "  --rules SPEC  the game and its rules (docs/concepts.md, \"Rules specs\", lists the games)\n"
         "  --as SIDE     south (seat 0, moves first; default) or north (seat 1)\n"
         "  --seat N      your seat, 0 .. players-1\n"
         "  --seed N      the agents' per-game seed (default 0)\n"
         "  --pgn FILE    also append the game record to FILE (checked before the game: exit 2 when it cannot\n"
         "                be written or is the agent's net); records have no resignation: a game with one is\n"
         "                recorded up to it, unfinished");
}

typedef struct {
    const game *g;
    game_agent *seat[GAME_MAX_PLAYERS]; /* NULL for the human's seat */
    int human;
    uint64_t seed;
    const char *spec;                   /* the agents' spec */
    game_layout lay;                    /* lay.rows == 0: the game has no drawing */
    int *moves, n, cap;                 /* the game's moves; -1: a resignation */
} session;

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

/* Whether the game has a resignation (básico); the prompt offers it only then. */
static int can_resign(const game *g)
{
    game_pos q;
    game_start(g, &q);
    return game_resign(g, &q) == GAME_OK;
}

/* Seat q's name for move k in the game's notation, as that seat would type it. */
static const char *move_name(const session *s, const game_pos *p, int q, int k, char *buf, size_t n)
{
    game_pos t = *p;
    t.to_move = (uint8_t)q;
    return game_move_format(s->g, &t, k, buf, n);
}

static int cell_of(const session *s, int row, int k) { return row * (s->lay.pits + 1) + k; }

/* Two facing rows (game_layout): the human's row at the bottom, left to right in sowing order, the other row
 * on top from the other end, each player's store at their right hand. */
static void draw_facing(const session *s, const game_pos *p)
{
    const int m = s->lay.pits, bot = s->human, top = !s->human;
    char name[2][24], sep[4 * 33 + 2] = "", mv[8];
    game_seat_name(s->g, top, name[0], sizeof name[0]);
    game_seat_name(s->g, bot, name[1], sizeof name[1]);
    for (int k = 0; k < m; k++)
        strcat(sep, "+----");
    strcat(sep, "+");
    printf("\n        ");
    for (int k = m - 1; k >= 0; k--)
        printf("  %-3s", move_name(s, p, top, k, mv, sizeof mv));
    printf("    %s: %s\n        %s\n        |", name[0], s->spec, sep);
    for (int k = m - 1; k >= 0; k--)
        printf(" %2d |", p->cell[cell_of(s, top, k)]);
    printf("\n %c%4d  %s  %-4d %c\n        |", name[0][0], p->cell[cell_of(s, top, m)], sep,
           p->cell[cell_of(s, bot, m)], name[1][0]);
    for (int k = 0; k < m; k++)
        printf(" %2d |", p->cell[cell_of(s, bot, k)]);
    printf("\n        %s\n        ", sep);
    for (int k = 0; k < m; k++)
        printf("  %-3s", move_name(s, p, bot, k, mv, sizeof mv));
    printf("    %s: you\n", name[1]);
}

/* A ring of rows (básico) or more than two players: one line per seat, pits in sowing order, then the
 * store. */
static void draw_rows(const session *s, const game_pos *p)
{
    char mv[8], who[24];
    printf("\n             ");
    for (int k = 0; k < s->lay.pits; k++)
        printf("%4s", move_name(s, p, s->human, k, mv, sizeof mv));
    printf("\n");
    for (int q = 0; q < s->lay.rows; q++) {
        printf("  %-10s ", game_seat_name(s->g, q, who, sizeof who));
        for (int k = 0; k < s->lay.pits; k++)
            printf("%4d", p->cell[cell_of(s, q, k)]);
        printf("   [%d]%s\n", p->cell[cell_of(s, q, s->lay.pits)], q == s->human ? "  you" : "");
    }
}

static void show(const session *s, const game_pos *p)
{
    char buf[GAME_POS_STR], who[24];
    if (s->lay.rows == 2 && !(s->lay.flags & GAME_DRAW_RING) && s->human < 2)
        draw_facing(s, p);
    else if (s->lay.rows)
        draw_rows(s, p);
    printf("position %s\n", game_pos_format(s->g, p, buf, sizeof buf));
    if (!p->over)
        printf("%s to move (%s)\n", game_seat_name(s->g, p->to_move, who, sizeof who),
               p->to_move == s->human ? "you" : "agent");
}

/* Plays move k (-1: resign) from *p, tells every agent and prints what happened. 0, or -1 out of memory
 * (nothing played). */
static int apply(session *s, game_pos *p, int k, const char *who)
{
    if (s->n == s->cap) {
        int nc = s->cap ? 2 * s->cap : 256, *m = realloc(s->moves, (size_t)nc * sizeof *m);
        if (!m)
            return -1;
        s->moves = m;
        s->cap = nc;
    }
    char mv[8] = "resign";
    game_step st = {0};
    if (k >= 0)
        game_move_format(s->g, p, k, mv, sizeof mv);
    for (int q = 0; q < game_players(s->g); q++)
        if (s->seat[q] && k >= 0)
            game_agent_notify(s->seat[q], p, k);
    if (k >= 0)
        game_apply(s->g, p, k, &st);
    else
        game_resign(s->g, p);
    s->moves[s->n++] = k;
    printf("%s %s %s", who, strcmp(who, "you") ? "plays" : "play", mv);
    if (st.extra_turn)
        printf(" - another turn");
    if (st.captured)
        printf(" - captures %d", st.captured);
    if (st.relays)
        printf(" - %d relay%s", st.relays, st.relays > 1 ? "s" : "");
    if (st.finished)
        printf(" - finished");
    putchar('\n');
    return 0;
}

/* Back to the start, replaying the first n moves (after undo); the agents start the game again. */
static void rewind_to(session *s, int n, game_pos *p)
{
    game_start(s->g, p);
    for (int q = 0; q < game_players(s->g); q++)
        if (s->seat[q])
            game_agent_new_game(s->seat[q], p, s->seed + (uint64_t)q);
    for (int i = 0; i < n; i++) {
        if (s->moves[i] < 0) {
            game_resign(s->g, p);
            continue;
        }
        for (int q = 0; q < game_players(s->g); q++)
            if (s->seat[q])
                game_agent_notify(s->seat[q], p, s->moves[i]);
        game_apply(s->g, p, s->moves[i], NULL);
    }
    s->n = n;
}

static int parse_seat(const char *arg, int *out)
{
    if (!strcmp(arg, "south") || !strcmp(arg, "north")) {
        *out = arg[0] == 'n';
        return 1;
    }
    char *end;
    long v = strtol(arg, &end, 10);
    if (!*arg || *end || v < 0 || v >= GAME_MAX_PLAYERS)
        return 0;
    *out = (int)v;
    return 1;
}

/* The human's move in text t: the game's notation, or 1..m (the human's k-th pit in sowing order). Prints
 * why t is no move and returns -1 then. */
static int parse_move(const session *s, const game_pos *p, const char *t)
{
    char err[GAME_ERRLEN], first[8], last[8];
    const int m = game_moves(s->g);
    move_name(s, p, s->human, 0, first, sizeof first);
    move_name(s, p, s->human, m - 1, last, sizeof last);
    int k = -1;
    if (isdigit((unsigned char)t[0]) && strlen(t) <= 3) {
        char *end;
        long v = strtol(t, &end, 10);
        if (*end || v < 1 || v > m) {
            printf("'%s' is not a move: type %s..%s or 1..%d, or undo, hint, quit\n", t, first, last, m);
            return -1;
        }
        k = (int)v - 1;
    } else if ((k = game_move_parse(s->g, p, t, err)) < 0) {
        for (int q = 0; q < game_players(s->g); q++) { /* another seat's pit names that seat */
            game_pos o = *p;
            o.to_move = (uint8_t)q;
            char who[24];
            if (q != s->human && game_move_parse(s->g, &o, t, err) >= 0) {
                printf("'%s' is %s's pit; you play %s..%s\n", t, game_seat_name(s->g, q, who, sizeof who), first,
                       last);
                return -1;
            }
        }
        printf("'%s' is not a move: type %s..%s or 1..%d, or undo, hint, quit\n", t, first, last, m);
        return -1;
    }
    game_pos q = *p;
    if (game_apply(s->g, &q, k, NULL) != GAME_OK) {
        char mv[8];
        move_name(s, p, s->human, k, mv, sizeof mv);
        if (s->lay.rows && p->cell[cell_of(s, s->human, k)] == 0)
            printf("pit %s is empty\n", mv);
        else
            printf("%s is not allowed here by the rules of %s\n", mv, game_name(s->g));
        return -1;
    }
    return k;
}

/* Reads and handles one line at the human's turn: 0 go on, 1 quit/end of input/Ctrl-C, -1 out of memory.
 * *shown: whether the board the human sees is the current one. */
static int human_turn(session *s, game_pos *p, char **line, size_t *cap, int tty_in)
{
    printf("your move> ");
    fflush(stdout);
    ssize_t len = getline(line, cap, stdin);
    if (len < 0 && interrupted) {
        printf("\n(interrupted)\n");
        return 1;
    }
    if (len < 0) {
        printf("\n(end of input)\n");
        return 1;
    }
    if (!tty_in) { /* echo scripted input, so a transcript reads like a session */
        fputs(*line, stdout);
        if (!len || (*line)[len - 1] != '\n')
            putchar('\n');
    }
    char *t = *line;
    while (isspace((unsigned char)*t))
        t++;
    for (char *e = t + strlen(t); e > t && isspace((unsigned char)e[-1]);)
        *--e = 0;
    if (!*t)
        return 0;
    /* Commands in any case (UNDO, Quit); a move keeps its letter's case, which names the row. */
    char cmd[8] = "";
    for (int i = 0; i < 7 && t[i]; i++)
        cmd[i] = (char)tolower((unsigned char)t[i]);
    if (strlen(t) >= sizeof cmd)
        cmd[0] = 0;
    if (!strcmp(cmd, "quit") || !strcmp(cmd, "q") || !strcmp(cmd, "exit"))
        return 1;
    if (!strcmp(cmd, "help") || !strcmp(cmd, "?")) {
        char first[8], last[8];
        move_name(s, p, s->human, 0, first, sizeof first);
        move_name(s, p, s->human, game_moves(s->g) - 1, last, sizeof last);
        printf("a pit: %s..%s or 1..%d (1 = your first pit in sowing order); undo, hint, %squit\n", first, last,
               game_moves(s->g), can_resign(s->g) ? "resign, " : "");
    } else if (!strcmp(cmd, "hint")) {
        int k;
        game_agent *a = s->seat[(s->human + 1) % game_players(s->g)];
        if (game_agent_choose(a, p, &k) == AGENT_OK) {
            char mv[8];
            printf("hint: %s would play %s\n", s->spec, game_move_format(s->g, p, k, mv, sizeof mv));
        } else {
            printf("no hint: %s\n", game_agent_error(a));
        }
    } else if (!strcmp(cmd, "undo")) {
        game_pos q;
        int target = -1;
        game_start(s->g, &q);
        for (int i = 0; i < s->n; i++) {
            if (q.to_move == s->human)
                target = i;
            if (s->moves[i] < 0)
                game_resign(s->g, &q);
            else
                game_apply(s->g, &q, s->moves[i], NULL);
        }
        if (target < 0) {
            printf("nothing to undo\n");
        } else {
            int back = s->n - target;
            rewind_to(s, target, p);
            printf("undone: back %d move%s\n", back, back > 1 ? "s" : "");
            show(s, p);
        }
    } else if (!strcmp(cmd, "resign")) {
        game_pos q = *p;
        if (game_resign(s->g, &q) != GAME_OK)
            printf("%s has no resignation; type quit to stop\n", game_name(s->g));
        else if (apply(s, p, -1, "you"))
            return -1;
        else
            show(s, p);
    } else {
        int k = parse_move(s, p, t);
        if (k >= 0) {
            if (apply(s, p, k, "you"))
                return -1;
            show(s, p); /* the board after your move, before the agents' replies */
        }
    }
    return 0;
}

/* The result line: two players with stores, their stores and the human's result; otherwise each seat's
 * place. */
static void print_result(const session *s, const game_pos *p)
{
    const int np = game_players(s->g);
    char name[GAME_MAX_PLAYERS][24];
    for (int q = 0; q < np; q++)
        game_seat_name(s->g, q, name[q], sizeof name[q]);
    const int scores = np == 2 && s->lay.rows == 2;
    if (scores) {
        printf("game %s: %s %d - %s %d", p->over ? "over" : "stopped", name[0], p->cell[cell_of(s, 0, s->lay.pits)],
               name[1], p->cell[cell_of(s, 1, s->lay.pits)]);
        if (!p->over) {
            printf(" (unfinished)\n");
            return;
        }
    } else if (!p->over) {
        printf("game stopped (unfinished)\n");
        return;
    } else {
        printf("game over:");
    }
    double v[GAME_MAX_PLAYERS];
    game_values(s->g, p, v);
    if (np == 2) {
        const double mine = v[s->human] - v[!s->human];
        printf("%s%s\n", scores ? ": " : " ", mine > 0 ? "you win" : mine < 0 ? "you lose" : "a draw");
        return;
    }
    for (int q = 0; q < np; q++) {
        int place = 1;
        for (int o = 0; o < np; o++)
            place += v[o] > v[q];
        printf(" %s%s place %d;", name[q], q == s->human ? " (you)" : "", place);
    }
    putchar('\n');
}

/* The game's record (every move up to the first resignation, which the record format cannot hold) on
 * stdout and, with pgn, appended to it (cmd_game.h cli_records_append). 0, or 1 after the message. */
static int write_record(const session *s, const char *pgn)
{
    record_game rec;
    char err[RECORD_ERRLEN];
    memset(&rec, 0, sizeof rec);
    if (record_game_init_game(&rec, s->g, NULL, err) != RECORD_OK) {
        cli_error(CMD, "the record: %s", err);
        return 1;
    }
    int bad = record_set(&rec.event, "sowzero play") != RECORD_OK, n = 0;
    for (int q = 0; q < game_players(s->g); q++)
        bad |= record_set_seat(&rec, q, q == s->human ? "human" : s->spec, NULL) != RECORD_OK;
    while (n < s->n && s->moves[n] >= 0)
        bad |= record_push(&rec, s->moves[n++]) != RECORD_OK;
    if (bad) {
        record_game_clear(&rec);
        cli_error(CMD, "out of memory");
        return 1;
    }
    if (n < s->n)
        printf("(the record stops before the resignation at move %d: records have no resignations)\n", n + 1);
    putchar('\n');
    int rc = 0;
    if (record_write(stdout, &rec, err)) {
        cli_error(CMD, "%s", err);
        rc = 1;
    }
    if (pgn && cli_records_append(CMD, pgn, &rec))
        rc = 1;
    record_game_clear(&rec);
    return rc;
}

/* The agents' turns until the human's or the end: 0, 1 the agent failed (after the message), 2 an outside
 * engine forfeited, -1 out of memory. */
static int agents_turn(session *s, game_pos *p)
{
    while (!p->over && p->to_move != s->human && !interrupted) {
        int k;
        game_agent *a = s->seat[p->to_move];
        int arc = game_agent_choose(a, p, &k);
        if (arc == AGENT_EFORFEIT) { /* an outside engine lost the game (eval/engine_agent.h) */
            printf("%s\nThe game ends: the engine lost it by forfeit.\n", game_agent_error(a));
            return 2;
        }
        if (arc != AGENT_OK) {
            cli_error(CMD, "the agent failed: %s", game_agent_error(a));
            return 1;
        }
        char who[24];
        game_seat_name(s->g, p->to_move, who, sizeof who);
        if (apply(s, p, k, who))
            return -1;
        if (!p->over)
            show(s, p); /* every sowing of a multi-move turn */
    }
    return 0;
}

/* Parses the options into s, *rules and *pgn: 0, 1 after --help, 2 after the message. */
static int parse_options(int argc, char **argv, session *s, const char **rules, const char **pgn)
{
    static const struct option opts[] = {{"as", required_argument, 0, 'a'},  {"seat", required_argument, 0, 'a'},
                                         {"rules", required_argument, 0, 'r'}, {"seed", required_argument, 0, 's'},
                                         {"pgn", required_argument, 0, 'p'},   {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'a':
            if (!parse_seat(optarg, &s->human)) {
                cli_error(CMD, "--as/--seat: '%s' is not south, north or a seat number 0..%d", optarg,
                          GAME_MAX_PLAYERS - 1);
                return 2;
            }
            break;
        case 'r': *rules = optarg; break;
        case 's': {
            char *end;
            s->seed = strtoull(optarg, &end, 10);
            if (!*optarg || *end || *optarg == '-') {
                cli_error(CMD, "--seed: '%s' is not a whole number >= 0", optarg);
                return 2;
            }
            break;
        }
        case 'p': *pgn = optarg; break;
        case 'h': help(); return 1;
        default: return 2;
        }
    }
    return 0;
}

int cmd_play(int argc, char **argv)
{
    session *s = calloc(1, sizeof *s);
    if (!s) {
        cli_error(CMD, "out of memory");
        return 1;
    }
    const char *rules = NULL, *pgn = NULL;
    int rc = parse_options(argc, argv, s, &rules, &pgn);
    if (rc) {
        free(s);
        return rc == 1 ? 0 : cli_usage_error(CMD);
    }
    /* No agent and no --rules: the shipped net, under its own rules (Kalah(6,4), the default ones). */
    char shipped[4200], where[4096], net_rules[NN_META_LEN];
    const int n_args = argc - optind;
    if (n_args == 0 && !rules)
        snprintf(shipped, sizeof shipped, "az:net=%s", cli_data_path("nets/kalah-6-4.h5", where, sizeof where));
    else if (n_args != 1) {
        cli_error(CMD, "needs one agent spec (got %d arguments%s)", n_args,
                  n_args == 0 ? "; only Kalah(6,4) without --rules has a default agent, the shipped net" : "");
        free(s);
        return cli_usage_error(CMD);
    }
    s->spec = n_args == 0 ? shipped : argv[optind];
    if (!rules) /* the rules the agent's net was trained for, else Kalah's default ones */
        rules = cli_rules_of_nets(&s->spec, 1, net_rules, sizeof net_rules) ? net_rules : "kalah";
    game *g = cli_game_create(CMD, rules);
    char err[AGENT_ERRLEN];
    rc = 2;
    if (!g || (pgn && !cli_check_records_path(CMD, pgn, &s->spec, 1, NULL, NULL, NULL, NULL)))
        goto done;
    s->g = g;
    game_layout_of(g, &s->lay);
    const int np = game_players(g);
    if (s->human >= np) {
        cli_error(CMD, "--seat %d: %s has seats 0..%d", s->human, game_spec(g), np - 1);
        goto done;
    }
    for (int q = 0; q < np; q++)
        if (q != s->human && !(s->seat[q] = game_agent_create(s->spec, g, err))) {
            cli_error(CMD, "%s", err);
            goto done;
        }
    game_pos p;
    rewind_to(s, 0, &p);
    char you[24];
    printf("sowzero play: %s, you are %s against %s.\n", game_spec(g), game_seat_name(g, s->human, you, sizeof you),
           s->spec);
    ns_print_plays("  ", s->spec, game_agent_describe(s->seat[(s->human + 1) % np]));
    printf("Type a move, undo, hint, %squit (help for more).\n", can_resign(g) ? "resign, " : "");
    /* No SA_RESTART: Ctrl-C interrupts the wait for a line. SA_RESETHAND: a second Ctrl-C (say, during a
     * long search of an agent, which is not interruptible) kills as usual. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    show(s, &p);
    char *line = NULL;
    size_t cap = 0;
    int tty_in = isatty(STDIN_FILENO), quit = 0, forfeit = 0;
    rc = 0;
    while (!p.over && !quit && !rc) {
        int arc = agents_turn(s, &p);
        if (arc < 0) {
            cli_error(CMD, "out of memory");
            rc = 1;
        } else if (arc == 1) {
            rc = 1;
        } else if (arc == 2) {
            forfeit = 1;
            break;
        } else if (interrupted) {
            printf("\n(interrupted)\n");
            break;
        } else if (!p.over && (quit = human_turn(s, &p, &line, &cap, tty_in)) < 0) {
            cli_error(CMD, "out of memory");
            rc = 1;
        }
    }
    free(line);
    signal(SIGINT, SIG_DFL);
    if (rc == 0) {
        if (p.over)
            show(s, &p);
        if (!forfeit)
            print_result(s, &p);
        rc = write_record(s, pgn);
    }
done:
    for (int q = 0; q < GAME_MAX_PLAYERS; q++)
        game_agent_free(s->seat[q]);
    free(s->moves);
    free(s);
    game_free(g);
    return rc;
}
