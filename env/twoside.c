/* twoside.c — the row helpers of the two-row games (twoside.h). */
#include "env/twoside.h"

#include <string.h>

int twoside_row_seeds(const uint8_t *cell, int m, int side)
{
    int lo = side ? m + 1 : 0, t = 0;
    for (int i = lo; i < lo + m; i++)
        t += cell[i];
    return t;
}

void twoside_sweep(uint8_t *cell, int m)
{
    for (int i = 0; i < m; i++) {
        cell[m] = (uint8_t)(cell[m] + cell[i]);
        cell[i] = 0;
        cell[2 * m + 1] = (uint8_t)(cell[2 * m + 1] + cell[m + 1 + i]);
        cell[m + 1 + i] = 0;
    }
}
