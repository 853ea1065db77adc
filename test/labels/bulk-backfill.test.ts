// Backfill by selector (a dry run that lists what it would do, then the real one) and scheduleMany's
// refusal of a code schedule, on a real Redis.
import { afterEach, describe, expect, it } from 'vitest';
import { IntervalTrigger } from '../../src/index.js';
import { testEnv } from '../scheduler/helpers.js';

let env: ReturnType<typeof testEnv>;
afterEach(async () => {
  await env.cleanup();
});

const HOUR = 3600_000;

describe('backfill by selector', () => {
  it('a dry run lists, per selected schedule, the fire times it would enqueue; the run enqueues exactly those', async () => {
    env = testEnv('sel-backfill');
    const m = env.manager({ role: 'client' });
    await m.scheduleMany(
      [
        ['a', 3600, 'acme'],
        ['b', 7200, 'acme'],
        ['c', 3600, 'globex'],
      ].map(([id, s, tenant]) => ({
        target: { name: 'daily' },
        trigger: new IntervalTrigger(s as number),
        options: { id: id as string, labels: { tenant: tenant as string } },
      })),
    );
    const from = Date.UTC(2026, 0, 1);
    const to = from + 4 * HOUR;
    const dry = await m.select('tenant=acme').backfill({ from, to, dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, matched: 2, count: 2, failed: [], from, to });
    expect(dry.schedules.map((s) => [s.scheduleId, s.fireTimes])).toEqual([
      ['a', [from, from + HOUR, from + 2 * HOUR, from + 3 * HOUR]],
      ['b', [from, from + 2 * HOUR]],
    ]);
    expect(dry.enqueued).toBe(6);
    expect(await env.jobIds()).toEqual([]); // nothing enqueued

    const run = await m.select('tenant=acme').backfill({ from, to, by: 'ann' });
    expect(run).toMatchObject({ dryRun: false, matched: 2, count: 2, enqueued: 6 });
    expect(run.schedules.map((s) => [s.scheduleId, s.fireTimes])).toEqual(
      dry.schedules.map((s) => [s.scheduleId, s.fireTimes]),
    );
    expect((await env.jobIds()).sort()).toEqual(
      [
        ...[0, 1, 2, 3].map((h) => `bb-a-b${from + h * HOUR}`),
        ...[0, 2].map((h) => `bb-b-b${from + h * HOUR}`),
      ].sort(),
    );
    // a second run finds everything taken: nothing more to enqueue
    const again = await m.select('tenant=acme').backfill({ from, to, dryRun: true });
    expect(again).toMatchObject({ count: 0, enqueued: 0 });
    expect(again.schedules.every((s) => s.fireTimes.length === 0)).toBe(true);
    const trail = await m.bulkChanges();
    expect(trail[1]).toMatchObject({ op: 'backfill', selector: 'tenant=acme', matched: 2, count: 2 });
    expect(trail[1]?.detail).toBe(`from ${new Date(from).toISOString()} to ${new Date(to).toISOString()}`);
  });

  it('bad options are refused once, naming the field, before anything is taken', async () => {
    env = testEnv('sel-backfill-bad');
    const m = env.manager({ role: 'client' });
    await m.scheduleMany([
      { target: { name: 'x' }, trigger: new IntervalTrigger(60), options: { id: 'a', labels: { t: 'x' } } },
    ]);
    const from = Date.UTC(2026, 0, 1);
    await expect(m.select('t=x').backfill({ from, to: from - 1 })).rejects.toMatchObject({
      name: 'ScheduleOptionsError',
      field: 'to',
    });
    await expect(m.select('t=x').backfill({ from, to: from + HOUR, ratePerSecond: 0 })).rejects.toMatchObject(
      { field: 'ratePerSecond' },
    );
    expect((await m.bulkChanges()).map((c) => c.op)).toEqual(['create']); // no backfill entry
  });
});

describe('scheduleMany and code schedules', () => {
  it('refuses to replace a schedule declared in a jobs module, naming it; nothing of the batch written', async () => {
    env = testEnv('many-code');
    const code = env.manager({ role: 'client' });
    await code.cron('0 6 * * *', { id: 'nightly' })(async function nightly() {});
    await code.start(); // a client: saves its code schedules, fires nothing
    const m = env.manager({ role: 'client' });
    const before = (await m.get('nightly'))?.toJSON();
    expect(before?.source).toBe('code');
    const batch = ['x1', 'nightly', 'x2'].map((id) => ({
      target: { name: 'report' },
      trigger: { type: 'cron' as const, expression: '0 9 * * *' },
      options: { id },
    }));
    const err = await m.scheduleMany(batch).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'ScheduleOptionsError', field: '[1].id', scheduleId: 'nightly' });
    expect((err as Error).message).toContain('schedule "nightly" is defined in code');
    expect((await m.get('x1')) ?? null).toBeNull();
    expect((await m.get('nightly'))?.toJSON()).toEqual(before);
    expect(await m.bulkChanges()).toEqual([]);
    // a runtime schedule of the same batch shape is replaced as before
    await m.scheduleMany(batch.filter((b) => b.options.id !== 'nightly'));
    expect((await m.scheduleMany(batch.slice(0, 1))).count).toBe(1);
  });
});
