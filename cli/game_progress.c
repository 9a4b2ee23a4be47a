/* game_progress.c — see game_progress.h. */
#include "cli/game_progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void game_progress_init(game_progress *g, int total)
{
    g->tty = isatty(STDERR_FILENO);
    g->offset = 0;
    g->total = total;
    g->shown = -1;
    g->t0 = now();
}

void game_progress_cb(void *ud, int done, int total)
{
    (void)total;
    game_progress *g = ud;
    int games = g->offset + done;
    /* Redraw at most ~200 times a run: the bar must not cost more than the games. */
    if (!g->tty || (games != g->total && g->shown >= 0 && (games - g->shown) * 200 < g->total))
        return;
    g->shown = games;
    const int width = 30;
    int filled = g->total ? games * width / g->total : width;
    double el = now() - g->t0, rate = el > 0 ? games / el : 0;
    char bar[64];
    for (int i = 0; i < width; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[width] = 0;
    fprintf(stderr, "\r[%s] %d/%d games  %.1f games/s  ", bar, games, g->total, rate);
    if (rate > 0 && games < g->total)
        fprintf(stderr, "ETA %.0fs ", (g->total - games) / rate);
    fflush(stderr);
}

void game_progress_end(game_progress *g)
{
    if (g->tty && g->shown >= 0) {
        fprintf(stderr, "\r%70s\r", "");
        fflush(stderr);
    }
}
