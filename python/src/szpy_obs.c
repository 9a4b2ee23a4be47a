/* szpy_obs.c — the uint8 form of the games' observations (szpy_obs.h). */
#include "python/src/szpy_obs.h"

#include <math.h>
#include <string.h>


int szpy_obs_form(const game *g, float *scale, uint8_t *high, const char *what)
{
    const int d = game_encode_dim(g);
    if (d > SZPY_OBS_MAX) {
        szpy_value_error("%s: game '%s' has no uint8 observation form (%d elements, more than %d)", what,
                         game_name(g), d, SZPY_OBS_MAX);
        return -1;
    }
    int h[SZPY_OBS_MAX];
    if (game_encode_form(g, scale, h) != 0) {
        szpy_value_error("%s: game '%s' has no uint8 observation form (its kind declares no encode_form and "
                         "no seed-count encoding: env/game.h)", what, game_name(g));
        return -1;
    }
    /* a cell is one byte (game_pos), so no count exceeds 255 */
    for (int j = 0; j < d; j++)
        high[j] = (uint8_t)(h[j] < 255 ? h[j] : 255);
    return 0;
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
