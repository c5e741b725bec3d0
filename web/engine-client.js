// The page's side of the engine's worker: one request at a time, each a promise, with its
// progress reports passed to a callback. A worker busy in WebAssembly reads no messages, so
// `cancel` ends the worker and starts a fresh one from the module already compiled; the
// fresh engine has an empty table, which costs a little strength and no correctness.

export class EngineClient {
  constructor(module, handlers) {
    this.module = module;
    this.handlers = handlers; // { onPanic(message), onFailure(message) }
    this.nextId = 1;
    this.pending = null;
    this.start();
  }

  start() {
    this.worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    this.ready = new Promise((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    this.ready.catch(() => {}); // a failure is reported through onFailure
    this.broken = false;
    this.worker.onmessage = (event) => this.receive(event.data);
    this.worker.onerror = (event) => {
      const message = event.message || 'the engine\'s worker could not start';
      this.rejectReady(new Error(message));
      this.fail(message);
    };
    this.worker.postMessage({ kind: 'start', module: this.module });
  }

  receive(message) {
    switch (message.kind) {
      case 'ready':
        this.resolveReady();
        return;
      case 'failed':
        this.rejectReady(new Error(message.message));
        this.fail(message.message);
        return;
      case 'panic':
        this.broken = true; // the next request starts a fresh worker
        this.handlers.onPanic(message.message);
        return;
      default:
        break;
    }
    const pending = this.pending;
    if (!pending || pending.id !== message.id) return; // an answer to a cancelled request
    if (message.kind === 'progress') {
      pending.onProgress(message.data);
    } else {
      this.pending = null;
      if (message.kind === 'result') pending.resolve(message.data);
      else pending.reject(new Error(message.message));
    }
  }

  fail(message) {
    if (this.pending) {
      this.pending.reject(new Error(message));
      this.pending = null;
    }
    this.handlers.onFailure(message);
  }

  get busy() {
    return this.pending !== null;
  }

  // Sends a request ({kind, ...}) once the engine is ready; resolves to its result.
  async request(fields, onProgress = () => {}) {
    if (this.busy) this.cancel();
    if (this.broken) {
      this.worker.terminate();
      this.start();
    }
    await this.ready;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending = { id, resolve, reject, onProgress };
      this.worker.postMessage({ id, ...fields });
    });
  }

  // Stops whatever the engine is doing: the pending request rejects with `cancelled` set.
  cancel() {
    if (!this.pending) return;
    const pending = this.pending;
    this.pending = null;
    this.worker.terminate();
    this.start();
    const error = new Error('cancelled');
    error.cancelled = true;
    pending.reject(error);
  }
}
