/* szpy_obs.c — the uint8 form of the games' observations (szpy_obs.h). */
#include "python/src/szpy_obs.h"

#include <math.h>
#include <string.h>

#include "env/basico.h"
#include "env/kalah.h"
#include "env/oware.h"

int szpy_obs_form(const game *g, float *scale, uint8_t *high, const char *what)
{
    const game_kind *k = game_get_kind(g);
    const int d = game_encode_dim(g);
    game_pos start;
    game_start(g, &start);
    /* no move adds seeds, so a cell holds at most all of them; and a cell is one byte (game_pos) */
    const int start_seeds = game_board_seeds(g, &start), total = start_seeds < 255 ? start_seeds : 255;
    /* the encodings divide by the rules' seeds per pit (game_seeds is the board's total) */
    const int seeds = k == &game_kind_basico  ? ((const basico_rules *)game_rules(g))->seeds
                      : k == &game_kind_oware ? ((const oware_rules *)game_rules(g))->seeds
                      : k == &game_kind_kalah || k == &game_kind_congklak ? ((const kalah_rules *)game_rules(g))->seeds
                                                                         : 1;
    const float per_seed = 1.0f / (float)seeds;
    if (d > SZPY_OBS_MAX) {
        szpy_value_error("%s: game '%s' has no uint8 observation form (%d elements, more than %d)", what,
                         game_name(g), d, SZPY_OBS_MAX);
        return -1;
    }
    if (k == &game_kind_kalah || k == &game_kind_congklak || k == &game_kind_oware) {
        for (int j = 0; j < d; j++) {
            scale[j] = per_seed;
            high[j] = (uint8_t)total;
        }
        return 0;
    }
    if (k == &game_kind_basico) {
        const basico_rules *r = game_rules(g);
        const int w = r->pits + 2;
        for (int j = 0; j < d; j++) {
            const int e = j % w; /* pits, then the in-circuit flag, then the rank score */
            scale[j] = e < r->pits ? per_seed : e == r->pits ? 1.0f : 1.0f / (float)(r->players - 1);
            high[j] = (uint8_t)(e < r->pits ? total : e == r->pits ? 1 : r->players - 1);
        }
        return 0;
    }
    szpy_value_error("%s: game '%s' has no uint8 observation form (python/src/szpy_obs.h lists the games "
                     "whose encoding is integers times constants)", what, game_name(g));
    return -1;
}

void szpy_obs_to_u8(const float *x, const float *scale, size_t d, uint8_t *out)
{
    for (size_t j = 0; j < d; j++)
        out[j] = (uint8_t)lrintf(x[j] / scale[j]);
}

void szpy_obs_from_u8(const uint8_t *u, const float *scale, size_t d, size_t rows, float *out)
{
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < d; j++)
            out[i * d + j] = u[i * d + j] * scale[j];
}
