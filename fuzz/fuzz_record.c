/* fuzz_record.c — game records (record_reader_from_stream / record_read, eval/record.h), the input given as
 * the stream. Property: every game read replays to the final position it reports; an error has a message. */
#include "fuzz/fuzz_util.h"

#include "eval/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    FILE *f = fmemopen(n ? (void *)data : (void *)"", n ? n : 1, "r");
    if (!f)
        abort();
    char err[RECORD_ERRLEN] = "";
    record_reader *rd = record_reader_from_stream(f, "fuzz.pgn", err);
    if (rd) {
        record_game g;
        memset(&g, 0, sizeof g);
        int rc, games = 0;
        while ((rc = record_read(rd, &g, err)) == RECORD_OK && games++ < 1000) {
            game_pos p = g.gstart; /* every game's record, Kalah's too, has the game interface's fields */
            FZ_CHECK(g.game != NULL, "a record without its game");
            for (int i = 0; i < g.n_moves; i++)
                FZ_CHECK(game_apply(g.game, &p, g.moves[i], NULL) == GAME_OK, "move %d does not replay", i);
            FZ_CHECK(!memcmp(&p, &g.gfinal, sizeof p), "final position differs");
            record_game_clear(&g);
            memset(&g, 0, sizeof g);
        }
        FZ_CHECK(rc == RECORD_OK || rc == RECORD_EOF || err[0], "error %d without a message", rc);
        record_game_clear(&g);
        record_reader_free(rd);
    } else
        FZ_CHECK(err[0], "no reader and no message");
    fclose(f);
    return 0;
}
