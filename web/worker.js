// The engine's thread: a module worker holding one `Engine` (src/web/engine.rs). It takes one
// request at a time ({id, kind, ...}), reports progress as it thinks and answers with the
// result or an error; a panic inside the engine (a bug) is reported, and the worker then
// refuses further requests, since the module's state is no longer to be trusted.

import init, { Engine, installPanicReport } from './pkg/othello_engine.js';

let engine = null;
let broken = null;

self.othelloPanic = (message) => {
  broken = message;
  self.postMessage({ kind: 'panic', message });
};

function answer(id, fields) {
  self.postMessage({ id, ...fields });
}

async function start(module) {
  await init({ module_or_path: module });
  installPanicReport();
  engine = new Engine(64, true);
  engine.warmUp();
  self.postMessage({ kind: 'ready' });
}

function run(request) {
  const progress = (json) => answer(request.id, { kind: 'progress', data: JSON.parse(json) });
  switch (request.kind) {
    case 'think':
    case 'hints':
    case 'solve':
      return engine.run(JSON.stringify(request), progress);
    case 'bench':
      return Engine.bench(request.depth, request.evaluator);
    case 'network':
      return Engine.useNetwork(new Uint8Array(request.bytes));
    case 'panic':
      return Engine.panicForTest();
    default:
      throw new Error(`unknown request '${request.kind}'`);
  }
}

self.onmessage = async (event) => {
  const request = event.data;
  if (request.kind === 'start') {
    try {
      await start(request.module);
    } catch (e) {
      self.postMessage({ kind: 'failed', message: String(e && e.message || e) });
    }
    return;
  }
  if (broken) {
    answer(request.id, { kind: 'error', message: `the engine stopped after a panic: ${broken}` });
    return;
  }
  try {
    const json = run(request);
    answer(request.id, { kind: 'result', data: JSON.parse(json) });
  } catch (e) {
    // A panic has already been reported by the hook; this is its trap, or a refusal.
    const message = broken || String(e && e.message || e);
    answer(request.id, { kind: 'error', message });
  }
};
