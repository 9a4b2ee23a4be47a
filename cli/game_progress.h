/* game_progress.h — the progress bar of `match` and `tournament`: redrawn in place on stderr when stderr is
 * a terminal, nothing at all otherwise (pipes, logs and tests stay clean). */
#ifndef SOWZERO_CLI_GAME_PROGRESS_H
#define SOWZERO_CLI_GAME_PROGRESS_H

typedef struct {
    int tty;        /* draw at all */
    int offset;     /* games finished before the current match (tournaments) */
    int total;      /* games in the whole run */
    int shown;      /* last games count drawn */
    double t0;      /* start, seconds (monotonic) */
} game_progress;

void game_progress_init(game_progress *g, int total);
/* A game_match_config progress callback: ud is the game_progress; done counts the current match's games. */
void game_progress_cb(void *ud, int done, int total);
/* Erases the bar's line. */
void game_progress_end(game_progress *g);

#endif
