/* vecenv_playouts.h — Kalah's batched random playouts (env/vecenv_playouts.c), the game_kind.playouts of
 * game_kind_kalah: its SIMD stepper behind game_playouts_create (env/game.h). */
#ifndef SOWZERO_VECENV_PLAYOUTS_H
#define SOWZERO_VECENV_PLAYOUTS_H

#include "env/game.h"

extern const game_playout_ops kalah_playout_ops;

#endif
