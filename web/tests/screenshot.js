// The README's picture of the page (docs/web-screenshot.png), made again whenever the page
// changes: a game in progress against the engine, its last reply and line shown, then the
// hints on every move of the player. `node screenshot.js [OUT.png]` after scripts/web.

import { join } from 'node:path';
import { serve, launch, openPage, repo } from './harness.js';

const out = process.argv[2] || join(repo, 'docs', 'web-screenshot.png');
// Nine moves of a game: white (the engine) to move.
const OPENING = 'f5d6c3d3c4f4f6f3e6';

const server = await serve();
const browser = await launch();
try {
  const page = await openPage(browser.context, server.url);
  await page.setViewportSize({ width: 960, height: 640 });
  await page.selectOption('#engine-side', 'white');
  await page.selectOption('#strength', 'time:1000');
  await page.$eval('#paste-box', (box) => { box.open = true; });
  await page.fill('#paste', OPENING);
  await page.click('#load');
  await page.waitForFunction(() => document.body.dataset.thinking === 'false'
    && document.querySelectorAll('.cell.legal').length > 0, null, { timeout: 30_000 });
  await page.$eval('#paste-box', (box) => { box.open = false; });
  await page.check('#hints');
  await page.waitForSelector('body[data-hints="done"]', { timeout: 30_000 });
  await page.waitForTimeout(500); // the flip animation ends
  await page.screenshot({ path: out });
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
  await server.close();
}
