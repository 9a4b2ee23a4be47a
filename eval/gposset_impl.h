/* gposset_impl.h — the layout of gps_set, shared by gposset.c (sampling, solving, writing) and
 * gposset_read.c (the reader). Not a public header. */
#ifndef SOWZERO_EVAL_GPOSSET_IMPL_H
#define SOWZERO_EVAL_GPOSSET_IMPL_H

#include "eval/gposset.h"

struct gps_set {
    const game *g;
    gps_entry *e;
    size_t n, cap;
    char *command; /* the reader's header fields */
    uint64_t seed;
};

/* A new zeroed entry at the end of s, or NULL when out of memory. */
gps_entry *gps_append(gps_set *s);

/* The "to_move" text of player: the first letter of its seat name ("S", "N"), or its number for a kind
 * without seat names; out holds 2 bytes. */
void gps_seat_letter(const game *g, int player, char out[2]);

#endif
