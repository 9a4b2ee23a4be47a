/* szpy_obs.h — the uint8 form of the games' observations: VecEnv(obs_dtype="uint8") and Net on uint8
 * input. A game offers it by declaring its encoding as integers times constants (game_encode_form,
 * env/game.h): element j of game_encode's output is an integer k in [0, high[j]] times a float constant
 * s = scale[j], so the float observation is k * s in float arithmetic, bit for bit. The kinds with a
 * seed-count encoding (kalah, congklak, oware: k = a pit's or store's count, s = 1.0f / seeds per pit)
 * declare it in their layout; básico's hook adds its in-circuit flags and rank scores. A game that
 * declares neither has no uint8 form (szpy_obs_form refuses it by name). The pytest suite checks k * s
 * against game_encode element for element over random games of every registered game. */
#ifndef SOWZERO_SZPY_OBS_H
#define SOWZERO_SZPY_OBS_H

#include <stddef.h>
#include <stdint.h>

#include "python/src/szpy_util.h"

#define SZPY_OBS_MAX 64 /* elements of any game's encoding (basico: players * (pits + 2) <= 36) */

/* The uint8 form of g's encoding: scale[j] = s and high[j] = the largest k of element j (the board's
 * seeds at the start for a count, at most 255; each array has game_encode_dim(g) <= SZPY_OBS_MAX entries, owned by the caller).
 * Returns 0, or -1 with ValueError "WHAT: game 'NAME' has no uint8 observation form" set (what names the
 * caller, e.g. "VecEnv: obs_dtype='uint8'"). */
int szpy_obs_form(const game *g, float *scale, uint8_t *high, const char *what);

/* One encoded row of d floats (game_encode's) as its integers: out[j] = x[j] / scale[j] rounded to the
 * nearest (exact: x[j] is k * scale[j] rounded once, k <= 255, so the quotient is within 2^-15 of k). */
void szpy_obs_to_u8(const float *x, const float *scale, size_t d, uint8_t *out);

/* rows x d integers back to the float encoding: out[i d + j] = u[i d + j] * scale[j] (float, one
 * rounding: game_encode's floats bit for bit). */
void szpy_obs_from_u8(const uint8_t *u, const float *scale, size_t d, size_t rows, float *out);

#endif
