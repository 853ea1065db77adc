import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { internalsOf } from '../../src/scheduler/index.js';
import { REDIS_URL } from '../redis-url.js';
import { startTestDashboard, type TestDashboard } from './harness.js';

const HOUR = 3_600_000;

describe('API: POST /api/schedules/:id/backfill and except', () => {
  let t: TestDashboard;
  let to: number;
  beforeAll(async () => {
    t = await startTestDashboard();
    const created = await t.api('POST', '/api/schedules', {
      name: 'hourly',
      queue: t.queue,
      trigger: { type: 'interval', seconds: 3600 },
    });
    expect(created.status).toBe(201);
    expect((await t.api('POST', '/api/schedules/hourly/pause')).status).toBe(200);
    const [s] = await internalsOf(t.scheduler).redis.time();
    to = Math.floor((Number(s) * 1000) / HOUR) * HOUR;
  });
  afterAll(async () => {
    await t.cleanup();
  });

  const jobIds = async () => {
    const q = new Queue(t.queue, { connection: { url: REDIS_URL } });
    const jobs = await q.getJobs(['wait', 'active', 'completed', 'failed', 'delayed']);
    await q.close();
    return jobs.map((j) => j.id as string).sort();
  };

  it('a dry run answers 200 with the occurrences and enqueues nothing; then 202 enqueues them', async () => {
    const from = new Date(to - 3 * HOUR).toISOString();
    const dry = await t.api('POST', '/api/schedules/hourly/backfill', {
      from,
      to: new Date(to).toISOString(),
      dryRun: true,
    });
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ scheduleId: 'hourly', dryRun: true, enqueued: 3, skipped: 0 });
    expect(dry.body.occurrences.map((o: { fireAt: number }) => o.fireAt)).toEqual([
      to - 3 * HOUR,
      to - 2 * HOUR,
      to - HOUR,
    ]);
    expect(await jobIds()).toEqual([]);
    const run = await t.api('POST', '/api/schedules/hourly/backfill', { from, to });
    expect(run.status).toBe(202);
    expect(run.body.occurrences.every((o: { status: string }) => o.status === 'enqueued')).toBe(true);
    const want = [3, 2, 1].map((i) => `bb-hourly-b${to - i * HOUR}`).sort();
    for (let i = 0; i < 100 && (await jobIds()).length < 3; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await jobIds()).toEqual(want);
    const runs = await t.api('GET', '/api/schedules/hourly/runs');
    expect(runs.body.items.map((r: { kind: string }) => r.kind)).toEqual([
      'backfill',
      'backfill',
      'backfill',
    ]);
    // the OpenAPI description documents the route and its answer
    const doc = (await t.api('GET', '/api/openapi.json')).body;
    const schema =
      doc.paths['/schedules/{id}/backfill'].post.responses['202'].content['application/json'].schema;
    z.fromJSONSchema(schema).parse(run.body);
    z.fromJSONSchema(
      doc.paths['/schedules/{id}/runs'].get.responses['200'].content['application/json'].schema,
    ).parse(runs.body);
  });

  it('bad bodies: 400 naming the field, nothing enqueued', async () => {
    const before = await jobIds();
    const cases: [unknown, string, RegExp][] = [
      [{ from: to, to: to - HOUR }, 'to', /must be after from/],
      [{ from: to - HOUR }, 'to', /required/],
      [{ from: 'last tuesday', to }, 'from', /cannot read "last tuesday"/],
      [{ from: 0, to }, 'to', /more than 10000 occurrences/], // hourly since 1970
      [{ from: to - HOUR, to, maxOccurrences: 0 }, 'maxOccurrences', /from 1/],
      [{ from: to - HOUR, to, overlap: 'sometimes' }, 'overlap', /"skip".*"bufferAll".*"allowAll"/],
      [{ from: to - HOUR, to, rate: 5 }, 'rate', /unknown field/],
    ];
    for (const [body, field, reason] of cases) {
      const r = await t.api('POST', '/api/schedules/hourly/backfill', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.field).toBe(field);
      expect(r.body.error).toMatch(reason);
    }
    const missing = await t.api('POST', '/api/schedules/nope/backfill', { from: to - HOUR, to });
    expect(missing.status).toBe(404);
    expect(await jobIds()).toEqual(before);
  });

  it('except: created through the API, stored in the trigger, shown in words, honoured by the next fire times', async () => {
    const r = await t.api('POST', '/api/schedules', {
      name: 'weekdays-noon',
      queue: t.queue,
      trigger: { type: 'cron', expression: '0 12 * * *', timezone: 'Europe/Paris' },
      except: ['2099-12-25', '* * * * 0,6'],
    });
    expect(r.status).toBe(201);
    expect(r.body.definition.trigger).toEqual({
      type: 'except',
      trigger: { type: 'cron', expression: '0 12 * * *', timezone: 'Europe/Paris' },
      except: ['2099-12-25', '* * * * 0,6'],
    });
    expect(r.body.timezone).toBe('Europe/Paris');
    expect(r.body.description).toBe(
      'At 12:00 (Europe/Paris); except (Europe/Paris): 2099-12-25; minutes matching "* * * * 0,6" (every minute, on Sunday and Saturday)',
    );
    const days = (r.body.nextFireTimes as number[]).map((t) =>
      new Date(t).toLocaleDateString('en-US', { weekday: 'short', timeZone: 'Europe/Paris' }),
    );
    expect(days).toHaveLength(5);
    expect(days.some((d) => d === 'Sat' || d === 'Sun')).toBe(false);
    // a PATCH of except alone keeps the trigger and replaces the list
    const patched = await t.api('PATCH', '/api/schedules/weekdays-noon', { except: ['2099-01-01'] });
    expect(patched.status).toBe(200);
    expect(patched.body.definition.trigger.except).toEqual(['2099-01-01']);
    expect(patched.body.definition.trigger.trigger.expression).toBe('0 12 * * *');
  });

  it('except: bad entries and an exclusion of everything are 400s naming the field', async () => {
    const cases: [unknown, string, RegExp][] = [
      [['2026-02-30'], 'except[0]', /not a real date/],
      [['2026-12-26..2026-12-24'], 'except[0]', /ends before it starts/],
      [['0 9 * *'], 'except[0]', /cron/],
      [[42], 'except[0]', /must be a date/],
      ['2026-12-25', 'except', /must be an array/],
      [[{ type: 'cron', expression: '0 9 * * *', jitter: 60 }], 'except[0]', /no jitter/],
      [['* * * * *'], 'except', /excludes every occurrence/],
      [['2026-12-25', '2026-12-01..9999-12-31'], 'except[1]', /"2026-12-01\.\.9999-12-31" reaches 9999/],
    ];
    for (const [except, field, reason] of cases) {
      const r = await t.api('POST', '/api/schedules', {
        name: 'bad-except',
        queue: t.queue,
        trigger: { type: 'interval', seconds: 60 },
        except,
      });
      expect(r.status, JSON.stringify(except)).toBe(400);
      expect(r.body.field).toBe(field);
      expect(r.body.error).toMatch(reason);
    }
    expect((await t.api('GET', '/api/schedules/bad-except')).status).toBe(404);
  });
});
