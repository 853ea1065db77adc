// The dashboard's "why didn't it run?" (API and page) and the agenda (API and the timeline page).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BEARER, startTestDashboard, type TestDashboard } from './harness.js';

describe('dashboard: why and agenda', () => {
  let t: TestDashboard;
  beforeAll(async () => {
    t = await startTestDashboard();
    for (const [name, trigger] of [
      ['tz-report', { type: 'cron', expression: '30 1 * * *', timezone: 'Europe/London' }],
      ['poll', { type: 'interval', seconds: 600 }],
    ] as const) {
      const res = await t.api('POST', '/api/schedules', { name, queue: t.queue, trigger });
      expect(res.status).toBe(201);
    }
  });
  afterAll(async () => {
    await t.cleanup();
  });

  it('GET /api/schedules/:id/why explains the occurrence at or before ?at, with the DST rule of its day', async () => {
    // 2027-03-28 is the spring-forward day in London: 01:30 does not exist and the fixed-time rule shifts it
    const res = await t.api('GET', '/api/schedules/tz-report/why?at=2027-03-28T12:00:00Z');
    expect(res.status).toBe(200);
    expect(res.body.occurrence).toMatchObject({ zone: 'Europe/London', local: '2027-03-28T02:00:00+01:00' });
    expect(res.body.occurrence.dst).toContain('spring-forward');
    expect(res.body.occurrence.dst).toContain('gap: shift');
    expect(res.body.cause).toBe('not-due-yet');
    expect((await t.api('GET', '/api/schedules/nope/why')).status).toBe(404);
    const bad = await t.api('GET', '/api/schedules/poll/why?at=yesterday');
    expect(bad).toMatchObject({ status: 400, body: { field: 'at' } });
    const far = await t.api('GET', '/api/schedules/poll/why?at=99999999999999999999');
    expect(far).toMatchObject({ status: 400, body: { field: 'at' } });
    expect(far.body.error).toContain('out of range');
  });

  it('the schedule page links to its why page, which shows the chain', async () => {
    const page = await fetch(`${t.url}/schedules/tz-report`, { headers: BEARER });
    expect(await page.text()).toContain('/schedules/tz-report/why');
    const why = await fetch(`${t.url}/schedules/tz-report/why?at=2027-03-28T12:00:00Z`, { headers: BEARER });
    expect(why.status).toBe(200);
    const text = await why.text();
    expect(text).toContain('data-why-cause="not-due-yet"');
    expect(text).toContain('data-link="trigger"');
  });

  it('GET /api/agenda and the timeline page: the coming hours per queue', async () => {
    const res = await t.api('GET', `/api/agenda?next=2h&queue=${t.queue}`);
    expect(res.status).toBe(200);
    expect(res.body.perQueue[t.queue]).toBeGreaterThanOrEqual(12);
    const ats: number[] = res.body.entries.map((e: { at: number }) => e.at);
    expect(ats).toEqual([...ats].sort((a, b) => a - b));
    expect((await t.api('GET', '/api/agenda?next=forever')).status).toBe(400);
    const page = await fetch(`${t.url}/agenda?next=6h`, { headers: BEARER });
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain(`data-queue="${t.queue}"`);
    expect((html.match(/class="tl-bar"/g) ?? []).length).toBe(72);
  });

  it('the timeline covers the whole window when the instants outnumber the listed entries (86,400 in 24 h)', async () => {
    const queue = `${t.queue}-dense`;
    const res = await t.api('POST', '/api/schedules', {
      name: 'dense',
      queue,
      trigger: { type: 'interval', seconds: 1 },
    });
    expect(res.status).toBe(201);
    const page = await fetch(`${t.url}/agenda?next=24h&queue=${queue}`, { headers: BEARER });
    const html = await page.text();
    const counts = [...html.matchAll(/class="tl-bar" data-count="(\d+)"/g)].map((m) => Number(m[1]));
    expect(counts).toHaveLength(72);
    // every slice of the 24 h holds its 1,200 instants, the last ones too (the list stops at 20,000)
    expect(counts.every((n) => n >= 1199 && n <= 1201)).toBe(true);
    expect(html).toMatch(/Fire instants \(the first 500 of 8640[01]\)/);
  });
});
