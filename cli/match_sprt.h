/* match_sprt.h — `match --sprt`: a two-player match played in batches of colour-swapped pairs until the
 * pentanomial GSPRT (eval/sprt.h, as fishtest) decides between elo0 and elo1, or --games is reached. */
#ifndef SOWZERO_MATCH_SPRT_H
#define SOWZERO_MATCH_SPRT_H

#include <stdio.h>

#include "env/game.h"
#include "eval/game_match.h"

/* The test's settings from "elo0=E0,elo1=E1[,alpha=A][,beta=B]" (alpha, beta default 0.05). */
typedef struct {
    double elo0, elo1, alpha, beta;
} match_sprt_args;

/* Parses text into *out: 1, or 0 after printing an error naming the key or value (exit status 2). */
int cli_match_sprt_parse(const char *cmd, const char *text, match_sprt_args *out);

/* Plays spec[0] (A, the candidate) against spec[1] on two-player game g with cfg (cfg->games: the most
 * games; cfg->seed: batch b plays its openings from a seed mixed of cfg->seed and b, or with cfg->book the
 * book's next entries in order, wrapping round at its end; cfg->on_record, when
 * set, gets every game's record as it ends), and prints the result (text, or one JSON object with json).
 * Returns the exit status: 0, 1 (a match failed: printed), 2 (bad input: printed). */
int cli_match_sprt(const char *cmd, char **spec, const game *g, const game_match_config *cfg,
                   const match_sprt_args *sa, int json);

#endif
