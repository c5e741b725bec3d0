// The page: a game against the engine, or an analysis board. The rules and the record live in a
// `Game` on this thread (the WebAssembly module, src/web/game.rs), so that every click is
// answered at once; the engine thinks in a worker (engine-client.js, worker.js). Every action
// of the user bumps `generation` and stops the engine, and an answer is only used if the
// generation it was asked in is still the current one.

import init, { Game, installPanicReport } from './pkg/othello_engine.js';
import { BoardView, formatValue } from './board.js';
import { EngineClient } from './engine-client.js';

const $ = (id) => document.getElementById(id);

let game = null;
let engine = null;
let board = null;
let generation = 0;
let note = ''; // a pass just played, said until the next move
let thinking = false;

const COLOR = { black: 'Black', white: 'White' };

function showError(message) {
  $('error').textContent = message;
}

function setThinking(value) {
  thinking = value;
  document.body.dataset.thinking = String(value);
}

// The engine's settings from the strength menu: `time:MS` (full strength, MS a move) or
// `level:N` (preset N, a fixed depth).
function strength() {
  const [kind, amount] = $('strength').value.split(':');
  const n = Number(amount);
  return kind === 'time' ? { level: 0, depth: 0, timeMs: n } : { level: n, depth: 0, timeMs: 0 };
}

function strengthName() {
  return $('strength').selectedOptions[0].textContent;
}

function engineSide() {
  return $('engine-side').value;
}

function state() {
  return JSON.parse(game.state());
}

function describe(s) {
  if (s.over) {
    const [b, w] = [s.black, s.white];
    if (s.score === 0) return `Game over: a draw, ${b}–${w}.`;
    const winner = s.score > 0 ? 'Black' : 'White';
    return `Game over: ${winner} wins ${Math.max(b, w)}–${Math.min(b, w)} (${s.score > 0 ? '+' : ''}${s.score} for Black).`;
  }
  const mover = COLOR[s.toMove];
  if (engineSide() === s.toMove) return `${mover} (the engine) is thinking…`;
  if (engineSide() === 'none') return `${mover} to move.`;
  return `Your move (${mover.toLowerCase()}).`;
}

function showReport(report) {
  const depth = report.kind === 'book' ? 'book'
    : report.kind === 'exact' ? `${report.depth} empties, exact`
      : report.kind === 'wld' ? `${report.depth} empties, win/draw/loss`
        : `depth ${report.depth}${report.selectivity === '100%' ? '' : '@' + report.selectivity}`;
  const seconds = (report.ms / 1000).toFixed(1);
  $('thinking-head').textContent =
    `${depth} · ${formatValue(report)} · ${report.nodes.toLocaleString('en')} nodes · ${seconds} s`;
  $('thinking-line').textContent = report.pv.join(' ');
}

// Redraws everything and starts what comes next: a pass, the engine's move, or hints.
function update() {
  const s = state();
  const enginesTurn = engineSide() === s.toMove && !s.over;
  board.render(s, !enginesTurn && !s.over && !s.mustPass);
  $('black-count').textContent = s.black;
  $('white-count').textContent = s.white;
  $('undo').disabled = !s.canUndo;
  $('redo').disabled = !s.canRedo;
  $('engine-move').disabled = s.over || s.mustPass;
  if (s.mustPass) {
    note = `${COLOR[s.toMove]} has no legal move and passes.`;
    game.play('PA');
    update();
    return;
  }
  $('status').textContent = (note ? note + ' ' : '') + describe(s);
  if (s.over) return;
  if (enginesTurn) engineMove(s);
  else if ($('hints').checked) showHints(s);
}

async function engineMove(s) {
  const asked = generation;
  setThinking(true);
  try {
    const report = await engine.request({ kind: 'think', obf: s.obf, ...strength() }, showReport);
    if (asked !== generation) return;
    setThinking(false);
    showReport(report);
    game.play(report.move);
    note = '';
    update();
  } catch (e) {
    if (e.cancelled || asked !== generation) return;
    setThinking(false);
    showError(`The engine could not move: ${e.message}`);
  }
}

async function showHints(s) {
  const asked = generation;
  const { level, depth, timeMs } = strength();
  // Hints search every move: under a time per move they get twice as long, at least 2 s.
  const request = { kind: 'hints', obf: s.obf, level, depth, timeMs: timeMs ? Math.max(2000, 2 * timeMs) : 0 };
  const show = (list) => {
    if (asked === generation) board.showHints(list);
  };
  document.body.dataset.hints = 'running';
  try {
    show(await engine.request(request, show));
    if (asked === generation) document.body.dataset.hints = 'done';
  } catch (e) {
    if (!e.cancelled && asked === generation) showError(`No hints: ${e.message}`);
  }
}

// Every user action goes through here: the engine stops, stale answers are dropped.
function act(change) {
  generation++;
  engine.cancel();
  setThinking(false);
  showError('');
  change();
  update();
}

function onSquare(square) {
  act(() => {
    game.play(square);
    note = '';
  });
}

function isEngineTurnOrPass() {
  const s = state();
  return (engineSide() === s.toMove || s.mustPass) && !s.over;
}

function undo() {
  act(() => {
    if (!game.undo()) return;
    // Back over passes and the engine's moves, to a position where the user has a move.
    while (isEngineTurnOrPass() && game.undo());
    note = '';
  });
}

function redo() {
  act(() => {
    if (!game.redo()) return;
    while (isEngineTurnOrPass() && game.redo());
    note = '';
  });
}

function replaceGame(next) {
  act(() => {
    game.free();
    game = next;
    note = '';
  });
}

function loadPasted() {
  const text = $('paste').value;
  let next;
  try {
    next = Game.parse(text);
  } catch (e) {
    // The game stays as it was.
    $('paste-error').textContent = `Not loaded: ${e.message}.`;
    return;
  }
  $('paste-error').textContent = '';
  replaceGame(next);
}

function exportText(text) {
  $('export').value = text;
  navigator.clipboard?.writeText(text).catch(() => {});
}

function players() {
  const engineName = `othello-engine web (${strengthName()})`;
  return {
    black: engineSide() === 'black' ? engineName : 'player',
    white: engineSide() === 'white' ? engineName : 'player',
  };
}

function wire() {
  const levels = $('levels');
  for (let n = 1; n <= 20; n++) levels.append(new Option(`Level ${n}`, `level:${n}`));
  board = new BoardView($('board'), onSquare);
  $('undo').addEventListener('click', undo);
  $('redo').addEventListener('click', redo);
  $('new-game').addEventListener('click', () => replaceGame(new Game()));
  $('engine-move').addEventListener('click', () => {
    act(() => {});
    if (!thinking) engineMove(state());
  });
  $('engine-side').addEventListener('change', () => act(() => {}));
  $('strength').addEventListener('change', () => act(() => {}));
  $('hints').addEventListener('change', () => act(() => {}));
  $('load').addEventListener('click', loadPasted);
  $('copy-transcript').addEventListener('click', () => exportText(game.transcript()));
  $('copy-ggf').addEventListener('click', () => {
    const { black, white } = players();
    exportText(game.ggf(black, white));
  });
}

function failLoad(message) {
  $('load-status').textContent = message;
  document.body.dataset.failed = 'true';
}

async function main() {
  if (typeof WebAssembly !== 'object' || typeof Worker !== 'function') {
    failLoad('This browser cannot run WebAssembly in a worker, which the engine needs: nothing can be played here. A recent Chrome, Firefox, Safari or Edge can.');
    return;
  }
  let module;
  try {
    const url = new URL('./pkg/othello_engine_bg.wasm', import.meta.url);
    module = await WebAssembly.compileStreaming(fetch(url));
    await init({ module_or_path: module });
  } catch (e) {
    failLoad(`The engine could not be loaded: ${e.message}`);
    return;
  }
  window.othelloPanic = (message) => showError(message);
  installPanicReport();
  game = new Game();
  engine = new EngineClient(module, {
    onPanic: (message) => {
      setThinking(false);
      showError(message);
    },
    onFailure: (message) => failLoad(`The engine's worker failed: ${message}`),
  });
  // For the browser tests and the measurements: the worker's client, to ask it directly.
  window.othelloEngine = engine;
  wire();
  document.body.dataset.thinking = 'false';
  update();
  try {
    await engine.ready;
    $('load-status').textContent = '';
    document.body.dataset.ready = 'true';
  } catch {
    // failLoad has said why.
  }
}

main();
