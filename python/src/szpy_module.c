/* szpy_module.c — the extension module sowzero._sowzero VecEnv (szpy_vecenv.h), Net
 * (szpy_net.h), Agent (szpy_agent.h), solve and perft (szpy_search.h). The package sowzero/__init__.py
 * re-exports it. */
#define SZPY_MODULE_MAIN
#include "python/src/szpy_util.h"

#include "env/basico.h"

#include "python/src/szpy_agent.h"
#include "python/src/szpy_net.h"
#include "python/src/szpy_search.h"
#include "python/src/szpy_vecenv.h"

static PyMethodDef module_methods[] = {
    {"solve", SZPY_KW(szpy_solve), METH_VARARGS | METH_KEYWORDS, szpy_solve_doc},
    {"perft", SZPY_KW(szpy_perft), METH_VARARGS | METH_KEYWORDS, szpy_perft_doc},
    {"encode", SZPY_KW(szpy_encode), METH_VARARGS | METH_KEYWORDS, szpy_encode_doc},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "sowzero._sowzero",
    .m_doc = "sowzero's C engine for Python: batched environments, nets, agents, the solver.",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__sowzero(void)
{
    import_array();
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    if (szpy_vecenv_register(m) || szpy_net_register(m) || szpy_agent_register(m) ||
        PyModule_AddStringConstant(m, "KALAH_ENCODING", KALAH_ENCODING_NAME) ||
        PyModule_AddStringConstant(m, "BASICO_ENCODING", BASICO_ENCODING_NAME)) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
