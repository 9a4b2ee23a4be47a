/* net_search.h — how the CLI shows a net file's search record (nn/h5io.h nn_search): `sowzero net` and
 * `sowzero export`. */
#ifndef SOWZERO_CLI_NET_SEARCH_H
#define SOWZERO_CLI_NET_SEARCH_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "nn/h5io.h"

/* The record in the az agent's key names (eval/agent.h), as a user would write them after az:net=FILE:
 * "sims=800,c_puct=0.75,fpu=0.25,batch=1,margin=5,solver=1,root=puct" (gumbel adds gumbel_k, gumbel_c_visit,
 * gumbel_c_scale). Returns buf. */
char *ns_keys(const nn_search *s, char *buf, size_t n);

/* The record as a JSON object {"sims","batch","c_puct","fpu_reduction","margin_utility","solver","root",
 * "gumbel_k","gumbel_c_visit","gumbel_c_scale"} (the file's field names), or JSON null when s is NULL. The
 * caller owns it. */
cJSON *ns_json(const nn_search *s);

/* Prints "<indent>plays as DESC\n" when the agent's description (agent_describe, game_agent_describe) says more
 * than its spec — an az agent shows its effective search settings so — and nothing otherwise. */
void ns_print_plays(const char *indent, const char *spec, const char *desc);

/* Adds the JSON outputs' "plays" and "plays_note" to o: when desc says more than spec, "plays" is its spec
 * part (an agent spec that plays the same, every search key spelt out) and "plays_note" the parenthesised
 * note after it (where the values came from: "from the net's search record: c_puct, ..."), or null when
 * desc has none; both null when the spec says it all. */
void ns_add_plays_json(cJSON *o, const char *spec, const char *desc);

#endif
