/* szpy_util.c — rules, positions and errors shared by the extension's files (szpy_util.h). */
#include "python/src/szpy_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

PyObject *szpy_value_error(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    PyErr_SetString(PyExc_ValueError, msg);
    return NULL;
}

int szpy_rules_parse(const char *spec, szpy_rules *out)
{
    char err[KALAH_ERRLEN];
    memset(out, 0, sizeof *out);
    if (!strncmp(spec, "basico", 6)) {
        out->game = SZPY_BASICO;
        if (basico_rules_parse(spec, &out->basico, err) != BASICO_OK) {
            szpy_value_error("rules '%s': %s", spec, err);
            return -1;
        }
        return 0;
    }
    out->game = SZPY_KALAH;
    if (kalah_rules_parse(spec, &out->kalah, err) != KALAH_OK) {
        szpy_value_error("rules '%s': %s", spec, err);
        return -1;
    }
    return 0;
}

const char *szpy_rules_format(const szpy_rules *r, char *buf)
{
    if (r->game == SZPY_BASICO)
        return basico_rules_format(&r->basico, buf, SZPY_RULESLEN);
    return kalah_rules_format(&r->kalah, buf, SZPY_RULESLEN);
}

const char *szpy_game_name(szpy_game g) { return g == SZPY_BASICO ? "basico" : "kalah"; }

int szpy_players(const szpy_rules *r) { return r->game == SZPY_BASICO ? r->basico.players : 2; }

int szpy_moves(const szpy_rules *r) { return r->game == SZPY_BASICO ? r->basico.pits : r->kalah.pits; }

int szpy_obs_dim(const szpy_rules *r)
{
    return r->game == SZPY_BASICO ? basico_encode_dim(&r->basico) : kalah_encode_dim(&r->kalah);
}

void szpy_start(const szpy_rules *r, szpy_pos *out)
{
    memset(out, 0, sizeof *out);
    if (r->game == SZPY_BASICO)
        basico_start(&r->basico, &out->basico);
    else
        kalah_start(&r->kalah, &out->kalah);
}

int szpy_pos_parse(const szpy_rules *r, const char *text, szpy_pos *out)
{
    char err[KALAH_ERRLEN];
    memset(out, 0, sizeof *out);
    int rc, pits;
    if (r->game == SZPY_BASICO)
        rc = basico_pos_parse(text, &r->basico, &out->basico, err) == BASICO_OK ? 0 : -1;
    else
        rc = kalah_pos_parse(text, &r->kalah, &out->kalah, &pits, err) == KALAH_OK ? 0 : -1;
    if (rc)
        szpy_value_error("position '%s': %s", text, err);
    return rc;
}

const char *szpy_pos_format(const szpy_rules *r, const szpy_pos *p, char *buf)
{
    if (r->game == SZPY_BASICO)
        return basico_pos_format(&r->basico, &p->basico, buf, SZPY_POSLEN);
    return kalah_pos_format(&r->kalah, &p->kalah, buf, SZPY_POSLEN);
}

unsigned szpy_legal(const szpy_rules *r, const szpy_pos *p)
{
    return r->game == SZPY_BASICO ? basico_legal(&r->basico, &p->basico) : kalah_legal(&r->kalah, &p->kalah);
}

int szpy_to_play(const szpy_rules *r, const szpy_pos *p)
{
    return r->game == SZPY_BASICO ? p->basico.to_move : p->kalah.side;
}

int szpy_over(const szpy_rules *r, const szpy_pos *p)
{
    return r->game == SZPY_BASICO ? p->basico.over : p->kalah.over;
}

void szpy_play(const szpy_rules *r, szpy_pos *p, int k, int *extra_turn)
{
    if (r->game == SZPY_BASICO) {
        basico_step st;
        basico_play(&r->basico, &p->basico, k, &st);
        *extra_turn = st.extra_turn;
    } else {
        kalah_step st;
        kalah_sow(&r->kalah, &p->kalah, k, &st);
        *extra_turn = st.extra_turn;
    }
}

void szpy_encode(const szpy_rules *r, const szpy_pos *p, float *out)
{
    if (r->game == SZPY_BASICO)
        basico_encode(&r->basico, &p->basico, out);
    else
        kalah_encode(&r->kalah, &p->kalah, out);
}

void szpy_result(const szpy_rules *r, const szpy_pos *p, float *out)
{
    if (r->game == SZPY_BASICO) {
        for (int q = 0; q < r->basico.players; q++)
            out[q] = (float)(2.0 * basico_rank_score(&r->basico, &p->basico, q) - 1.0);
        return;
    }
    const int w = kalah_winner(&r->kalah, &p->kalah);
    out[0] = (float)w;
    out[1] = (float)-w;
}

int szpy_setup(const char *rules_spec, const char *pos_text, szpy_rules *r, szpy_pos *p)
{
    if (szpy_rules_parse(rules_spec ? rules_spec : "kalah", r))
        return -1;
    if (!pos_text) {
        szpy_start(r, p);
        return 0;
    }
    return szpy_pos_parse(r, pos_text, p);
}
