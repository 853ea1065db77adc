// The deployment's data format (src/store/deployment/data-format.ts) against a real Redis: an empty
// deployment gets the key from its first writer, a deployment with data and no key is format 1, an
// older format is upgraded step by step by a writer and read as it is by a reader, and a newer one is
// refused with both versions named, the key left as it was.
import { describe, expect, it } from 'vitest';
import { ConfigError, DataFormatError } from '../../src/errors/index.js';
import {
  checkDataFormat,
  checkDeployment,
  DATA_FORMAT,
  type FormatUpgrade,
} from '../../src/store/deployment/data-format.js';
import { keys } from '../../src/store/keys/keys.js';
import { StoreBed } from './helpers.js';

async function withBed(fn: (bed: StoreBed) => Promise<void>): Promise<void> {
  const bed = new StoreBed();
  try {
    await fn(bed);
  } finally {
    await bed.cleanup();
  }
}

/** Upgrade steps that leave a mark per step (and count their runs), as a release's real steps would rewrite data. */
function markingSteps(ran: string[]): Record<number, FormatUpgrade> {
  const step =
    (from: number): FormatUpgrade =>
    async (redis, k) => {
      // what the step found recorded: the format it upgrades from (or none, format 1), one writer alone
      ran.push(`${from}->${from + 1} at ${await redis.get(k.dataFormat)}`);
      await redis.hset(`${k.base}:upgraded`, String(from), '1');
    };
  return { 1: step(1), 2: step(2) };
}

describe('the data format of a deployment', () => {
  it('is this release format 3, kept at {prefix}:bb:format, in the slot of the deployment-wide keys', () => {
    expect(DATA_FORMAT).toBe(3);
    const k = keys('dep', 32);
    expect(k.dataFormat).toBe('{dep}:bb:format');
    expect(k.dataFormat.startsWith(k.partitionCount.slice(0, '{dep}'.length))).toBe(true);
  });

  it('an empty deployment: the first writer records this release format; a read records nothing', () =>
    withBed(async (bed) => {
      expect(await checkDataFormat(bed.redis, bed.k, false)).toBeUndefined();
      expect(await bed.redis.exists(bed.k.dataFormat)).toBe(0);
      expect(await checkDataFormat(bed.redis, bed.k, true)).toBe(DATA_FORMAT);
      expect(await bed.redis.get(bed.k.dataFormat)).toBe(String(DATA_FORMAT));
      // a second start finds it and writes nothing more
      expect(await checkDataFormat(bed.redis, bed.k, true)).toBe(DATA_FORMAT);
      expect(await checkDataFormat(bed.redis, bed.k, false)).toBe(DATA_FORMAT);
    }));

  it('an empty deployment under a newer release is recorded at its format, with no upgrade step run', () =>
    withBed(async (bed) => {
      const ran: string[] = [];
      const rules = { known: 3, upgrades: markingSteps(ran) };
      expect(await checkDataFormat(bed.redis, bed.k, true, rules)).toBe(3);
      expect(await bed.redis.get(bed.k.dataFormat)).toBe('3');
      expect(ran).toEqual([]);
    }));

  it('data with no format key (written before the format was recorded) is format 1: a writer records 1, a read leaves it', () =>
    withBed(async (bed) => {
      await bed.redis.hset(bed.k.schedules, 'a', '{"name":"a","queue":"q"}');
      expect(await checkDataFormat(bed.redis, bed.k, false)).toBe(1);
      expect(await bed.redis.exists(bed.k.dataFormat)).toBe(0);
      // under a release of format 1 (this one upgrades it: see 'data with no key under a release at format 2')
      expect(await checkDataFormat(bed.redis, bed.k, true, { known: 1, upgrades: {} })).toBe(1);
      expect(await bed.redis.get(bed.k.dataFormat)).toBe('1');
      // the data itself is untouched
      expect(await bed.redis.hget(bed.k.schedules, 'a')).toBe('{"name":"a","queue":"q"}');
    }));

  it('a newer format is refused, by a writer and a reader alike, naming both versions; nothing is written', () =>
    withBed(async (bed) => {
      await bed.redis.set(bed.k.dataFormat, String(DATA_FORMAT + 1));
      for (const record of [true, false]) {
        const err = (await checkDataFormat(bed.redis, bed.k, record).catch(
          (e: unknown) => e,
        )) as DataFormatError;
        expect(err).toBeInstanceOf(DataFormatError);
        expect(err.stored).toBe(DATA_FORMAT + 1);
        expect(err.known).toBe(DATA_FORMAT);
        expect(err.key).toBe(bed.k.dataFormat);
        expect(err.message).toContain(`format ${DATA_FORMAT + 1}`);
        expect(err.message).toContain(`format ${DATA_FORMAT},`);
        expect(err.message).toContain(bed.k.dataFormat);
      }
      expect(await bed.redis.get(bed.k.dataFormat)).toBe(String(DATA_FORMAT + 1));
    }));

  it('an older format: a writer runs each step in turn and moves the key after each; a reader reads it as it is', () =>
    withBed(async (bed) => {
      await bed.redis.set(bed.k.dataFormat, '1');
      const ran: string[] = [];
      const rules = { known: 3, upgrades: markingSteps(ran) };
      expect(await checkDataFormat(bed.redis, bed.k, false, rules)).toBe(1);
      expect(ran).toEqual([]);
      expect(await bed.redis.get(bed.k.dataFormat)).toBe('1');
      expect(await checkDataFormat(bed.redis, bed.k, true, rules)).toBe(3);
      expect(ran).toEqual(['1->2 at 1', '2->3 at 2']);
      expect(await bed.redis.get(bed.k.dataFormat)).toBe('3');
      expect(await bed.redis.hgetall(`${bed.k.base}:upgraded`)).toEqual({ 1: '1', 2: '1' });
    }));

  it('data with no key under a release at format 2 runs the step from 1, then records 2', () =>
    withBed(async (bed) => {
      await bed.redis.hset(bed.k.schedules, 'a', '{}');
      const ran: string[] = [];
      expect(await checkDataFormat(bed.redis, bed.k, true, { known: 2, upgrades: markingSteps(ran) })).toBe(
        2,
      );
      expect(ran).toEqual(['1->2 at null']);
      expect(await bed.redis.get(bed.k.dataFormat)).toBe('2');
    }));

  it('two writers upgrading at once both end at the new format, which moves once per step', () =>
    withBed(async (bed) => {
      await bed.redis.set(bed.k.dataFormat, '1');
      const ran: string[] = [];
      const rules = { known: 3, upgrades: markingSteps(ran) };
      const other = bed.redis.duplicate();
      const [a, b] = await Promise.all([
        checkDataFormat(bed.redis, bed.k, true, rules),
        checkDataFormat(other, bed.k, true, rules),
      ]).finally(() => other.quit());
      expect([a, b]).toEqual([3, 3]);
      expect(await bed.redis.get(bed.k.dataFormat)).toBe('3');
      // each step ran at least once (a step runs again over what it rewrote: steps are idempotent), and
      // once here: one process holds a step's lease while the other waits for the format to move
      expect(ran.filter((r) => r.startsWith('1->2')).length).toBeGreaterThanOrEqual(1);
      expect(ran.filter((r) => r.startsWith('2->3')).length).toBeGreaterThanOrEqual(1);
      expect(ran).toEqual(['1->2 at 1', '2->3 at 2']);
    }));

  it('an older format with no step from it, and a stored value that is no format, are errors saying which', () =>
    withBed(async (bed) => {
      await bed.redis.set(bed.k.dataFormat, '1');
      await expect(checkDataFormat(bed.redis, bed.k, true, { known: 2, upgrades: {} })).rejects.toThrow(
        /knows format 2 but has no upgrade from format 1/,
      );
      expect(await bed.redis.get(bed.k.dataFormat)).toBe('1');
      await bed.redis.set(bed.k.dataFormat, 'two');
      await expect(checkDataFormat(bed.redis, bed.k, false)).rejects.toThrow(
        `${bed.k.dataFormat}: "two" is not a data format version`,
      );
    }));

  it('checkDeployment: the format read first, written last, with the partition count', () =>
    withBed(async (bed) => {
      // a read on an empty deployment writes nothing
      expect(await checkDeployment(bed.redis, bed.k, false)).toBe(false);
      expect(await bed.redis.keys(`${bed.k.base}*`)).toEqual([]);
      // a newer format is refused before the partition count is written
      await bed.redis.set(bed.k.dataFormat, String(DATA_FORMAT + 1));
      await expect(checkDeployment(bed.redis, bed.k, true)).rejects.toBeInstanceOf(DataFormatError);
      expect(await bed.redis.exists(bed.k.partitionCount)).toBe(0);
      await bed.redis.del(bed.k.dataFormat);
      // another partition count: refused, and no format key left behind
      await bed.redis.set(bed.k.partitionCount, '4');
      await expect(checkDeployment(bed.redis, bed.k, true)).rejects.toBeInstanceOf(ConfigError);
      expect(await bed.redis.exists(bed.k.dataFormat)).toBe(0);
      await bed.redis.del(bed.k.partitionCount);
      // the first writer of an empty deployment records both; settled from then on
      expect(await checkDeployment(bed.redis, bed.k, true)).toBe(true);
      expect(await bed.redis.mget(bed.k.dataFormat, bed.k.partitionCount)).toEqual([
        String(DATA_FORMAT),
        '1',
      ]);
      expect(await checkDeployment(bed.redis, bed.k, false)).toBe(true);
    }));
});
