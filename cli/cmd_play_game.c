/* sowzero play --rules GAME:... — a person against agents in any game but Kalah (whose `play`, with its
 * drawn board and PGN-like records, stays in cmd_play.c), through the game interface (env/game.h) and the
 * generic agents (eval/game_agent.h). One command per line from stdin, as cmd_play.c. */
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd_game.h"
#include "eval/game_agent.h"

#define CMD "play"

static void help(void)
{
    puts("usage: sowzero play AGENT --rules GAME[:key=value,...] [--seat N | --as south|north] [--seed N]\n"
         "                         [--pgn FILE]\n"
         "Play any game but Kalah (for Kalah see 'sowzero play --help') against AGENT, which takes every other\n"
         "seat (one instance per seat; agents of eval/game_agent.h: random, greedy, maxn, paranoid, ab, solve,\n"
         "mcts, az). The position is shown in the game's notation after every move of yours or theirs. At\n"
         "your turn type a move in the game's notation (a pit letter), or one of\n"
         "  resign  leave the game where the game allows it (basico)\n"
         "  undo    take back your last move (and the agents' replies)\n"
         "  hint    the agent's choice for your position\n"
         "  quit    stop (end of input does the same)\n"
         "At the end: the values and places, and the moves (replay them with sowzero replay --rules GAME).\n"
         "  --seat N      your seat, 0 (moves first, default) .. players-1; --as south|north = seat 0|1\n"
         "  --seed N      the agents' per-game seed (default 0)\n"
         "  --pgn FILE    also append the game record (eval/record.h; `elo` and `replay --pgn` read it) to FILE,\n"
         "                checked before the game (exit 2 when it cannot be written or is the agent's net); the\n"
         "                record format has no resignation: a game with one is recorded up to it, unfinished");
}

typedef struct {
    const game *g;
    game_agent *seat[GAME_MAX_PLAYERS]; /* NULL for the human's seat */
    int human;
    uint64_t seed;
    int *moves, n, cap;                 /* the game's moves; -1: a resignation */
} session;

/* Whether the game has a resignation (básico); the prompt offers it only then. */
static int can_resign(const game *g)
{
    game_pos q;
    game_start(g, &q);
    return game_resign(g, &q) == GAME_OK;
}

/* The board drawn from the position notation (docs/design.md §2: each player's pits, then its store): two
 * players as two rows, the second player's above from right to left (as the board is seen); more players
 * one row each. A notation of another shape draws nothing. */
static void draw_board(const session *s, const char *text)
{
    const int players = game_players(s->g), pits = game_moves(s->g);
    int cell[GAME_MAX_PLAYERS * 33], n = 0;
    const char *q = text;
    while (n < (int)(sizeof cell / sizeof cell[0]) && *q >= '0' && *q <= '9') {
        char *end;
        cell[n++] = (int)strtol(q, &end, 10);
        q = *end == ',' ? end + 1 : end;
        if (*end != ',')
            break;
    }
    if (n != players * (pits + 1) || pits > 26)
        return;
    if (players == 2) {
        printf("      ");
        for (int k = pits - 1; k >= 0; k--)
            printf("%4c", 'A' + k);
        printf("\n      ");
        for (int k = pits - 1; k >= 0; k--)
            printf("%4d", cell[pits + 1 + k]);
        printf("\n  %4d%*s%4d\n      ", cell[2 * pits + 1], 4 * pits + 2, "", cell[pits]);
        for (int k = 0; k < pits; k++)
            printf("%4d", cell[k]);
        printf("\n      ");
        for (int k = 0; k < pits; k++)
            printf("%4c", 'a' + k);
        printf("\n");
        return;
    }
    printf("          ");
    for (int k = 0; k < pits; k++)
        printf("%4c", 'a' + k);
    printf("\n");
    for (int pl = 0; pl < players; pl++) {
        printf("  seat %d ", pl);
        for (int k = 0; k < pits; k++)
            printf("%4d", cell[pl * (pits + 1) + k]);
        printf("   [%d]\n", cell[pl * (pits + 1) + pits]);
    }
}

static void show(const session *s, const game_pos *p)
{
    char buf[GAME_POS_STR];
    char who[24];
    draw_board(s, game_pos_format(s->g, p, buf, sizeof buf));
    printf("position %s", buf);
    if (!p->over)
        printf("   %s to move (%s)", game_seat_name(s->g, p->to_move, who, sizeof who),
               p->to_move == s->human ? "you" : "agent");
    putchar('\n');
}

/* Plays move k (-1: resign) from *p and tells every agent. 0, or -1 out of memory (nothing played). */
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
    printf("%s %s %s%s", who, strcmp(who, "you") ? "plays" : "play", mv, st.extra_turn ? " - another turn" : "");
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

/* Reads and handles one line at the human's turn: 0 go on, 1 quit/end of input, -1 out of memory. */
static int human_turn(session *s, game_pos *p, const char *spec, char **line, size_t *cap, int tty_in)
{
    printf("your move> ");
    fflush(stdout);
    ssize_t len = getline(line, cap, stdin);
    if (len < 0) {
        printf("\n(end of input)\n");
        return 1;
    }
    if (!tty_in) { /* echo scripted input, so a transcript reads like a session */
        fputs(*line, stdout);
        if (!len || (*line)[len - 1] != '\n')
            putchar('\n');
    }
    char *t = *line, err[GAME_ERRLEN];
    while (isspace((unsigned char)*t))
        t++;
    for (char *e = t + strlen(t); e > t && isspace((unsigned char)e[-1]);)
        *--e = 0;
    if (!*t)
        return 0;
    if (!strcmp(t, "quit") || !strcmp(t, "q") || !strcmp(t, "exit"))
        return 1;
    if (!strcmp(t, "help") || !strcmp(t, "?")) {
        printf("a move in the game's notation (a.. for your pits), %sundo, hint, quit\n",
               can_resign(s->g) ? "resign, " : "");
    } else if (!strcmp(t, "hint")) {
        int k;
        game_agent *a = s->seat[(s->human + 1) % game_players(s->g)];
        if (game_agent_choose(a, p, &k) == AGENT_OK) {
            char mv[8];
            printf("hint: %s would play %s\n", spec, game_move_format(s->g, p, k, mv, sizeof mv));
        } else {
            printf("no hint: %s\n", game_agent_error(a));
        }
    } else if (!strcmp(t, "undo")) {
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
    } else if (!strcmp(t, "resign")) {
        game_pos q = *p;
        if (game_resign(s->g, &q) != GAME_OK)
            printf("%s has no resignation; type quit to stop\n", game_name(s->g));
        else if (apply(s, p, -1, "you"))
            return -1;
    } else {
        int k = game_move_parse(s->g, p, t, err);
        game_pos q = *p;
        if (k < 0)
            printf("'%s': %s\n", t, err);
        else if (game_apply(s->g, &q, k, NULL) != GAME_OK)
            printf("'%s': that pit is empty or the move is not allowed\n", t);
        else if (apply(s, p, k, "you"))
            return -1;
        else
            show(s, p);
    }
    return 0;
}

/* Appends the game's record to path (cmd_game.h cli_records_append): every move up to the first resignation,
 * which the record format cannot hold. 0, or 1 after the message. */
static int write_record(const session *s, const char *spec, const char *path)
{
    record_game rec;
    char err[RECORD_ERRLEN];
    memset(&rec, 0, sizeof rec);
    if (record_game_init_game(&rec, s->g, NULL, err) != RECORD_OK) {
        cli_error(CMD, "--pgn %s: %s", path, err);
        return 1;
    }
    int bad = record_set(&rec.event, "sowzero play") != RECORD_OK, n = 0;
    for (int q = 0; q < game_players(s->g); q++)
        bad |= record_set_seat(&rec, q, q == s->human ? "human" : spec, NULL) != RECORD_OK;
    while (n < s->n && s->moves[n] >= 0)
        bad |= record_push(&rec, s->moves[n++]) != RECORD_OK;
    if (bad) {
        record_game_clear(&rec);
        cli_error(CMD, "out of memory");
        return 1;
    }
    if (n < s->n)
        cli_error(CMD, "--pgn %s: the record stops before the resignation at move %d (records have no "
                  "resignations): written as unfinished", path, n + 1);
    int rc = cli_records_append(CMD, path, &rec);
    record_game_clear(&rec);
    return rc;
}

int cmd_play_game(int argc, char **argv)
{
    static const struct option opts[] = {{"as", required_argument, 0, 'a'},  {"seat", required_argument, 0, 'a'},
                                         {"rules", required_argument, 0, 'r'}, {"seed", required_argument, 0, 's'},
                                         {"pgn", required_argument, 0, 'p'},   {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *rules_spec = "basico", *pgn = NULL;
    session *s = calloc(1, sizeof *s);
    if (!s) {
        cli_error(CMD, "out of memory");
        return 1;
    }
    int c, rc = 2;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'a':
            if (!parse_seat(optarg, &s->human)) {
                cli_error(CMD, "--seat/--as: '%s' is not a seat number (0..%d), south or north", optarg,
                          GAME_MAX_PLAYERS - 1);
                free(s);
                return 2;
            }
            break;
        case 'r': rules_spec = optarg; break;
        case 's': {
            char *end;
            s->seed = strtoull(optarg, &end, 10);
            if (!*optarg || *end || *optarg == '-') {
                cli_error(CMD, "--seed: '%s' is not a whole number >= 0", optarg);
                free(s);
                return 2;
            }
            break;
        }
        case 'p': pgn = optarg; break;
        case 'h': help(); free(s); return 0;
        default: free(s); return cli_usage_error(CMD);
        }
    }
    game *g = cli_game_create(CMD, rules_spec);
    const char *spec = optind < argc ? argv[optind] : "";
    char err[AGENT_ERRLEN];
    if (!g || argc - optind != 1) {
        if (g)
            cli_error(CMD, "needs one agent spec (got %d arguments)", argc - optind);
        goto done;
    }
    if (pgn && !cli_check_records_path(CMD, pgn, &spec, 1, NULL, NULL, NULL))
        goto done;
    s->g = g;
    const int np = game_players(g);
    if (s->human >= np) {
        cli_error(CMD, "--seat %d: %s has seats 0..%d", s->human, game_spec(g), np - 1);
        goto done;
    }
    for (int q = 0; q < np; q++)
        if (q != s->human && !(s->seat[q] = game_agent_create(spec, g, err))) {
            cli_error(CMD, "%s", err);
            goto done;
        }
    game_pos p;
    rewind_to(s, 0, &p);
    char you[24];
    printf("sowzero play: %s, you are %s against %s.\nType a move, %sundo, hint, quit (help for more).\n",
           game_spec(g), game_seat_name(g, s->human, you, sizeof you), spec, can_resign(g) ? "resign, " : "");
    show(s, &p);
    char *line = NULL;
    size_t cap = 0;
    int tty_in = isatty(STDIN_FILENO), quit = 0;
    rc = 0;
    while (!p.over && !quit) {
        if (p.to_move != s->human) {
            int k;
            game_agent *a = s->seat[p.to_move];
            int arc = game_agent_choose(a, &p, &k);
            if (arc == AGENT_EFORFEIT) { /* an outside engine lost the game (eval/engine_agent.h) */
                printf("%s\nThe game ends: the engine lost it by forfeit.\n", game_agent_error(a));
                break;
            }
            if (arc != AGENT_OK) {
                cli_error(CMD, "the agent failed: %s", game_agent_error(a));
                rc = 1;
                break;
            }
            char who[32];
            game_seat_name(g, p.to_move, who, sizeof who);
            if (apply(s, &p, k, who)) {
                cli_error(CMD, "out of memory");
                rc = 1;
                break;
            }
            if (p.to_move == s->human || p.over)
                show(s, &p);
            continue;
        }
        quit = human_turn(s, &p, spec, &line, &cap, tty_in);
        if (quit < 0) {
            cli_error(CMD, "out of memory");
            rc = 1;
        }
    }
    free(line);
    if (rc == 0) {
        double v[GAME_MAX_PLAYERS];
        game_values(g, &p, v);
        if (p.over) {
            printf("game over:");
            for (int q = 0; q < np; q++) {
                int place = 1;
                for (int o = 0; o < np; o++)
                    place += v[o] > v[q];
                char name[24];
                printf(" %s%s place %d;", game_seat_name(g, q, name, sizeof name), q == s->human ? " (you)" : "", place);
            }
            putchar('\n');
        } else {
            printf("game stopped (unfinished)\n");
        }
        /* The moves, for `sowzero replay --rules SPEC MOVES...`. */
        game_pos q;
        game_start(g, &q);
        printf("rules %s\nmoves", game_spec(g));
        for (int i = 0; i < s->n; i++) {
            char mv[8] = "resign";
            if (s->moves[i] >= 0) {
                game_move_format(g, &q, s->moves[i], mv, sizeof mv);
                game_apply(g, &q, s->moves[i], NULL);
            } else {
                game_resign(g, &q);
            }
            printf(" %s", mv);
        }
        putchar('\n');
        if (pgn && write_record(s, spec, pgn))
            rc = 1;
    }
done:
    for (int q = 0; q < GAME_MAX_PLAYERS; q++)
        game_agent_free(s->seat[q]);
    free(s->moves);
    free(s);
    game_free(g);
    return rc;
}
