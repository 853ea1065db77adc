import { afterEach, describe, expect, it } from 'vitest';
import { launchBrowser } from './browser.js';

describe('browser tests on a machine without Chromium', () => {
  const saved = process.env.CHROMIUM_PATH;
  afterEach(() => {
    if (saved === undefined) delete process.env.CHROMIUM_PATH;
    else process.env.CHROMIUM_PATH = saved;
  });

  it('fail with one line saying how to install it', async () => {
    process.env.CHROMIUM_PATH = '/nonexistent/chromium';
    const error = (await launchBrowser().catch((e: unknown) => e)) as Error;
    expect(error.message).toBe(
      'browser tests: no Chromium at /nonexistent/chromium: install it (sudo apt-get install chromium) or set CHROMIUM_PATH',
    );
    expect(error.stack).toBe(error.message);
  });
});
