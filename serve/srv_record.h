/* srv_record.h — a served game's record, for download and replay.
 *
 * Every game is written and read in the project's one record format (eval/record.h) with
 * [Event "sowzero serve"], the seats' agent specs ("human" for the page's player; South/North for two
 * players, Seat0.. for more) and [Start]. The reader validates every move by replaying it and the result
 * against the replayed end (eval/record.h's reader); records written by earlier versions (Seat0/Seat1 for
 * two-player games) still read. Library code: errors are codes with messages (SRV_ERRLEN).
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
 * (*moves malloc'd, caller frees; *n of them). SRV_OK, or SRV_EINVAL with eval/record.h's "record:LINE: ..."
 * message in err (nothing to free then; a result-only record is refused: it has no moves to replay). */
int srv_record_read(const char *text, srv_rules *r, srv_pos *start, uint8_t **moves, int *n, char *err);

#endif
