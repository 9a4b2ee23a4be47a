/* srv_record.h — a served game's record, for download and replay (issue 19).
 *
 * Kalah games are written and read in the project's record format (eval/record.h) with
 * [Event "sowzero serve"], the seats' agent specs ("human" for the page's player) and [Start] when the
 * game did not start from the rules' start position.
 *
 * The other games (Congklak, Oware, Mancala básico) have no record format in eval/record.h (it is
 * Kalah's); their games use the same layout:
 *
 *   [Event "sowzero serve"]
 *   [Rules "basico:players=3,pits=6,seeds=4,full_ranking=1"]
 *   [Seat0 "human"] [Seat1 "greedy"] [Seat2 "greedy"]   one tag per seat, each on its own line
 *   [Start "..."]                                        optional (basico_pos_format notation)
 *   [Result "2-1-3"]                                     two players: 1-0, 0-1, 1/2-1/2; more: each seat's
 *                                                        final place, '-'-joined; "*" unfinished
 *   <blank line>
 *   a c f b ... 2-1-3                                    the moves in the game's notation, then the result
 *
 * The reader takes either format (by the game of the Rules tag), validates every move by replaying it and
 * the result token against the replayed end. Library code: errors are codes with messages (SRV_ERRLEN).
 */
#ifndef SOWZERO_SRV_RECORD_H
#define SOWZERO_SRV_RECORD_H

#include <stdint.h>

#include "serve/srv_game.h"

/* The record of the game from start through moves[0..n) with seat names (players of them). A malloc'd
 * NUL-terminated string (caller frees), or NULL with the message in err. */
char *srv_record_write(const srv_rules *r, const srv_pos *start, const uint8_t *moves, int n,
                       const char *const *names, char *err);

/* Reads the first game of text: its rules (*r owns its game on success: srv_rules_free), start and moves
 * (*moves malloc'd, caller frees; *n of them). SRV_OK, or SRV_EINVAL with "line L: ..." or eval/record.h's
 * message in err (nothing to free then). */
int srv_record_read(const char *text, srv_rules *r, srv_pos *start, uint8_t **moves, int *n, char *err);

#endif
