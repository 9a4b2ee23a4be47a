/* rules_spec.h — the one reader of "game:key=value,..." rules specs for the games that describe their
 * rules as a few integers and named choices (docs/design.md §2 "Rules spec", §4 "every rules key may be given
 * in a spec as key=value"). Kalah, Congklak (through kalah_rules_parse_as), Oware and básico use it; each
 * game owns its key table, defaults and range checks.
 *
 * Library code: never prints; errors are a code and a message in the caller's buffer (KALAH_ERRLEN
 * bytes, may be NULL). */
#ifndef SOWZERO_RULES_SPEC_H
#define SOWZERO_RULES_SPEC_H

#include "env/status.h"

#include <stddef.h>

/* One key of a game's rules spec. An integer key (names == NULL) accepts a whole number lo..hi; a named
 * key accepts one of names[0..hi] (lo is then 0) and stores its index. An integer key with bool_words
 * also accepts false and true (0 and 1), as the INI configs write a flag. */
typedef struct {
    const char *key;
    int lo, hi;
    const char *const *names;
    int bool_words;
} rspec_key;

enum { RSPEC_OK = SZ_OK, RSPEC_EINVAL = SZ_EINVAL };

/* Parses `spec` = "<game>" or "<game>:k=v,k=v,..." (any subset of the keys, any order, each at most once)
 * into values[0..nkeys-1], which the caller preloads with the game's defaults; a key not given keeps its
 * default. On error returns RSPEC_EINVAL with a message naming the bad game name, key or value (and what
 * was expected); values is then unchanged. Specs longer than 255 characters are rejected. */
int rspec_parse(const char *spec, const char *game, const rspec_key *keys, int nkeys, int *values, char *err);

/* Writes "<game>:k=v,..." with every key in table order into buf (size n). Returns buf. */
char *rspec_format(const char *game, const rspec_key *keys, int nkeys, const int *values, char *buf, size_t n);

/* The length of the game name at the start of a spec (up to ':' or the end), for routing a spec to its
 * game's parser. */
size_t rspec_game_len(const char *spec);

#endif
