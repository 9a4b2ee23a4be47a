/* mcts_root_impl.h — the root levers' tree hooks (mcts_root.h: Gumbel AlphaZero's root, KataGo's forced
 * playouts with policy target pruning), written once and included by each PUCT tree after it defines:
 *
 *   RT_TREE, RT_NODE       the tree and node types (the node has n, vl, prior, move; the tree pool, cfg, rng,
 *                          gumbel, root_raw, halving, halving_len, halving_cap)
 *   RT_MAX                 the most children of a node
 *   RT_SIMS(t)             the simulations of one move's search
 *   RT_EXACT(c)            child c's value for the root's mover is exact (proven / decided)
 *   RT_Q(t, c)             child c's Q for the root's mover (its exact value when RT_EXACT)
 *   RT_LOST(c), RT_WON(c)  child c is exactly the root mover's loss (last place) / win (first place)
 *   RT_BEST(t)             the tau = 0 root choice (a node index, -1 when the root is unexpanded)
 *   RT_BEGIN, RT_SELECT, RT_POLICY, RT_CHOOSE   the names of the four hooks this defines
 *
 * So the rules are the same for the scalar-valued two-player tree (selfplay/mcts2.c) and the value-vector
 * tree of three and four players (selfplay/mcts_mp.c); only how a child's value for the root's mover is read differs. */

/* The root's children as the formulas take them: visits, Q for the root's mover, prior (noise included). */
static int rt_arrays(const RT_TREE *t, int *n, double *q, double *prior)
{
    const RT_NODE *root = &t->pool[0], *ch = &t->pool[root->child];
    for (int i = 0; i < root->nchild; i++) {
        n[i] = ch[i].n;
        q[i] = ch[i].n > 0 || RT_EXACT(&ch[i]) ? RT_Q(t, &ch[i]) : 0.0;
        prior[i] = ch[i].prior;
    }
    return root->nchild;
}

static void rt_gumbel_scores(const RT_TREE *t, double *score)
{
    int n[RT_MAX] = {0};
    double q[RT_MAX] = {0}, prior[RT_MAX] = {0};
    int nc = rt_arrays(t, n, q, prior);
    mcts_gumbel_scores(n, q, prior, t->gumbel, nc, t->root_raw, t->cfg.gumbel_c_visit, t->cfg.gumbel_c_scale, score);
}

/* skip[i]: child i is the root mover's exact loss while another child is not (never chosen then). */
static void rt_lost_children(const RT_TREE *t, uint8_t *skip)
{
    const RT_NODE *root = &t->pool[0], *ch = &t->pool[root->child];
    int any_ok = 0;
    for (int i = 0; i < root->nchild; i++) {
        skip[i] = (uint8_t)(RT_LOST(&ch[i]) ? 1 : 0);
        any_ok |= !skip[i];
    }
    for (int i = 0; i < root->nchild; i++)
        skip[i] = skip[i] && any_ok;
}

int RT_BEGIN(RT_TREE *t, float raw)
{
    const RT_NODE *root = &t->pool[0];
    t->root_raw = raw;
    t->halving_len = 0;
    if (t->cfg.root != MCTS_ROOT_GUMBEL)
        return MCTS_OK;
    mcts_gumbel_draw(&t->rng, t->cfg.gumbel_scale, root->nchild, t->gumbel);
    int n = RT_SIMS(t) - 1, m = t->cfg.gumbel_k < root->nchild ? t->cfg.gumbel_k : root->nchild;
    if (n > t->halving_cap) {
        int *h = realloc(t->halving, (size_t)n * sizeof *h);
        if (!h)
            return MCTS_ENOMEM;
        t->halving = h;
        t->halving_cap = n;
    }
    mcts_gumbel_halving(m, n, t->halving);
    t->halving_len = n;
    return MCTS_OK;
}

int RT_SELECT(const RT_TREE *t)
{
    if (t->cfg.root != MCTS_ROOT_GUMBEL && !(t->cfg.forced_playouts_k > 0))
        return -1;
    const RT_NODE *root = &t->pool[0], *ch = &t->pool[root->child];
    int nc = root->nchild, n[RT_MAX], cnt[RT_MAX];
    for (int i = 0; i < nc; i++) {
        n[i] = ch[i].n;
        cnt[i] = ch[i].n + ch[i].vl;
    }
    if (t->cfg.root != MCTS_ROOT_GUMBEL) { /* forced playouts; PUCT (−1) when none is owed */
        double prior[RT_MAX];
        uint8_t skip[RT_MAX];
        for (int i = 0; i < nc; i++)
            prior[i] = ch[i].prior;
        rt_lost_children(t, skip);
        int i = mcts_forced_pick(n, cnt, prior, skip, nc, t->cfg.forced_playouts_k);
        return i >= 0 ? root->child + i : -1;
    }
    double score[RT_MAX];
    rt_gumbel_scores(t, score);
    return root->child + mcts_gumbel_pick(cnt, score, nc, t->halving, t->halving_len);
}

int RT_POLICY(const RT_TREE *t, double tau, float *pi)
{
    const RT_NODE *root = &t->pool[0], *ch = &t->pool[root->child];
    int n[RT_MAX] = {0}, nc;
    double q[RT_MAX] = {0}, prior[RT_MAX] = {0}, w[RT_MAX];
    if (t->cfg.root == MCTS_ROOT_GUMBEL) { /* the completed-Q target, whatever tau */
        double sigma[RT_MAX];
        nc = rt_arrays(t, n, q, prior);
        mcts_gumbel_sigma(n, q, prior, nc, t->root_raw, t->cfg.gumbel_c_visit, t->cfg.gumbel_c_scale, sigma);
        mcts_gumbel_target(prior, sigma, nc, w);
        for (int i = 0; i < nc; i++)
            pi[ch[i].move] = (float)w[i];
        return 1;
    }
    if (!(t->cfg.forced_playouts_k > 0) || tau <= 0)
        return 0;
    nc = rt_arrays(t, n, q, prior);
    if (!mcts_forced_target(n, q, prior, nc, t->cfg.c_puct, root->n, t->cfg.forced_playouts_k, tau, w))
        return 0;
    for (int i = 0; i < nc; i++)
        pi[ch[i].move] = (float)w[i];
    return 1;
}

int RT_CHOOSE(const RT_TREE *t)
{
    int b = RT_BEST(t);
    if (t->cfg.root != MCTS_ROOT_GUMBEL || b < 0)
        return -1;
    if (RT_WON(&t->pool[b])) /* a proven win (first place) is played first */
        return t->pool[b].move;
    const RT_NODE *root = &t->pool[0], *ch = &t->pool[root->child];
    int n[RT_MAX];
    uint8_t skip[RT_MAX];
    double score[RT_MAX];
    for (int i = 0; i < root->nchild; i++)
        n[i] = ch[i].n;
    rt_lost_children(t, skip);
    rt_gumbel_scores(t, score);
    return ch[mcts_gumbel_choose(n, skip, score, root->nchild)].move;
}
