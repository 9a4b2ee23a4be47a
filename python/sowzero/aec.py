"""AECEnv: one game of 2..4 players with PettingZoo's AEC (agent-environment cycle) API, without needing
pettingzoo. Kalah, Oware, Congklak (2 players) and basico (3 or 4) through the same class."""
import numpy as np

from . import _sowzero
from . import spaces as _spaces
from .envs import RENDER_MODES, VecEnv, _check_render_mode, _state, board_text


class AECEnv:
    """AECEnv(game=None, rules=None, *, render_mode=None)

    PettingZoo's AEC conventions: possible_agents / agents are 'player_0'.. ('player_0' is South in the
    two-player games), agent_selection the agent to act, observe(agent) -> {'observation': float32
    (obs_dim,), that agent's own point of view (sowzero.encode), 'action_mask': int8 (num_actions,), its
    legal actions (all 0 unless it is to act)}, last() -> (observation, cumulative reward, termination,
    truncation, info) of agent_selection, step(action), and the dicts rewards (this step's),
    _cumulative_rewards, terminations, truncations, infos. reset(seed=None, options=None) starts a game
    (seed: an int, seeds np_random and the spaces; options: None or {}).

    A move that gives an extra turn keeps agent_selection. When the game ends every agent is terminated
    and gets its final value as reward (+1 win, -1 loss, 0 draw; basico 2*rank_score-1); then, as in
    PettingZoo, each is stepped once more with action None and leaves agents. An illegal action raises
    ValueError (nothing moves); a non-None action for a terminated agent too. The usual loop:

        env.reset(seed=1)
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            action = None if termination or truncation else policy(obs)
            env.step(action)
    """

    metadata = {"render_modes": list(RENDER_MODES), "name": "sowzero_v0", "is_parallelizable": False}

    def __init__(self, game=None, rules=None, *, render_mode=None):
        _check_render_mode("AECEnv", render_mode)
        self._v = VecEnv(game, rules, 1, copy=True)
        self.render_mode = render_mode
        self.rules = self._v.rules
        self.possible_agents = ["player_%d" % p for p in range(self._v.num_players)]
        self._index = {a: p for p, a in enumerate(self.possible_agents)}
        n = self._v.num_actions
        self._observation_spaces = {a: _spaces.dict_space({
            "observation": self._v.single_observation_space
            or _spaces.box(0.0, np.inf, (self._v.obs_dim,), np.float32),
            "action_mask": _spaces.box(0, 1, (n,), np.int8)}) for a in self.possible_agents}
        self._action_spaces = {a: _spaces.discrete(n) for a in self.possible_agents}
        self.agents = []
        self.rewards, self._cumulative_rewards = {}, {}
        self.terminations, self.truncations, self.infos = {}, {}, {}
        self.agent_selection = None
        self._mask = np.zeros(n, np.int8)
        self._np_random = None
        self._skip_agent_selection = None

    num_agents = property(lambda self: len(self.agents), doc="agents still in the cycle")
    max_num_agents = property(lambda self: len(self.possible_agents), doc="players of the game")

    def observation_space(self, agent):
        """Dict({'observation': Box(0, high, (obs_dim,), float32), 'action_mask': Box(0, 1, (n,), int8)})."""
        return self._observation_spaces[agent]

    def action_space(self, agent):
        """Discrete(num_actions): a relative pit of the agent."""
        return self._action_spaces[agent]

    @property
    def np_random(self):
        if self._np_random is None:
            self._np_random = np.random.default_rng()
        return self._np_random

    @property
    def unwrapped(self):
        return self

    def reset(self, seed=None, options=None):
        """A new game at the start position; returns None (PettingZoo)."""
        if options:
            if not isinstance(options, dict):
                raise TypeError("AECEnv.reset: options must be a dict or None, not %s" % type(options).__name__)
            raise ValueError("AECEnv.reset: unknown option %r (AECEnv has none)" % next(iter(options)))
        if seed is not None and (not isinstance(seed, (int, np.integer)) or isinstance(seed, bool)):
            raise TypeError("AECEnv.reset: seed must be an int in 0..2**64-1 or None, not %s" % type(seed).__name__)
        _, info = self._v.reset(seed=seed)
        if seed is not None:
            self._np_random = np.random.default_rng(seed)
            for k, a in enumerate(self.possible_agents):
                self._action_spaces[a].seed(seed + k)
        self._new_cycle()
        self._select(info)

    def _new_cycle(self):
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._skip_agent_selection = None

    def get_position(self):
        """The position string of the game (what sowzero.Agent reads)."""
        return self._v.get_position(0)

    def set_position(self, position):
        """Continues from a position string (ValueError for a bad one): every agent back in the cycle with
        zero rewards, agent_selection the player to move (a finished position: call reset())."""
        # checked before the env's board changes: a refused position leaves the game as it was
        if _state(position, self.rules)[0]:
            raise ValueError("AECEnv.set_position: position '%s' is finished" % position)
        self._v.set_position(0, position)
        self._new_cycle()
        _, info = self._v.reset(options={"reset_mask": np.zeros(1, bool)})  # resets nothing: the rows as they are
        self._select(info)

    def _select(self, info):
        self._mask = info["action_mask"][0].astype(np.int8)
        self.agent_selection = self.possible_agents[int(info["to_play"][0])]

    def observe(self, agent):
        """{'observation': agent's view of the board, 'action_mask': its legal actions (int8)}."""
        if agent not in self._index:
            raise ValueError("AECEnv.observe: unknown agent %r (agents: %s)" % (agent, ", ".join(self.possible_agents)))
        obs = _sowzero.encode(self._v.get_position(0), self.rules, player=self._index[agent])
        acting = agent == self.agent_selection and not (self.terminations.get(agent) or self.truncations.get(agent))
        mask = self._mask.copy() if acting else np.zeros_like(self._mask)
        return {"observation": obs, "action_mask": mask}

    def last(self, observe=True):
        """(observation, cumulative reward, termination, truncation, info) of agent_selection."""
        agent = self.agent_selection
        if agent is None:
            raise RuntimeError("AECEnv.last: call reset() first")
        if agent not in self.terminations:
            raise RuntimeError("AECEnv.last: every agent has left the game: call reset()")
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    def agent_iter(self, max_iter=2 ** 63):
        """Yields agent_selection until every agent has left (or max_iter steps)."""
        for _ in range(max_iter):
            if not self.agents:
                return
            yield self.agent_selection

    def step(self, action):
        """Plays action for agent_selection (None once it is terminated); see the class docstring."""
        agent = self.agent_selection
        if agent is None or (not self.agents):
            raise RuntimeError("AECEnv.step: no game in progress: call reset()")
        if self.terminations[agent] or self.truncations[agent]:
            self._dead_step(action)
            return
        if action is None:
            raise ValueError("AECEnv.step: %s is to act: None is only for a terminated agent" % agent)
        if isinstance(action, (bool, np.bool_)):
            raise TypeError("AECEnv.step: action must be an integer, not bool")
        _, rew, term, trunc, info = self._v.step(np.asarray([action]))
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: float(rew[0, self._index[a]]) for a in self.agents}
        for a in self.agents:
            self._cumulative_rewards[a] += self.rewards[a]
        if term[0] or trunc[0]:
            for a in self.agents:
                self.terminations[a] = bool(term[0])
                self.truncations[a] = bool(trunc[0])
        self._select(info)
        if term[0] or trunc[0]:
            self.agent_selection = agent  # the dead steps start with the agent who ended the game

    def _dead_step(self, action):
        """PettingZoo's step of a terminated agent: it leaves agents; the next terminated one is selected."""
        if action is not None:
            raise ValueError("AECEnv.step: %s is terminated: the only valid action is None" % self.agent_selection)
        agent = self.agent_selection
        for d in (self.terminations, self.truncations, self.rewards, self._cumulative_rewards, self.infos):
            del d[agent]
        self.agents.remove(agent)
        dead = [a for a in self.agents if self.terminations[a] or self.truncations[a]]
        if dead:
            if self._skip_agent_selection is None:
                self._skip_agent_selection = agent
            self.agent_selection = dead[0]
        else:
            if self._skip_agent_selection is not None:
                self.agent_selection = self._skip_agent_selection
            self._skip_agent_selection = None
        self.rewards = {a: 0.0 for a in self.agents}

    def render(self):
        """The board as text (render_mode 'ansi'), or None without a render_mode."""
        if self.render_mode is None:
            return None
        return board_text(self._v.get_position(0), self.rules)

    def close(self):
        self._v.close()

    def __repr__(self):
        return "AECEnv(rules=%r)" % self.rules
