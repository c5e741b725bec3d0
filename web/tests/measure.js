// The figures of docs/web.md, measured in the page in headless chromium (not a test: it asserts
// nothing but prints): `othello-engine bench` searched by the page's engine, and FFO endgame
// positions solved by it, each against the file's known score.
//
//   node measure.js bench [DEPTH] [EVALUATOR]   (defaults 9 weighted: the README's signature)
//   node measure.js ffo FIRST LAST              (e.g. 40 44, from data/positions/)

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serve, launch, openPage, repo } from './harness.js';

// Asks the page's engine client (window.othelloEngine) for one request.
async function ask(page, request) {
  return page.evaluate((r) => window.othelloEngine.request(r), request);
}

async function bench(page, depth, evaluator) {
  const reports = await ask(page, { kind: 'bench', depth, evaluator });
  let nodes = 0;
  let ms = 0;
  reports.forEach((r, i) => {
    nodes += r.nodes;
    ms += r.ms;
    console.log(`${String(i + 1).padStart(2)} ${r.move.padStart(5)} ${r.value.toFixed(2).padStart(8)} ${String(r.nodes).padStart(12)} ${(r.ms / 1000).toFixed(3).padStart(8)}`);
  });
  console.log(`page bench: depth ${depth}, evaluator ${evaluator}: ${nodes} nodes ${Math.round(nodes / (ms / 1000))} nps (${(ms / 1000).toFixed(3)} s)`);
}

// FFO #first..#last from the two files of data/positions that hold them.
function ffoPositions(first, last) {
  const lines = [];
  for (const [file, start] of [['fforum-20-39.obf', 20], ['fforum-40-59.obf', 40]]) {
    readFileSync(join(repo, 'data', 'positions', file), 'utf8').split('\n')
      .filter((l) => l.trim()).forEach((line, i) => lines.push({ number: start + i, line }));
  }
  return lines.filter((p) => p.number >= first && p.number <= last);
}

async function ffo(page, first, last) {
  let total = 0;
  for (const { number, line } of ffoPositions(first, last)) {
    const obf = line.split(';')[0].trim();
    // The file lists moves with their scores, best first; any move of the best score is right.
    const entries = line.split(';').slice(1).map((e) => e.trim()).filter(Boolean)
      .map((e) => ({ move: e.split(':')[0].toLowerCase(), score: Number(e.split(':')[1]) }));
    const score = entries[0].score;
    const bestMoves = entries.filter((e) => e.score === score).map((e) => e.move);
    const r = await ask(page, { kind: 'solve', obf });
    total += r.ms;
    const right = r.value === score && bestMoves.includes(r.move.toLowerCase());
    console.log(`#${number} ${r.move} ${r.value > 0 ? '+' : ''}${r.value} (file: ${bestMoves.join('/')} ${score > 0 ? '+' : ''}${score}) ${right ? 'right' : 'WRONG'} ${r.nodes} nodes ${(r.ms / 1000).toFixed(1)} s`);
  }
  console.log(`page ffo #${first}-#${last}: ${(total / 1000).toFixed(1)} s`);
}

const [what = 'bench', a, b] = process.argv.slice(2);
const server = await serve();
const browser = await launch();
try {
  const page = await openPage(browser.context, server.url);
  if (what === 'bench') await bench(page, Number(a || 9), b || 'weighted');
  else if (what === 'ffo') await ffo(page, Number(a || 40), Number(b || 44));
  else throw new Error(`unknown measurement '${what}': bench or ffo`);
} finally {
  await browser.close();
  await server.close();
}
