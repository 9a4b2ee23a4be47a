/* posset.c — the phases' names (posset.h). */
#include "eval/posset.h"

const char *ps_phase_name(int phase)
{
    static const char *const names[PS_PHASES] = {"opening", "middlegame", "endgame"};
    return phase >= 0 && phase < PS_PHASES ? names[phase] : "?";
}
