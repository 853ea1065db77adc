import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

/** Where screenshots go (gitignored). */
export const ARTIFACTS = new URL('../../test-artifacts/dashboard/', import.meta.url).pathname;

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Debian's Chromium (`/usr/bin/chromium`, or `CHROMIUM_PATH`) driven by playwright-core (no browser
 * download), with a fresh user-data dir.
 */
export async function launchBrowser(
  httpCredentials?: { username: string; password: string },
  /** The browser's own time zone (IANA); default: the machine's. */
  timezoneId?: string,
  /** `javaScriptEnabled: false` for a browser without scripts. */
  more: { javaScriptEnabled?: boolean } = {},
): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const executablePath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (!existsSync(executablePath)) {
    // One line, no stack: what is missing and how to get it.
    const error = new Error(
      `browser tests: no Chromium at ${executablePath}: install it (sudo apt-get install chromium) or set CHROMIUM_PATH`,
    );
    error.stack = error.message;
    throw error;
  }
  mkdirSync(ARTIFACTS, { recursive: true });
  const userDataDir = mkdtempSync(join(tmpdir(), 'bullbeat-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    args: ARGS,
    viewport: { width: 1400, height: 900 },
    ...(httpCredentials && { httpCredentials }),
    ...(timezoneId && { timezoneId }),
    ...more,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
