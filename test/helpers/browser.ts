// Headless Chromium from Debian's packages, driven through playwright-core (no browser download).

import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { projectPath } from '../../src/paths.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Launches Chromium with the flags this closed-network machine needs. */
export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM))
    throw new Error(`Chromium is not installed at ${CHROMIUM}: run "apt-get install chromium" (.ci/run does) or set CHROMIUM_PATH.`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Where tests write screenshots for review (git-ignored). */
export function screenshotPath(name: string): string {
  const dir = projectPath('test-artifacts', 'screenshots');
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, name);
}
