// sowzero serve — the board page. Plain JS, no build step; talks to the JSON API under /api/ (README.md).
'use strict';

const $ = (id) => document.getElementById(id);
let info = null;        // /api/info
let game = null;        // the session's state (the API's state object)
let replay = null;      // {layout, frames: [board...], steps: [event...], at}
let skipping = false;
let hint = null;        // {seat, letter} of the last hint, shown until the next move
const SEAT_NAMES2 = ['South', 'North'];

function seatLabel(layout, q) {
  if (layout.board === 'rows') return SEAT_NAMES2[q];
  return 'Player ' + q;
}

async function api(method, path, body) {
  const opt = { method, headers: {} };
  if (body !== undefined) {
    opt.headers['Content-Type'] = 'application/json';
    opt.body = JSON.stringify(body);
  }
  const r = await fetch(path, opt);
  const type = r.headers.get('Content-Type') || '';
  const data = type.startsWith('application/json') ? await r.json() : await r.text();
  if (!r.ok) throw new Error(data && data.error ? data.error : 'HTTP ' + r.status);
  return data;
}

function setBusy(b) {
  document.body.dataset.busy = b ? '1' : '0';
  $('skip').disabled = !b;
  for (const id of ['new', 'undo', 'load']) $(id).disabled = b;
  setAdvice();
}

// Hint and Analyse are for a game still in play: after its end they are off, and say why.
function setAdvice() {
  const over = !!(game && game.board.over), busy = document.body.dataset.busy === '1';
  for (const id of ['hint', 'analyse']) {
    $(id).disabled = busy || over;
    $(id).title = over ? 'The game is over: Undo takes moves back to analyse an earlier position' : '';
  }
}

const sleep = (ms) => new Promise((res) => setTimeout(res, skipping ? 0 : ms));

// ---- drawing ----

// Geometry of every cell: {x, y, d} (centre and diameter, px), and where each seat's name goes.
function geometry(layout) {
  const m = layout.pits, P = layout.players, cells = [], names = [];
  if (P === 2) {
    const u = 84, d = 66, w = (m + 2) * u, h = 2 * u + 60;
    for (let k = 0; k < m; k++) cells[k] = { x: (k + 1.5) * u, y: h - u / 2 - 14, d, below: true };
    cells[m] = { x: w - u / 2, y: h / 2, d, store: true };
    for (let k = 0; k < m; k++) cells[m + 1 + k] = { x: (m - k + 0.5) * u, y: u / 2 + 14, d };
    cells[2 * m + 1] = { x: u / 2, y: h / 2, d, store: true };
    names[0] = { x: w / 2, y: h + 18 };
    names[1] = { x: w / 2, y: -18 };
    return { w, h, cells, names };
  }
  const N = layout.cells, R = P === 3 ? 190 : 215, d = Math.min(52, (2 * Math.PI * R) / N - 9);
  const w = 2 * R + d + 60, h = w, cx = w / 2, cy = h / 2;
  for (let i = 0; i < N; i++) {
    const th = (-90 + (i - m / 2) * 360 / N) * Math.PI / 180;
    cells[i] = { x: cx + R * Math.cos(th), y: cy - R * Math.sin(th), d, store: i % (m + 1) === m, th };
  }
  for (let q = 0; q < P; q++) {
    const th = (-90 + (q * (m + 1) + (m - 1) / 2 - m / 2) * 360 / N) * Math.PI / 180;
    names[q] = { x: cx + (R - 95) * Math.cos(th), y: cy - (R - 95) * Math.sin(th) };
  }
  return { w, h, cells, names };
}

function letterOf(layout, i) {
  const m = layout.pits, q = Math.floor(i / (m + 1)), k = i % (m + 1);
  if (k === m) return '';
  if (layout.board === 'rows' && q === 1) return String.fromCharCode(65 + k);
  return String.fromCharCode(97 + k);
}

// Draws layout with the counts `cells` (null = a player who left); `board` gives legal moves and the mover.
function draw(layout, cells, board, marks, seats, clickable) {
  const g = geometry(layout), el = $('board');
  el.innerHTML = '';
  el.style.width = g.w + 'px';
  el.style.height = g.h + 'px';
  el.dataset.w = g.w;
  el.dataset.h = g.h;
  el.dataset.margin = layout.players === 2 ? 34 : 10;
  el.style.borderRadius = layout.players === 2 ? '40px' : '50%';
  fitBoard();
  const m = layout.pits;
  for (let i = 0; i < layout.cells; i++) {
    const c = g.cells[i], p = document.createElement('div'), n = cells[i];
    const seat = Math.floor(i / (m + 1)), letter = letterOf(layout, i);
    p.className = 'pit' + (c.store ? ' store' : '') + (c.below ? ' below' : '') + (n === null ? ' gone' : '');
    const dh = c.store && layout.players === 2 ? g.h - 50 : c.d;
    Object.assign(p.style, { left: c.x - c.d / 2 + 'px', top: c.y - dh / 2 + 'px', width: c.d + 'px', height: dh + 'px' });
    p.dataset.cell = i;
    p.dataset.count = n === null ? '-' : n;
    p.dataset.seat = seat;
    if (letter) p.dataset.letter = letter;
    const seeds = document.createElement('div');
    seeds.className = 'seeds';
    for (let s = 0; s < Math.min(n || 0, c.store ? 30 : 16); s++) {
      const sd = document.createElement('div');
      sd.className = 'seed';
      seeds.appendChild(sd);
    }
    p.appendChild(seeds);
    const cnt = document.createElement('div');
    cnt.className = 'count';
    cnt.textContent = n === null ? '–' : n;
    p.appendChild(cnt);
    if (letter) {
      const lb = document.createElement('div');
      lb.className = 'label';
      lb.textContent = letter;
      if (c.th !== undefined) {   // on the ring: outside the pit, away from the centre
        const r = c.d / 2 + 11;
        Object.assign(lb.style, { left: c.d / 2 + r * Math.cos(c.th) - 10 + 'px', top: c.d / 2 - r * Math.sin(c.th) - 9 + 'px',
          right: 'auto', bottom: 'auto', width: '20px' });
      }
      p.appendChild(lb);
    }
    if (marks && marks[i]) p.classList.add(marks[i]);
    if (clickable && board && !board.over && seat === board.to_move && letter && board.legal.includes(letter)) {
      p.classList.add('legal');
      p.addEventListener('click', () => humanMove(letter));
    }
    el.appendChild(p);
  }
  for (let q = 0; q < layout.players; q++) {
    const nm = document.createElement('div'), pos = g.names[q];
    nm.className = 'seatname' + (board && !board.over && board.to_move === q ? ' tomove' : '');
    nm.textContent = seatLabel(layout, q) + (seats ? ': ' + (seats[q] === 'human' ? 'you' : seats[q]) : '');
    nm.style.left = pos.x + 'px';
    nm.style.top = pos.y + 'px';
    nm.style.transform = 'translate(-50%, -50%)';
    if (layout.players === 2) nm.style.color = '#3b2615';
    el.appendChild(nm);
  }
}

// Scales the board (drawn at its natural size) down to the width there is, as on a phone: the scale does
// not change the layout box, so the margins take back the height it no longer fills.
function fitBoard() {
  const el = $('board'), w = +el.dataset.w, h = +el.dataset.h, margin = +el.dataset.margin;
  if (!w) return;
  const room = el.parentElement.clientWidth, s = Math.min(1, room / (w + 2 * margin));
  el.style.transform = s < 1 ? 'scale(' + s.toFixed(4) + ')' : '';
  el.style.marginLeft = s < 1 ? (room - w * s) / 2 + 'px' : 'auto';
  el.style.marginRight = s < 1 ? '0' : 'auto';
  el.style.marginTop = margin * s + 'px';
  el.style.marginBottom = margin * s - h * (1 - s) + 'px';
  el.dataset.scale = s;
}

function resultText(layout, board, seats) {
  if (!board.over) return '';
  const res = board.result;
  if (layout.board === 'rows') {
    const st = res.scores.join('–');
    const who = (q) => seatLabel(layout, q) + (seats && seats[q] ? ' (' + (seats[q] === 'human' ? 'you' : seats[q]) + ')' : '');
    return res.winner === null ? 'Draw ' + st : who(res.winner) + ' wins ' + st;
  }
  const th = (n) => n + (n === 1 ? 'st' : n === 2 ? 'nd' : n === 3 ? 'rd' : 'th');
  const order = res.places.map((pl, q) => [pl, q]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return 'Game over — ' + order.map(([pl, q]) => th(pl) + ' ' + seatLabel(layout, q) +
    (seats && seats[q] ? ' (' + (seats[q] === 'human' ? 'you' : seats[q]) + ')' : '')).join(', ');
}

function render() {
  if (replay) return renderReplay();
  const b = game.board, L = game.layout, marks = {};
  if (hint && hint.seat === b.to_move) {
    const lc = hint.letter.toLowerCase();
    marks[hint.seat * (L.pits + 1) + lc.charCodeAt(0) - 97] = 'hint';
  }
  draw(L, b.cells, b, marks, game.seats, game.turn === 'human');
  document.body.dataset.turn = game.turn;
  $('status').textContent = b.over ? resultText(L, b, game.seats)
    : game.turn === 'human' ? 'Your move (' + seatLabel(L, b.to_move) + ')' : game.seats[b.to_move] + ' is thinking…';
  const mv = $('moves');
  mv.dataset.moves = game.moves.join(' ');
  mv.innerHTML = '';
  game.moves.forEach((m, i) => {
    const s = document.createElement('span');
    s.textContent = m + ' ';
    s.className = 'm' + game.movers[i];
    s.title = 'move ' + (i + 1);
    mv.appendChild(s);
  });
  setAdvice();
  $('download').href = '/api/record?session=' + game.session;
  $('download').setAttribute('download', 'sowzero-' + L.kind + '.pgn');
}

// Plays one event on the board seed by seed, from the counts `cells` before it.
async function animate(layout, cells, ev, seats) {
  const banner = $('banner');
  if ($('animate').checked && !skipping && ev.path.length) {
    const c = cells.slice(), marks = {};
    let from = ev.pit;
    c[ev.pit] = 0;
    marks[ev.pit] = 'origin';
    draw(layout, c, null, marks, seats, false);
    await sleep(220);
    for (let j = 0; j < ev.path.length; j++) {
      const pick = ev.pickups.find((x) => x.at === j);
      if (pick) {   // a relay: the pit where the run ended is picked up and sown on
        from = pick.cell;
        c[from] = 0;
        const mk = {}; mk[from] = 'origin';
        draw(layout, c, null, mk, seats, false);
        banner.textContent = 'Relay: sowing on from ' + letterOf(layout, from);
        await sleep(300);
      }
      const i = ev.path[j];
      c[i] += 1;
      const mk = {}; mk[from] = 'origin'; mk[i] = 'drop';
      draw(layout, c, null, mk, seats, false);
      await sleep(170);
    }
    if (ev.captured && ev.capture_cells.length) {
      const mk = {};
      for (const i of ev.capture_cells) mk[i] = 'capture';
      draw(layout, c, null, mk, seats, false);
      banner.textContent = 'Capture: ' + ev.captured + ' seeds';
      await sleep(700);
    }
  }
  const who = seatLabel(layout, ev.mover);
  banner.textContent = ev.over ? 'Game over'
    : ev.captured ? who + ' captures ' + ev.captured + ' seeds' + (ev.relays ? ' after ' + ev.relays + ' relays' : '')
    : ev.relays ? who + ' relayed ' + ev.relays + (ev.relays === 1 ? ' time' : ' times') + (ev.extra_turn ? ', and sows again' : '')
    : ev.finished ? who + ' has emptied its side and finishes'
    : ev.extra_turn ? who + ' sows again (extra turn)' : '';
}

// Every board shown after a move, as the page drew it: [{moves: "c f A", cells: ["4", ...]}] (the browser
// test checks each against `sowzero replay`).
window.sowzeroShown = [];
let shownMoves = [];

function logShown() {
  const cells = [...document.querySelectorAll('#board .pit')].map((p) => p.dataset.count);
  window.sowzeroShown.push({ moves: shownMoves.join(' '), cells });
}

async function playEvents(events) {
  for (const ev of events) {
    await animate(game.layout, game._cells, ev, game.seats);
    game._cells = ev.board.cells;
    shownMoves.push(ev.move);
    draw(game.layout, ev.board.cells, ev.board, null, game.seats, false);
    logShown();
  }
}

function adopt(state) {
  hint = null;
  game = state;
  game._cells = state.board.cells;
  shownMoves = state.moves.slice();
  document.body.dataset.session = state.session;
}

async function agentLoop() {
  while (game.turn === 'agent') {
    render();
    const before = game._cells;
    const st = await api('POST', '/api/agent', { session: game.session });
    game._cells = before;
    await playEvents(st.events);
    adopt(st);
    showView(st.view, null, st.events[0] && st.events[0].move);
  }
  render();
}

async function run(fn) {
  setBusy(true);
  skipping = false;
  try {
    await fn();
  } catch (e) {
    $('banner').textContent = 'Error: ' + e.message;
  } finally {
    skipping = false;
    setBusy(false);
    if (game) render();
  }
}

function humanMove(letter) {
  if (document.body.dataset.busy === '1' || !game || game.turn !== 'human') return;
  run(async () => {
    const st = await api('POST', '/api/move', { session: game.session, move: letter });
    await playEvents(st.events);
    adopt(st);
    await agentLoop();
  });
}

// ---- the agent's view and the solver ----

function showView(view, solver, chosen) {
  const t = $('view'), L = game.layout;
  t.innerHTML = '';
  if (view) {
    let head = view.spec + (chosen ? ' — chose ' + chosen : '');
    if (view.value !== null) head += view.value_kind === 'seed margin'
      ? ' · value ' + (view.value > 0 ? '+' : '') + view.value + ' seeds (depth ' + view.depth + ')'
      : ' · value ' + view.value.toFixed(3) + ' (expected result, −1..1)';
    if (view.prior === null && view.visits === null && view.value === null) head += ' · this agent keeps no statistics';
    $('view-head').textContent = head;
    const mover = game.board.to_move, maxV = view.visits ? Math.max(1, ...view.visits) : 1;
    for (let k = 0; k < L.pits; k++) {
      if (!view.prior && !view.visits) break;
      const tr = document.createElement('tr');
      const rows = L.board === 'rows';
      const letter = rows && chosen && chosen === chosen.toUpperCase() ? String.fromCharCode(65 + k)
        : rows && !chosen && mover === 1 ? String.fromCharCode(65 + k) : String.fromCharCode(97 + k);
      let html = '<td>' + letter + '</td>';
      if (view.prior) html += '<td style="width:40%"><div class="bar" style="width:' + (100 * view.prior[k]).toFixed(1) + '%"></div></td><td>' + (100 * view.prior[k]).toFixed(0) + '%</td>';
      if (view.visits) html += '<td style="width:30%"><div class="bar visits" style="width:' + (100 * view.visits[k] / maxV).toFixed(1) + '%"></div></td><td>' + view.visits[k] + '</td><td>' + (view.visits[k] ? 'q ' + view.q[k].toFixed(2) : '') + '</td>';
      tr.innerHTML = html;
      t.appendChild(tr);
    }
  }
  if (solver) {
    const s = $('solver');
    if (!solver.solved && !solver.values) { s.textContent = solver.reason; return; }
    s.innerHTML = '';
    const base = game.board.to_move === 1 && L.board === 'rows' ? 65 : 97;
    solver.values.forEach((v, k) => {
      if (v === null) return;
      const sp = document.createElement('span'), letter = String.fromCharCode(base + k);
      sp.className = 'solver-val' + (solver.best.includes(letter) ? ' best' : '');
      sp.textContent = letter + ' ' + (v > 0 ? '+' : '') + v + '  ';
      s.appendChild(sp);
    });
    const note = document.createElement('div');
    note.className = 'muted';
    note.textContent = (solver.solved ? 'final margin under perfect play' : solver.reason) + ' · ' + solver.nodes + ' nodes, ' + solver.seconds.toFixed(2) + ' s';
    s.appendChild(note);
  }
}

// ---- replay ----

function renderReplay() {
  const r = replay, b = r.frames[r.at];
  draw(r.layout, b.cells, b, null, null, false);
  $('step').textContent = r.at + ' / ' + r.steps.length + (r.at ? ' (' + r.steps[r.at - 1].move + ')' : '');
  $('step').dataset.at = r.at;
  $('status').textContent = 'Replay: ' + r.layout.rules + (b.over ? ' — ' + resultText(r.layout, b, null) : '');
  document.body.dataset.turn = 'replay';
}

async function loadReplay() {
  const text = $('record').value.trim();
  const body = text.startsWith('[') ? { record: text } : { game: $('game').value, moves: text ? text.split(/\s+/) : [] };
  const r = await api('POST', '/api/replay', body);
  replay = { layout: r.layout, frames: [r.start, ...r.steps.map((s) => s.board)], steps: r.steps, at: 0, target: 0 };
  $('banner').textContent = '';
  renderReplay();
}

// The step the replay buttons aim at; clicks during an animation move the aim on (the running animation
// jumps to its end), so none is lost: three quick ▶ are three steps.
let replayDriving = false;

function replayAim(at) {
  if (!replay) return;
  replay.target = Math.max(0, Math.min(replay.steps.length, at));
  if (replayDriving) {
    skipping = true;
    return;
  }
  replayDriving = true;
  run(async () => {
    try {
      while (replay && replay.at !== replay.target) {
        const r = replay;
        if (r.target === r.at + 1) {   // one step forward: seed by seed
          skipping = false;
          await animate(r.layout, r.frames[r.at].cells, r.steps[r.at], null);
          if (replay !== r) break;   // Back to my game meanwhile
          r.at += 1;
        } else {   // a jump, or clicks queued: straight to the step before the aim, animated from there
          r.at = r.target > r.at ? r.target - 1 : r.target;
        }
        renderReplay();
      }
    } finally {
      replayDriving = false;
    }
  });
}

function replayBy(delta) {
  if (replay) replayAim((replayDriving ? replay.target : replay.at) + delta);
}

// ---- set-up ----

function fillAgents() {
  const g = $('game').value, sel = $('agent'), keep = sel.value;
  sel.innerHTML = '';
  for (const a of info.agents) {
    if (!a.games.includes(g)) continue;
    const o = document.createElement('option');
    o.value = a.name;
    o.textContent = a.name + ' (' + a.spec + ')';
    sel.appendChild(o);
  }
  if ([...sel.options].some((o) => o.value === keep)) sel.value = keep;
}

function gameLabel(l) {
  const per = l.seeds / (l.pits * l.players);
  if (l.kind === 'kalah') return 'Kalah (' + l.pits + ' pits, ' + per + ' seeds)';
  if (l.kind === 'congklak') return 'Congklak (' + l.pits + ' pits, ' + per + ' seeds, relay sowing)';
  if (l.kind === 'oware') return 'Oware (' + l.pits + ' pits, ' + per + ' seeds, Abapa)';
  return 'Mancala básico, ' + l.players + ' players';
}

async function newGame() {
  replay = null;
  $('step').textContent = '–';
  $('banner').textContent = '';
  $('view').innerHTML = '';
  $('view-head').textContent = 'Ask for a hint or an analysis, or let the agent move.';
  $('solver').textContent = 'Runs once few seeds are left in the pits (Analyse).';
  adopt(await api('POST', '/api/new', { game: $('game').value, agent: $('agent').value, side: $('side').value }));
  await agentLoop();
}

// The footer names the games served: "Kalah, Congklak and Oware".
function footerGames(games) {
  const names = { kalah: 'Kalah', congklak: 'Congklak', oware: 'Oware', basico: 'Mancala básico' }, seen = [];
  for (const l of games) {
    const n = names[l.kind] || l.kind;
    if (!seen.includes(n)) seen.push(n);
  }
  return seen.length > 1 ? seen.slice(0, -1).join(', ') + ' and ' + seen[seen.length - 1] : seen.join('');
}

async function init() {
  info = await api('GET', '/api/info');
  $('footer-games').textContent = footerGames(info.games);
  for (const l of info.games) {
    const o = document.createElement('option');
    o.value = l.rules;
    o.textContent = gameLabel(l);
    $('game').appendChild(o);
  }
  fillAgents();
  $('game').addEventListener('change', fillAgents);
  $('new').addEventListener('click', () => run(newGame));
  $('undo').addEventListener('click', () => run(async () => {
    replay = null;
    adopt(await api('POST', '/api/undo', { session: game.session }));
    $('banner').textContent = 'Move taken back';
  }));
  $('hint').addEventListener('click', () => run(async () => {
    replay = null;
    const h = await api('POST', '/api/hint', { session: game.session });
    hint = { seat: game.board.to_move, letter: h.move };
    render();
    showView(h.view, null, null);
    $('banner').textContent = 'Hint: ' + h.move;
  }));
  $('analyse').addEventListener('click', () => run(async () => {
    const a = await api('POST', '/api/analysis', { session: game.session });
    showView(a.view, a.solver, null);
  }));
  $('skip').addEventListener('click', () => { skipping = true; });
  $('load').addEventListener('click', () => run(loadReplay));
  $('file').addEventListener('change', async () => {
    const f = $('file').files[0];
    if (f) $('record').value = await f.text();
  });
  $('first').addEventListener('click', () => replayAim(0));
  $('prev').addEventListener('click', () => replayBy(-1));
  $('next').addEventListener('click', () => replayBy(1));
  $('last').addEventListener('click', () => replayAim(replay ? replay.steps.length : 0));
  window.addEventListener('resize', fitBoard);
  $('back').addEventListener('click', () => { replay = null; $('step').textContent = '–'; if (game) render(); });
  await newGame();
}

run(init);
