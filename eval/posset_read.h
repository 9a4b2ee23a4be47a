/* posset_read.h — reader of solved position sets (ground truth for `sowzero accuracy`).
 *
 * Format: JSON Lines, version 1, written by `sowzero positions --solve`; the format is documented in one
 * place, eval/posset.h (its writer; PS_FORMAT, PS_FORMAT_VERSION and the phase cut ps_phase live there too).
 * The reader needs format, format_version (1), rules and count in the header (command, commit and seed are
 * kept as given when present) and position, to_move, seeds_in_pits, ply, value, best and moves on each
 * position line (source is optional). It checks every one of them: the position parses under the rules, is
 * not finished, to_move and seeds_in_pits agree with it, the move letters are exactly the legal moves,
 * every margin lies within ± the seeds in play, value = max(moves) and best = every argmax. Other keys
 * are ignored. Rules with a sow limit (max_sows > 0) are refused: the value then depends on the sow count,
 * which the format does not carry. A trailing newline at the end of the file is fine; blank lines
 * elsewhere are errors. Every error names the file and line: "set.jsonl:7: moves: 'e' is not a legal move
 * (legal: a b d)".
 *
 * Memory: one posset_entry (about 60 bytes) per position plus the header strings. Library code: never
 * prints; errors come back as codes with a message.
 */
#ifndef SOWZERO_POSSET_READ_H
#define SOWZERO_POSSET_READ_H

#include <stdint.h>

#include "env/kalah.h"
#include "eval/posset.h"

#define POSSET_ERRLEN 640            /* size of an error-message buffer (messages carry the path) */
#define POSSET_NO_MOVE (-32768)      /* posset_entry.margin of a pit that is not a legal move */

enum { POSSET_OK = 0, POSSET_EINVAL = -1, POSSET_EIO = -2, POSSET_ENOMEM = -3 };

/* One solved position. Margins in seeds, for the player to move at pos. */
typedef struct {
    kalah_pos pos;                    /* not finished; sows = 0 */
    int ply;                          /* sowings from the start that led here (as the writer recorded it) */
    int seeds_in_pits;                /* seeds still in the 2·pits pits */
    int value;                        /* max over the legal moves of margin[k] */
    unsigned best_mask;               /* bit k: relative pit k reaches value */
    int margin[KALAH_MAX_PITS];       /* by relative pit; POSSET_NO_MOVE where not legal */
    int line;                         /* line of the file it came from (2..) */
} posset_entry;

typedef struct posset posset;

/* Reads and validates the set at path. Returns POSSET_OK with *out (free with posset_free), or
 * POSSET_EIO (the file cannot be opened or read), POSSET_EINVAL (not a position set, a wrong
 * format_version, a malformed or inconsistent line: "PATH:LINE: what is wrong"), POSSET_ENOMEM, with the
 * message in err (POSSET_ERRLEN bytes, may be NULL) and *out = NULL. */
int posset_load(const char *path, posset **out, char *err);
void posset_free(posset *s);

/* The set's rules, its positions (count and index 0..count-1; pointers owned by the set), and the header's
 * rules string (as written), command, commit ("" when absent) and seed (0 when absent). */
const kalah_rules *posset_rules(const posset *s);
int posset_count(const posset *s);
const posset_entry *posset_get(const posset *s, int i);
const char *posset_rules_text(const posset *s);
const char *posset_command(const posset *s);
const char *posset_commit(const posset *s);
uint64_t posset_seed(const posset *s);

/* The game phase of an entry: ps_phase(rules, entry->seeds_in_pits) (eval/posset.h). */

#endif
