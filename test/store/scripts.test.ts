// The script loader: every .lua file compiles in Redis with its includes resolved, once per client.
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { commandName, defineStoreScripts, storeScripts } from '../../src/store/scripts/scripts.js';
import { StoreBed } from './helpers.js';

let bed: StoreBed;
afterEach(async () => {
  await bed.cleanup();
});

const LUA = new URL('../../src/store/scripts/lua/', import.meta.url);

describe('store scripts', () => {
  it('every script compiles in Redis, with no include left unresolved', async () => {
    bed = new StoreBed();
    const files = readdirSync(LUA).filter((f) => f.endsWith('.lua'));
    expect(storeScripts().map((s) => `${s.name}-${s.numberOfKeys ?? 'n'}.lua`)).toEqual(files.sort());
    for (const s of storeScripts()) {
      expect(s.lua).not.toMatch(/@include/);
      await expect(bed.redis.script('LOAD', s.lua), s.name).resolves.toMatch(/^[0-9a-f]{40}$/);
    }
  });

  it('each header names every KEYS[i] and ARGV[i] its script uses', () => {
    bed = new StoreBed();
    for (const s of storeScripts()) {
      const text = readFileSync(new URL(`${s.name}-${s.numberOfKeys ?? 'n'}.lua`, LUA), 'utf8');
      const header = text.slice(0, text.indexOf(']]'));
      const body = text.slice(text.indexOf(']]'));
      for (const [ref] of body.matchAll(/(KEYS|ARGV)\[\d+\]/g))
        expect(header, `${s.name}: ${ref}`).toContain(ref);
      if (s.numberOfKeys !== undefined) {
        const most = Math.max(0, ...[...body.matchAll(/KEYS\[(\d+)\]/g)].map((m) => Number(m[1])));
        expect(most, `${s.name} uses KEYS up to ${most}`).toBeLessThanOrEqual(s.numberOfKeys);
      }
    }
  });

  it('command names come from the file names; a client is defined once', () => {
    bed = new StoreBed();
    expect(commandName('set-status')).toBe('bbSetStatus');
    expect(commandName('upsert')).toBe('bbUpsert');
    const commands = bed.redis as unknown as Record<string, unknown>;
    defineStoreScripts(bed.redis);
    const first = commands.bbClaim;
    defineStoreScripts(bed.redis);
    expect(commands.bbClaim).toBe(first);
    expect(typeof commands.bbLeaveGroupQueue).toBe('function');
  });
});
