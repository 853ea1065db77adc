import { readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { plantedHost, redisUses } from './redis-door.js';

// One door to Redis: everything bullbeat reads from or writes to Redis goes through src/store, where
// it is encoded and decoded. A file outside it that sends a Redis command itself (an ioredis client,
// pipeline or multi method, `call`, or Lua) fails this test. BullMQ's own API (`Queue`, `Worker`,
// `Job` methods) is BullMQ's door and may be used anywhere.

const ROOT = normalize(join(dirname(fileURLToPath(import.meta.url)), '../..'));

/** Files still allowed to send commands themselves, each with why. The goal is an empty list. */
const ALLOWED: Record<string, string> = {};

const SCANNED = ['src', 'dashboard', 'nest', 'workers'];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

const outsideStore = () =>
  SCANNED.flatMap((d) => files(join(ROOT, d))).filter(
    (f) => !relative(ROOT, f).split('\\').join('/').startsWith('src/store/'),
  );

// The scanner's own check rides in the same program (one type check): a planted file that sends
// commands every way there is, beside calls that only look like them.
const PLANTED = join(ROOT, 'test/architecture/__planted__.ts');
const PLANTED_TEXT = [
  "import type { Redis } from 'ioredis';",
  'export async function planted(r: Redis): Promise<void> {',
  "  await r.hget('k', 'f');", // 3
  "  await r.pipeline().zrange('z', 0, -1).exec();", // 4: pipeline, zrange, exec
  "  await r.call('PING');", // 5
  '  const lua = "return redis.call(\'GET\', KEYS[1])";', // 6
  "  r.defineCommand('bbOwn', { numberOfKeys: 0, lua: 'return 1' });", // 7: a script of its own
  "  new Map<string, string>().get('x');",
  "  new URLSearchParams().set('a', 'b');",
  '  planted.call(null, r);',
  "  /x/.exec('x');",
  '  r.disconnect();',
  '  void lua;',
  '}',
].join('\n');

const uses = redisUses([...outsideStore(), PLANTED], plantedHost({ [PLANTED]: PLANTED_TEXT }));

describe('the scanner', () => {
  it('finds a planted command, pipeline, call, script definition and Lua; not Map, URLSearchParams, Function.call', () => {
    const planted = uses.filter((u) => u.file === PLANTED);
    expect(planted.map((u) => `${u.line} ${u.what}`).sort()).toEqual(
      ['3 hget', '4 exec', '4 pipeline', '4 zrange', '5 call', '6 lua', '7 defineCommand'].sort(),
    );
  });
});

describe('one door to Redis', () => {
  const byFile = new Map<string, string[]>();
  for (const u of uses.filter((u) => u.file !== PLANTED)) {
    const rel = relative(ROOT, u.file).split('\\').join('/');
    byFile.set(rel, [...(byFile.get(rel) ?? []), `${u.line}:${u.what}`]);
  }

  it('no file outside src/store sends Redis commands itself, but those allowed', () => {
    const offenders = [...byFile].filter(([f]) => !(f in ALLOWED)).map(([f, at]) => `${f} ${at.join(' ')}`);
    expect(offenders).toEqual([]);
  });

  it('every file allowed still sends some (else strike it from the list)', () => {
    expect(Object.keys(ALLOWED).filter((f) => !byFile.has(f))).toEqual([]);
  });
});
