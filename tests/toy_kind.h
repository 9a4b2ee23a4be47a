/* toy_kind.h — a test's own game kind, "toysow" (see toy_kind.c), and its registration. */
#ifndef SOWZERO_TESTS_TOY_KIND_H
#define SOWZERO_TESTS_TOY_KIND_H

#include "env/game.h"

/* The kind "toysow" (rules "toysow:pits=2..6,seeds=1..4"; default 3 pits of 2 seeds), with a layout. */
extern const game_kind toy_kind;

/* Registers toy_kind and "toysow-plain" (the same game without a layout hook) with game_kind_register.
 * GAME_OK (also when they are registered already), or its error with err (GAME_ERRLEN) filled. */
int toy_kind_register(char *err);

#endif
