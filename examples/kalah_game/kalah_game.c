/* kalah_game — a program outside sowzero that links the installed library (docs/install.md): one whole
 * game between two agents through the game interface (env/game.h) and the agents (eval/game_agent.h).
 *
 *   kalah_game [RULES [SOUTH [NORTH [SEED]]]]      defaults: kalah random greedy 1
 *
 * Prints the rules, the seats' agents, the moves in the game's notation, the final position, the stores
 * and the result. Exit status 2 on a bad rules or agent spec or seed, 1 when an agent fails. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "env/game.h"
#include "eval/game_agent.h"

int main(int argc, char **argv)
{
    const char *rules = argc > 1 ? argv[1] : "kalah";
    const char *specs[2] = {argc > 2 ? argv[2] : "random", argc > 3 ? argv[3] : "greedy"};
    uint64_t seed = 1;
    if (argc > 4) {
        char *end;
        errno = 0;
        seed = strtoull(argv[4], &end, 10);
        if (errno || end == argv[4] || *end) {
            fprintf(stderr, "kalah_game: seed '%s': not a whole number\n", argv[4]);
            return 2;
        }
    }
    if (argc > 5) {
        fprintf(stderr, "usage: kalah_game [RULES [SOUTH [NORTH [SEED]]]]\n");
        return 2;
    }

    char err[GAME_ERRLEN > AGENT_ERRLEN ? GAME_ERRLEN : AGENT_ERRLEN];
    game *g = game_create(rules, err);
    if (!g) {
        fprintf(stderr, "kalah_game: %s\n", err);
        return 2;
    }
    if (game_players(g) != 2) {
        fprintf(stderr, "kalah_game: %s has %d players; this example seats two agents\n", game_spec(g),
                game_players(g));
        game_free(g);
        return 2;
    }
    game_agent *agents[2] = {NULL, NULL};
    int status = 0;
    for (int s = 0; s < 2 && status == 0; s++)
        if (!(agents[s] = game_agent_create(specs[s], g, err))) {
            fprintf(stderr, "kalah_game: %s\n", err);
            status = 2;
        }

    game_pos p;
    game_start(g, &p);
    for (int s = 0; s < 2 && status == 0; s++)
        game_agent_new_game(agents[s], &p, seed);
    char seat[2][32], text[GAME_POS_STR], move_text[8];
    game_seat_name(g, 0, seat[0], sizeof seat[0]);
    game_seat_name(g, 1, seat[1], sizeof seat[1]);
    if (status == 0) {
        printf("rules: %s\n", game_spec(g));
        printf("%s: %s\n%s: %s\n", seat[0], specs[0], seat[1], specs[1]);
        printf("moves:");
    }
    while (status == 0 && !game_over(&p)) {
        int mover = game_to_move(&p), move;
        if (game_agent_choose(agents[mover], &p, &move) != AGENT_OK) {
            fprintf(stderr, "\nkalah_game: %s failed: %s\n", specs[mover], game_agent_error(agents[mover]));
            status = 1;
            break;
        }
        game_move_format(g, &p, move, move_text, sizeof move_text);
        game_pos before = p;
        if (game_apply(g, &p, move, NULL) != GAME_OK) {
            fprintf(stderr, "\nkalah_game: %s chose an illegal move %s\n", specs[mover], move_text);
            status = 1;
            break;
        }
        printf(" %s", move_text);
        for (int s = 0; s < 2; s++)
            game_agent_notify(agents[s], &before, move);
    }
    if (status == 0) {
        int score[2] = {0, 0};
        for (int s = 0; s < 2; s++)
            game_score(g, &p, s, &score[s]);
        double v[GAME_MAX_PLAYERS];
        game_values(g, &p, v);
        printf("\nplies: %d\n", p.ply);
        printf("final: %s\n", game_pos_format(g, &p, text, sizeof text));
        printf("stores: %s %d, %s %d\n", seat[0], score[0], seat[1], score[1]);
        if (v[0] == v[1])
            printf("result: draw\n");
        else {
            int w = v[0] > v[1] ? 0 : 1;
            printf("result: %s (%s) wins by %d\n", seat[w], specs[w], abs(game_margin(g, &p)));
        }
    }
    for (int s = 0; s < 2; s++)
        game_agent_free(agents[s]);
    game_free(g);
    return status;
}
