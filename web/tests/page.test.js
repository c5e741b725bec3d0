// The page in a real browser (Debian's chromium, headless): what a player does, checked against
// facts from outside the page: the tests' own rules (rules.js), the native binary's `analyse`
// and `bench`, and the README's bench signature. Run by `npm test` after scripts/web and
// `cargo build --release` (the binary: target/release/othello-engine, or OTHELLO_ENGINE).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, launch, openPage, boardOf, repo, webDir } from './harness.js';
import * as rules from './rules.js';

const engineBinary = process.env.OTHELLO_ENGINE || join(repo, 'target', 'release', 'othello-engine');
const START = '---------------------------OX------XO---------------------------';
// A position of 14 empties, black to move, out of the book: hints there are exact solves.
const ENDGAME = '----OX----OOXX---OOOXX-XOOXXOOOOOXXOXXOOOXXXOOOOOXXXXOXO--OOOOOX X';
// A midgame position out of the book (bench position 7, 40 empties), black to move, where a
// search takes its time.
const MIDGAME = readFileSync(join(repo, 'data', 'positions', 'midgame10.obf'), 'utf8').split('\n')[6].split(';')[0].trim();

let server;
let browser;

before(async () => {
  server = await serve();
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function settle(page) {
  await page.waitForFunction(() => document.body.dataset.thinking === 'false');
}

async function setup(page, { side, strength }) {
  await page.selectOption('#engine-side', side);
  await page.selectOption('#strength', strength);
  await settle(page);
}

async function paste(page, text) {
  await page.$eval('#paste-box', (box) => { box.open = true; });
  await page.fill('#paste', text);
  await page.click('#load');
}

async function transcript(page) {
  await page.$eval('#export-box', (box) => { box.open = true; });
  await page.click('#copy-transcript');
  return page.inputValue('#export');
}

// The board after `moves` from the start, by the tests' rules, passing where a side has no
// move; throws at an illegal move.
function replay(moves) {
  let board = START;
  let color = 'X';
  for (const move of moves.match(/[a-h][1-8]/g) || []) {
    if (!rules.legalMoves(board, color).length) color = color === 'X' ? 'O' : 'X';
    board = rules.play(board, move, color);
    color = color === 'X' ? 'O' : 'X';
  }
  return board;
}

function obfAfter(obf, move) {
  const [board, side] = obf.split(' ');
  const next = rules.play(board, move, side);
  return `${next} ${side === 'X' ? 'O' : 'X'}`;
}

test('a whole game clicked against the engine: every move legal, the score the board\'s', { timeout: 240_000 }, async () => {
  const page = await openPage(browser.context, server.url);
  await setup(page, { side: 'white', strength: 'level:3' });
  for (let turn = 0; turn < 64; turn++) {
    await settle(page);
    const moves = await transcript(page);
    const board = replay(moves);
    assert.equal(await boardOf(page), board, `the page's board after ${moves}`);
    if (await page.$('body:not([data-thinking="true"]) #status:has-text("Game over")')) break;
    const legal = rules.legalMoves(board, 'X');
    const marked = await page.$$eval('.cell.legal', (cells) => cells.map((c) => c.dataset.square));
    assert.deepEqual(marked.sort(), legal.sort(), `the legal moves marked on ${board}`);
    // The first legal move, unless a corner is there.
    const corner = legal.find((m) => ['a1', 'h1', 'a8', 'h8'].includes(m));
    await page.click(`[data-square="${corner || legal[0]}"]`);
  }
  const board = await boardOf(page);
  assert.equal(rules.legalMoves(board, 'X').length + rules.legalMoves(board, 'O').length, 0, 'the game is over');
  const score = rules.finalScore(board);
  const status = await page.textContent('#status');
  const expected = score === 0 ? 'a draw' : `(${score > 0 ? '+' : ''}${score} for Black)`;
  assert.ok(status.includes(expected), `"${status}" says ${expected}`);
  // The game's GGF, as othello-engine review reads it: the same moves, the same final discs.
  const moves = (await transcript(page)).match(/[a-h][1-8]/g);
  await page.click('#copy-ggf');
  const file = join(tmpdir(), `othello-web-${process.pid}.ggf`);
  writeFileSync(file, await page.inputValue('#export'));
  const review = JSON.parse(execFileSync(engineBinary, ['review', file, '--format', 'json', '--level', '1'], { encoding: 'utf8' }));
  rmSync(file);
  assert.deepEqual(review.moves.map((m) => m.played).filter((m) => /^[a-h][1-8]$/.test(m)), moves);
  assert.deepEqual([review.black_discs, review.white_discs], [rules.count(board, 'X'), rules.count(board, 'O')]);
  assert.deepEqual(page.errors, []);
});

test('hints are the values othello-engine analyse finds for each move', { timeout: 120_000 }, async () => {
  const page = await openPage(browser.context, server.url);
  await setup(page, { side: 'none', strength: 'time:1000' });
  await paste(page, ENDGAME);
  await page.check('#hints');
  await page.waitForSelector('body[data-hints="done"]', { timeout: 60_000 });
  const hints = await page.$$eval('.cell', (cells) => Object.fromEntries(
    cells.filter((c) => c.dataset.hint !== '').map((c) => [c.dataset.square, Number(c.dataset.hint)])));
  const legal = rules.legalMoves(ENDGAME.split(' ')[0], 'X');
  assert.deepEqual(Object.keys(hints).sort(), legal.sort(), 'a hint for every legal move');
  const exact = (obf) => {
    const out = execFileSync(engineBinary, ['analyse', '--position', obf, '--threads', '1', '--no-book'], { encoding: 'utf8' });
    return Number(out.match(/\(exact ([+-]?\d+)\)/)[1]);
  };
  for (const move of legal) {
    assert.equal(hints[move], 0 - exact(obfAfter(ENDGAME, move)) || 0, `the hint for ${move}`);
  }
  assert.equal(Math.max(...Object.values(hints)), exact(ENDGAME), 'the best hint is the position\'s value');
  assert.deepEqual(page.errors, []);
});

test('undo and redo walk the game back and forth', { timeout: 60_000 }, async () => {
  const page = await openPage(browser.context, server.url);
  await setup(page, { side: 'white', strength: 'level:2' });
  const boards = [await boardOf(page)];
  for (let i = 0; i < 2; i++) {
    const legal = rules.legalMoves(boards[boards.length - 1], 'X');
    await page.click(`[data-square="${legal[0]}"]`);
    await settle(page);
    boards.push(await boardOf(page));
    assert.equal(boards[boards.length - 1], replay(await transcript(page)));
  }
  await page.click('#undo');
  assert.equal(await boardOf(page), boards[1]);
  await page.click('#undo');
  assert.equal(await boardOf(page), boards[0]);
  assert.ok(await page.isDisabled('#undo'), 'nothing left to undo');
  await page.click('#redo');
  await settle(page);
  assert.equal(await boardOf(page), boards[1]);
  await page.click('#redo');
  await settle(page);
  assert.equal(await boardOf(page), boards[2]);
  assert.ok(await page.isDisabled('#redo'), 'nothing left to redo');
  // Another move after an undo forgets what could be redone.
  await page.click('#undo');
  const other = rules.legalMoves(boards[1], 'X').at(-1);
  await page.click(`[data-square="${other}"]`);
  await settle(page);
  assert.ok(await page.isDisabled('#redo'));
  assert.deepEqual(page.errors, []);
});

test('a pasted position or transcript starts a new game', { timeout: 60_000 }, async () => {
  const page = await openPage(browser.context, server.url);
  await setup(page, { side: 'none', strength: 'level:1' });
  await paste(page, MIDGAME);
  assert.equal(await boardOf(page), MIDGAME.split(' ')[0]);
  assert.match(await page.textContent('#status'), /Black to move/);
  // The transcript of a game from a position is that position and the moves; it reads back.
  const move = rules.legalMoves(MIDGAME.split(' ')[0], 'X')[0];
  await page.click(`[data-square="${move}"]`);
  const played = await boardOf(page);
  const text = await transcript(page);
  assert.equal(text, `${MIDGAME}\n${move}`);
  await paste(page, text);
  assert.equal(await boardOf(page), played);
  assert.equal(await page.textContent('#paste-error'), '');
  await paste(page, 'f5d6 C3 d3c4');
  assert.equal(await boardOf(page), replay('f5d6c3d3c4'));
  assert.match(await page.textContent('#status'), /White to move/);
  assert.equal(await page.textContent('#paste-error'), '');
  assert.deepEqual(page.errors, []);
});

test('a bad pasted position is refused with a message, the game unchanged', { timeout: 60_000 }, async () => {
  const page = await openPage(browser.context, server.url);
  await setup(page, { side: 'none', strength: 'level:1' });
  await paste(page, 'f5d6c3');
  const board = await boardOf(page);
  const bad = {
    '': /nothing to read/,
    'hello world': /not a transcript/,
    f5f5: /move 2 \(f5\) is illegal/,
    f5d6z9: /move 3 'z9' is not a move/,
    [MIDGAME.slice(1)]: /63 characters/,
    [MIDGAME.replace(/ X$/, ' Q')]: /side to move 'Q'/,
    [`${'O'.repeat(10)}${'-'.repeat(54)} X`]: /black is to move but has no disc/,
  };
  for (const [text, message] of Object.entries(bad)) {
    await paste(page, text);
    assert.match(await page.textContent('#paste-error'), message, `the message for '${text}'`);
    assert.equal(await boardOf(page), board, `the board after '${text}'`);
  }
  assert.deepEqual(page.errors, []);
});

test('the page answers clicks while the engine searches', { timeout: 60_000 }, async () => {
  const page = await openPage(browser.context, server.url);
  await setup(page, { side: 'white', strength: 'time:10000' });
  await paste(page, MIDGAME);
  const board = await boardOf(page);
  const legal = rules.legalMoves(board, 'X');
  await page.click(`[data-square="${legal[0]}"]`);
  // The engine is deep in a 10-second search: its progress shows depths as they finish.
  await page.waitForSelector('body[data-thinking="true"]');
  await page.waitForFunction(() => /depth \d+/.test(document.getElementById('thinking-head').textContent));
  await page.click('#undo');
  assert.equal(await boardOf(page), board, 'the undo took effect at once');
  assert.equal(await page.getAttribute('body', 'data-thinking'), 'false');
  await page.click(`[data-square="${legal[1]}"]`);
  assert.equal(await page.getAttribute(`[data-square="${legal[1]}"]`, 'data-disc'), 'X');
  assert.deepEqual(page.errors, []);
});

test('the engine searches the very trees of the native binary', { timeout: 120_000 }, async () => {
  const page = await openPage(browser.context, server.url);
  const bench = (depth, evaluator) => page.evaluate(
    (r) => window.othelloEngine.request(r), { kind: 'bench', depth, evaluator });
  const total = (reports) => reports.reduce((sum, r) => sum + r.nodes, 0);
  const signature = Number(readFileSync(join(repo, 'README.md'), 'utf8').match(/Bench signature: (\d+) nodes/)[1]);
  assert.equal(total(await bench(9, 'weighted')), signature, 'the README\'s bench signature');
  const native = execFileSync(engineBinary, ['bench', '--eval', 'neural', '--depth', '7'], { encoding: 'utf8' });
  assert.equal(total(await bench(7, 'neural')), Number(native.match(/: (\d+) nodes/)[1]), 'the network\'s bench');
});

// The built-in network has 16-bit rows: the WebAssembly copy of the 8-bit rows' sums runs
// only on a network of 8-bit rows, which the page does not embed. The native binary fits one
// (width 32, one pass over one shard of the repository's data: a few seconds), the page loads
// it, and both search the bench positions: the same nodes, or the two copies of the sums differ.
test('a network of 8-bit rows searches the native trees in the page', { timeout: 180_000 }, async () => {
  const file = 'test-rows-i8.net';
  const net = join(webDir, file);
  const shard = join(repo, 'data', 'train', 'r1-n8s', 'self-s91-0000000.oes');
  try {
    execFileSync(engineBinary, ['train', shard, '--model', 'net', '--width', '32', '--rows', 'i8',
      '--epochs', '1', '--threads', '1', '--out', net, '--checkpoint', `${net}.checkpoint`], { stdio: 'ignore' });
    const page = await openPage(browser.context, server.url);
    const shape = await page.evaluate(async (name) => {
      const bytes = new Uint8Array(await (await fetch(name)).arrayBuffer());
      return window.othelloEngine.request({ kind: 'network', bytes });
    }, file);
    assert.deepEqual(shape, { width: 32, hidden: 16, buckets: 4, rows: 'i8' });
    const reports = await page.evaluate(
      (r) => window.othelloEngine.request(r), { kind: 'bench', depth: 7, evaluator: 'neural' });
    const nodes = reports.reduce((sum, r) => sum + r.nodes, 0);
    const native = execFileSync(engineBinary, ['bench', '--eval', 'neural', '--depth', '7', '--network', net], { encoding: 'utf8' });
    const builtIn = execFileSync(engineBinary, ['bench', '--eval', 'neural', '--depth', '7'], { encoding: 'utf8' });
    const nodesOf = (text) => Number(text.match(/: (\d+) nodes/)[1]);
    assert.notEqual(nodesOf(native), nodesOf(builtIn), 'the loaded network searches other trees than the built-in one');
    assert.equal(nodes, nodesOf(native), 'the 8-bit network\'s bench');
    const again = await page.evaluate(async (name) => {
      const bytes = new Uint8Array(await (await fetch(name)).arrayBuffer());
      return window.othelloEngine.request({ kind: 'network', bytes: bytes.slice(0, 1000) }).then(() => 'accepted', (e) => e.message);
    }, file);
    assert.match(again, /bad network/, 'a truncated network is refused');
    assert.deepEqual(page.errors, []);
  } finally {
    rmSync(net, { force: true });
    rmSync(`${net}.checkpoint`, { force: true });
  }
});

test('bad requests to the engine are refused with a message, not a panic', { timeout: 60_000 }, async () => {
  const page = await openPage(browser.context, server.url);
  const over = `${'X'.repeat(40)}${'O'.repeat(24)} O`;
  const bad = [
    [{ kind: 'think', obf: 'garbage' }, /bad OBF board/],
    [{ kind: 'think', obf: MIDGAME, level: 21 }, /no level 21/],
    [{ kind: 'think', obf: MIDGAME, depth: 99 }, /depth 99 is too deep/],
    [{ kind: 'think', obf: MIDGAME, timeMs: -5 }, /bad time -5 ms/],
    [{ kind: 'hints', obf: over }, /the game is over/],
    [{ kind: 'fly', obf: MIDGAME }, /unknown request 'fly'/],
    [{ kind: 'bench', depth: 0, evaluator: 'neural' }, /a depth of 1 to 30/],
  ];
  for (const [request, message] of bad) {
    const answer = await page.evaluate((r) => window.othelloEngine.request(r).then(() => 'accepted', (e) => e.message), request);
    assert.match(answer, message, JSON.stringify(request));
  }
  assert.equal(await page.textContent('#error'), '', 'no panic reported');
  assert.deepEqual(page.errors, []);
});

test('a panic in the engine is shown on the page, and the engine starts again', { timeout: 60_000 }, async () => {
  const page = await openPage(browser.context, server.url);
  const message = await page.evaluate(() => window.othelloEngine.request({ kind: 'panic' }).catch((e) => e.message));
  assert.match(message, /panicked[^]*asked for by the page's test/);
  assert.match(await page.textContent('#error'), /panicked/);
  const report = await page.evaluate((obf) => window.othelloEngine.request({ kind: 'think', obf, level: 1, depth: 0, timeMs: 0 }), MIDGAME);
  assert.ok(rules.legalMoves(MIDGAME.split(' ')[0], 'X').includes(report.move));
});

test('without WebAssembly the page says so instead of showing a dead board', { timeout: 30_000 }, async () => {
  const page = await browser.context.newPage();
  await page.addInitScript(() => { delete globalThis.WebAssembly; });
  await page.goto(server.url);
  await page.waitForSelector('body[data-failed="true"]');
  assert.match(await page.textContent('#load-status'), /cannot run WebAssembly/);
  assert.ok(!(await page.isVisible('#board')));
});
