/* elo_report.h — printing ratings (eval/elo.h) for `tournament` and `elo`: the table sorted by rating, the
 * likelihood-of-superiority table, notes on perfect scores, and the JSON / CSV forms. */
#ifndef SOWZERO_CLI_ELO_REPORT_H
#define SOWZERO_CLI_ELO_REPORT_H

#include <stdio.h>
#include <cjson/cJSON.h>
#include "eval/elo.h"

/* Text table (best first), LOS table (when at most 12 players) and notes, on f. */
void elo_report_print(const elo_result *r, FILE *f);

/* {"ratings":[{"name","elo","lo","hi","games","score","perfect"}], "anchor": NAME, "anchor_elo", "prior",
 * "los": {NAME: {NAME: p}}}: a new object the caller owns. */
cJSON *elo_report_json(const elo_result *r);

/* Writes name,elo,lo,hi,games,score (best first) to path. Returns 0, or -1 with errno set. */
int elo_report_csv(const elo_result *r, const char *path);

/* Parses --anchor NAME=ELO (or NAME, at 0) into opt: text that is a player's whole name anchors that player
 * at 0 (names may hold '='), else the text splits at its last '='. Returns 0, or -1 when ELO is not a
 * finite number in -ELO_ANCHOR_MAX..ELO_ANCHOR_MAX (nan, inf and 1e23 are refused). name_buf (size n) holds the name. An unknown name is reported by elo_fit. */
int elo_report_anchor(const char *text, const elo_pool *pool, char *name_buf, size_t n, elo_options *opt);

#endif
