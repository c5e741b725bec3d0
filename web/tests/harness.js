// What every browser script here shares: a static server for the built page (the folder
// scripts/web writes, target/web unless OTHELLO_WEB_DIR says otherwise) and Debian's
// chromium, headless, driven by playwright-core. No browser is ever downloaded: the executable
// is /usr/bin/chromium (or CHROMIUM), and a missing one is an error, not a fetch.

import { createServer } from 'node:http';
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, extname, normalize, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
export const repo = join(here, '..', '..');
export const webDir = process.env.OTHELLO_WEB_DIR || join(repo, 'target', 'web');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
};

// Serves `webDir` on a free port of 127.0.0.1, as any static server would.
export async function serve() {
  if (!existsSync(join(webDir, 'index.html'))) {
    throw new Error(`no page in ${webDir}: run scripts/web first`);
  }
  const server = createServer(async (request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url, 'http://x').pathname));
    const file = join(webDir, path.endsWith('/') ? path + 'index.html' : path);
    try {
      const body = await readFile(file);
      response.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream' });
      response.end(body);
    } catch {
      response.writeHead(404);
      response.end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/`;
  return { url, close: () => new Promise((resolve) => server.close(resolve)) };
}

// The flags this machine's closed network needs (no background connections, no updates).
const FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

// A fresh browser with an empty profile; `close` ends it and removes the profile.
export async function launch() {
  const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
  if (!existsSync(executablePath)) {
    throw new Error(`no browser at ${executablePath}: install Debian's chromium (apt-get install chromium)`);
  }
  const profile = await mkdtemp(join(tmpdir(), 'othello-web-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: FLAGS,
    viewport: { width: 1000, height: 700 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

// Opens the page and waits until the engine's worker is ready. Errors of the page's scripts
// are collected in `page.errors`, so that a test can insist there were none.
export async function openPage(context, url) {
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (error) => page.errors.push(String(error)));
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"], body[data-failed="true"]', { timeout: 60_000 });
  if (await page.getAttribute('body', 'data-failed')) {
    throw new Error(`the page did not load: ${await page.textContent('#load-status')}`);
  }
  return page;
}

// The board as the page shows it: 64 characters X, O, - from a1 to h8.
export async function boardOf(page) {
  return page.$$eval('#board .cell', (cells) => cells.map((c) => c.dataset.disc).join(''));
}
