/* book.c — opening books (format and contract in book.h). */
#include "eval/book.h"
#include "env/fileio.h"
#include "env/errbuf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define set_err(err, ...) errbuf_set(err, BOOK_ERRLEN, __VA_ARGS__)

void book_entry_clear(book_entry *e)
{
    free(e->moves);
    memset(e, 0, sizeof *e);
}

static int is_blank_char(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

/* A position line: the text between the blanks at its ends, parsed in the game's notation. */
static int parse_position(const game *g, const char *s, size_t n, book_entry *out, char *err)
{
    char buf[GAME_POS_STR * 2], perr[GAME_ERRLEN];
    if (n >= sizeof buf) {
        set_err(err, "position '%.40s...': too long for a position of this game", s);
        return BOOK_EINVAL;
    }
    memcpy(buf, s, n);
    buf[n] = 0;
    if (game_pos_parse(g, buf, &out->start, perr) != GAME_OK) {
        set_err(err, "position '%s': %s", buf, perr);
        return BOOK_EINVAL;
    }
    out->start.ply = 0;
    if (out->start.over || !game_legal(g, &out->start)) {
        set_err(err, "position '%s': the game is over there (an opening must leave moves to play)", buf);
        return BOOK_EINVAL;
    }
    return BOOK_OK;
}

/* A move list from the rules' start: every move parsed and played in turn. */
static int parse_moves(const game *g, const char *s, size_t n, book_entry *out, char *err)
{
    game_pos p;
    game_start(g, &p);
    out->start = p;
    out->at_start = 1;
    int cap = 0;
    for (size_t i = 0; i < n;) {
        while (i < n && is_blank_char(s[i]))
            i++;
        if (i == n)
            break;
        size_t j = i;
        while (j < n && !is_blank_char(s[j]))
            j++;
        char tok[16], gerr[GAME_ERRLEN];
        int len = (int)(j - i), k = out->n_moves + 1;
        if (out->n_moves == BOOK_MAX_MOVES) {
            set_err(err, "more than %d moves", BOOK_MAX_MOVES);
            return BOOK_EINVAL;
        }
        if (len >= (int)sizeof tok) {
            set_err(err, "move %d '%.*s...' is not a move of this game", k, 12, s + i);
            return BOOK_EINVAL;
        }
        memcpy(tok, s + i, (size_t)len);
        tok[len] = 0;
        if (p.over) {
            set_err(err, "move %d '%s': the game is already over", k, tok);
            return BOOK_EINVAL;
        }
        int mv = game_move_parse(g, &p, tok, gerr);
        if (mv < 0) {
            set_err(err, "move %d '%s': %s", k, tok, gerr);
            return BOOK_EINVAL;
        }
        if (mv >= game_moves(g) || !(game_legal(g, &p) >> mv & 1) || game_apply(g, &p, mv, NULL) != GAME_OK) {
            set_err(err, "move %d '%s': not a legal move here (an empty pit, or one the rules forbid)", k, tok);
            return BOOK_EINVAL;
        }
        if (out->n_moves == cap) {
            cap = cap ? 2 * cap : 8;
            uint8_t *m = realloc(out->moves, (size_t)cap);
            if (!m) {
                set_err(err, "out of memory");
                return BOOK_ENOMEM;
            }
            out->moves = m;
        }
        out->moves[out->n_moves++] = (uint8_t)mv;
        i = j;
    }
    if (p.over || !game_legal(g, &p)) {
        set_err(err, "the moves end the game (an opening must leave moves to play)");
        return BOOK_EINVAL;
    }
    return BOOK_OK;
}

int book_parse_line(const game *g, const char *text, book_entry *out, char *err)
{
    memset(out, 0, sizeof *out);
    size_t n = strcspn(text, "#");
    while (n && is_blank_char(text[n - 1]))
        n--;
    while (n && is_blank_char(*text)) {
        text++;
        n--;
    }
    if (!n)
        return BOOK_BLANK;
    int rc = memchr(text, ',', n) ? parse_position(g, text, n, out, err) : parse_moves(g, text, n, out, err);
    if (rc != BOOK_OK)
        book_entry_clear(out);
    return rc;
}

void book_entry_position(const game *g, const book_entry *e, game_pos *out)
{
    *out = e->start;
    for (int i = 0; i < e->n_moves; i++)
        game_apply(g, out, e->moves[i], NULL);
}

void book_free(opening_book *b)
{
    if (!b)
        return;
    for (int i = 0; i < b->n; i++)
        book_entry_clear(&b->entry[i]);
    free(b->entry);
    free(b);
}

int book_read(const game *g, const char *path, opening_book **out, char *err)
{
    *out = NULL;
    FILE *f = sz_fopen_input(path);
    if (!f) {
        set_err(err, "%s: cannot open: %s", path, strerror(errno));
        return BOOK_EIO;
    }
    opening_book *b = calloc(1, sizeof *b);
    char *line = NULL;
    size_t line_cap = 0;
    int cap = 0, lineno = 0, rc = b ? BOOK_OK : BOOK_ENOMEM;
    ssize_t len;
    if (!b)
        set_err(err, "out of memory");
    while (rc == BOOK_OK && (len = getline(&line, &line_cap, f)) >= 0) {
        lineno++;
        if (len > BOOK_MAX_LINE || (size_t)len != strlen(line)) {
            set_err(err, "%s:%d: %s", path, lineno,
                    len > BOOK_MAX_LINE ? "longer than 65536 bytes" : "a NUL byte in the line");
            rc = BOOK_EINVAL;
            break;
        }
        book_entry e;
        char lerr[BOOK_ERRLEN];
        int lrc = book_parse_line(g, line, &e, lerr);
        if (lrc == BOOK_BLANK)
            continue;
        if (lrc != BOOK_OK) {
            set_err(err, "%s:%d: %s", path, lineno, lerr);
            rc = lrc;
            break;
        }
        e.line = lineno;
        if (b->n == BOOK_MAX_ENTRIES) {
            set_err(err, "%s:%d: more than %d openings", path, lineno, BOOK_MAX_ENTRIES);
            book_entry_clear(&e);
            rc = BOOK_EINVAL;
            break;
        }
        if (b->n == cap) {
            int nc = cap ? 2 * cap : 64;
            book_entry *ne = realloc(b->entry, (size_t)nc * sizeof *ne);
            if (!ne) {
                set_err(err, "out of memory");
                book_entry_clear(&e);
                rc = BOOK_ENOMEM;
                break;
            }
            b->entry = ne;
            cap = nc;
        }
        b->entry[b->n++] = e;
    }
    if (rc == BOOK_OK && ferror(f)) {
        set_err(err, "%s: read error", path);
        rc = BOOK_EIO;
    }
    if (rc == BOOK_OK && !b->n) {
        set_err(err, "%s: no openings (every line is blank or a comment)", path);
        rc = BOOK_EINVAL;
    }
    free(line);
    fclose(f);
    if (rc != BOOK_OK) {
        book_free(b);
        return rc;
    }
    *out = b;
    return BOOK_OK;
}
