/* ordering.c — move generation and ordering (see ordering.h). */
#include "eval/ordering.h"

void ord_generate(const kalah_rules *r, const kalah_pos *p, int tt_move, ord_list *out)
{
    const int side = p->side, own = kalah_store(r, side), opp = kalah_store(r, !side);
    const int sd = (int)p->cell[own] - (int)p->cell[opp];
    int score[KALAH_MAX_PITS];
    unsigned legal = kalah_legal(r, p);
    int n = 0;
    while (legal) {
        int k = __builtin_ctz(legal);
        legal &= legal - 1;
        kalah_pos *c = &out->child[n];
        *c = *p;
        kalah_sow(r, c, k, NULL);
        int gain = (int)c->cell[own] - (int)c->cell[opp] - sd;
        int sc;
        if (k == tt_move)
            sc = 1 << 20;
        else if (c->side == side && !c->over)
            sc = (1 << 16) + k;
        else
            sc = 4096 + gain * 16 + k; /* |gain| <= 255 keeps it positive and below the extra turns */
        /* Insertion sort; equal scores cannot happen (k breaks ties). */
        int i = n;
        while (i > 0 && score[i - 1] < sc) {
            score[i] = score[i - 1];
            out->move[i] = out->move[i - 1];
            out->gain[i] = out->gain[i - 1];
            i--;
        }
        if (i != n) {
            kalah_pos tmp = *c;
            for (int j = n; j > i; j--)
                out->child[j] = out->child[j - 1];
            out->child[i] = tmp;
        }
        score[i] = sc;
        out->move[i] = k;
        out->gain[i] = gain;
        n++;
    }
    out->n = n;
}
