import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard } from '../../dashboard/index.js';
import { ConfigError } from '../../src/errors/index.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { BASIC, BEARER, quietLogger, startTestDashboard, type TestDashboard } from './harness.js';

const cron = (expression: string, timezone = 'UTC') => ({ type: 'cron', expression, timezone });

describe('dashboard API over HTTP', () => {
  let t: TestDashboard;
  beforeAll(async () => {
    t = await startTestDashboard();
  });
  afterAll(async () => {
    await t.cleanup();
  });

  it('creates, lists, gets, updates, pauses, resumes, triggers and deletes', async () => {
    const created = await t.api('POST', '/api/schedules', {
      name: 'nightly-report',
      queue: t.queue,
      trigger: cron('0 9 * * 1-5', 'America/New_York'),
      data: { report: 'daily' },
      attempts: 3,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: 'nightly-report',
      name: 'nightly-report',
      queue: t.queue,
      status: 'active',
      source: 'runtime',
      description: 'At 09:00, Monday through Friday (America/New_York)',
      timezone: 'America/New_York',
    });
    expect(created.body.nextFireTimes).toHaveLength(5);
    const times: number[] = created.body.nextFireTimes;
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(created.body.definition.attempts).toBe(3);

    await t.api('POST', '/api/schedules', {
      name: 'every-minute',
      queue: t.queue,
      trigger: { type: 'interval', seconds: 60 },
    });
    const list = await t.api('GET', '/api/schedules');
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(2);
    expect(list.body.items.map((s: { id: string }) => s.id)).toEqual(['every-minute', 'nightly-report']);

    const one = await t.api('GET', '/api/schedules/nightly-report');
    expect(one.status).toBe(200);
    expect(one.body.definition.data).toEqual({ report: 'daily' });

    const updated = await t.api('PATCH', '/api/schedules/nightly-report', {
      trigger: cron('30 7 * * *', 'Europe/Paris'),
      maxInstances: 2,
    });
    expect(updated.status).toBe(200);
    expect(updated.body.description).toBe('At 07:30 (Europe/Paris)');
    expect(updated.body.definition.run.maxInstances).toBe(2);
    expect(updated.body.definition.attempts).toBe(3); // kept

    const paused = await t.api('POST', '/api/schedules/nightly-report/pause');
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ changed: true, schedule: { status: 'paused', nextFireTimes: [] } });
    expect((await t.api('POST', '/api/schedules/nightly-report/pause')).body.changed).toBe(false);
    const resumed = await t.api('POST', '/api/schedules/nightly-report/resume');
    expect(resumed.body).toMatchObject({ changed: true, schedule: { status: 'active' } });

    const fired = await t.api('POST', '/api/schedules/nightly-report/trigger');
    expect(fired.status).toBe(202);
    expect(fired.body.jobId).toMatch(/^bb-nightly-report-m\d+$/);
    const runs = await t.api('GET', '/api/schedules/nightly-report/runs');
    expect(runs.status).toBe(200);
    expect(runs.body.items[0]).toMatchObject({
      kind: 'manual',
      outcome: 'enqueued',
      jobId: fired.body.jobId,
    });
    const job = await internalsOf(t.scheduler).queue(t.queue).getJob(fired.body.jobId);
    expect(job?.name).toBe('nightly-report');

    const stats = await t.api('GET', '/api/stats');
    expect(stats.body).toMatchObject({ jobsTotal: 2, jobsActive: 2, jobsPaused: 0, runs: 0, errors: 0 });
    expect(stats.body.uptime).toBeNull(); // no scheduler runs in this dashboard's process

    const removed = await t.api('DELETE', '/api/schedules/every-minute');
    expect(removed).toEqual({ status: 200, body: { id: 'every-minute', removed: true } });
    expect((await t.api('GET', '/api/schedules')).body.total).toBe(1);
    await t.api('DELETE', '/api/schedules/nightly-report');
  });

  it('pages, searches and filters on the server', async () => {
    for (let i = 0; i < 12; i++) {
      const r = await t.api('POST', '/api/schedules', {
        name: `page-${String(i).padStart(2, '0')}${i % 3 === 0 ? '-invoice' : ''}`,
        queue: t.queue,
        trigger: { type: 'interval', seconds: 60 + i },
      });
      expect(r.status).toBe(201);
    }
    await t.api('POST', '/api/schedules/page-01/pause');
    const first = await t.api('GET', '/api/schedules?limit=5');
    expect(first.body).toMatchObject({ total: 12, offset: 0, limit: 5 });
    expect(first.body.items.map((s: { name: string }) => s.name)).toEqual([
      'page-00-invoice',
      'page-01',
      'page-02',
      'page-03-invoice',
      'page-04',
    ]);
    const third = await t.api('GET', '/api/schedules?limit=5&offset=10');
    expect(third.body.items).toHaveLength(2);
    const search = await t.api('GET', '/api/schedules?q=INVOICE');
    expect(search.body.total).toBe(4);
    const paused = await t.api('GET', '/api/schedules?status=paused');
    expect(paused.body.items.map((s: { id: string }) => s.id)).toEqual(['page-01']);
    const byQueue = await t.api('GET', `/api/schedules?queue=${t.queue}&limit=1`);
    expect(byQueue.body.total).toBe(12);
    for (let i = 0; i < 12; i++) {
      const id = `page-${String(i).padStart(2, '0')}${i % 3 === 0 ? '-invoice' : ''}`;
      expect((await t.api('DELETE', `/api/schedules/${id}`)).status).toBe(200);
    }
  });

  it('previews cron, interval and date triggers', async () => {
    const p = await t.api(
      'GET',
      `/api/preview?cron=${encodeURIComponent('0 9 * * 1-5')}&tz=America/New_York&n=5`,
    );
    expect(p.status).toBe(200);
    expect(p.body.description).toBe('At 09:00, Monday through Friday (America/New_York)');
    expect(p.body.next).toHaveLength(5);
    for (const at of p.body.next as number[]) {
      const local = new Intl.DateTimeFormat('en-US', {
        timeZone: 'America/New_York',
        hour: '2-digit',
        minute: '2-digit',
        weekday: 'short',
        hourCycle: 'h23',
      }).format(at);
      expect(local).toMatch(/^(Mon|Tue|Wed|Thu|Fri) 09:00$/);
    }
    const i = await t.api('GET', '/api/preview?interval=90&n=3');
    expect(i.body.description).toBe('Every 1 minute 30 seconds');
    expect(i.body.next[1] - i.body.next[0]).toBe(90_000);
    const d = await t.api('GET', '/api/preview?date=2099-01-02T03:04:05&tz=Asia/Tokyo');
    expect(d.body.next).toEqual([Date.UTC(2099, 0, 1, 18, 4, 5)]);
    const past = await t.api('GET', '/api/preview?date=2000-01-01T00:00:00');
    expect(past.body.next).toEqual([]);
  });

  it('answers 400 naming the field on bad input', async () => {
    const cases: [string, string, unknown, string][] = [
      ['POST', '/api/schedules', { trigger: { type: 'interval', seconds: 5 } }, 'name'],
      ['POST', '/api/schedules', { name: 'x', trigger: cron('0 0 32 * *') }, 'trigger.expression'],
      [
        'POST',
        '/api/schedules',
        { name: 'x', trigger: cron('0 0 * * *', 'Mars/Olympus') },
        'trigger.timezone',
      ],
      [
        'POST',
        '/api/schedules',
        { name: 'x', trigger: { type: 'interval', seconds: -1 } },
        'trigger.seconds',
      ],
      ['POST', '/api/schedules', { name: 'x', trigger: { type: 'custom' } }, 'trigger.type'],
      ['POST', '/api/schedules', { name: 'x', trigger: { type: 'date', at: 'tomorrow-ish' } }, 'trigger.at'],
      [
        'POST',
        '/api/schedules',
        { name: 'x', trigger: { type: 'interval', seconds: 5 }, maxInstances: -1 },
        'maxInstances',
      ],
      [
        'POST',
        '/api/schedules',
        { name: 'x', trigger: { type: 'interval', seconds: 5 }, queue: 'a:b' },
        'queue',
      ],
      [
        'POST',
        '/api/schedules',
        { name: 'x', trigger: { type: 'interval', seconds: 5 }, misfire: 'never' },
        'misfire',
      ],
      [
        'POST',
        '/api/schedules',
        { name: 'x', trigger: { type: 'interval', seconds: 5 }, colour: 'red' },
        'colour',
      ],
      ['POST', '/api/schedules', '{"name": "x", ', '(body)'],
      ['GET', '/api/schedules?limit=100000', undefined, 'limit'],
      ['GET', '/api/schedules?status=sleeping', undefined, 'status'],
      ['GET', '/api/preview?cron=61+*+*+*+*', undefined, 'cron'],
      ['GET', '/api/preview?cron=*+*+*+*+*&tz=Nowhere/Else', undefined, 'tz'],
      ['GET', '/api/preview', undefined, 'cron'],
    ];
    for (const [method, path, body, field] of cases) {
      const r = await t.api(method, path, body);
      expect(r.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expect(r.body.field, JSON.stringify(r.body)).toBe(field);
      expect(r.body.error).toContain(field === '(body)' ? '' : field.split('.').pop());
    }
    await t.api('POST', '/api/schedules', {
      name: 'patch-me',
      queue: t.queue,
      trigger: { type: 'interval', seconds: 5 },
    });
    const bad = await t.api('PATCH', '/api/schedules/patch-me', {
      trigger: { type: 'interval', seconds: 0 },
    });
    expect(bad).toMatchObject({ status: 400, body: { field: 'trigger.seconds' } });
    const renamed = await t.api('PATCH', '/api/schedules/patch-me', { id: 'other' });
    expect(renamed).toMatchObject({ status: 400, body: { field: 'id' } });
    await t.api('DELETE', '/api/schedules/patch-me');
  });

  it('flags late schedules and schedules that keep failing', async () => {
    await t.api('POST', '/api/schedules', {
      name: 'flaky',
      queue: t.queue,
      trigger: { type: 'interval', seconds: 60 },
    });
    await t.api('POST', '/api/schedules', {
      name: 'stuck',
      queue: t.queue,
      trigger: { type: 'interval', seconds: 60 },
    });
    const now = Date.now();
    for (let k = 3; k >= 1; k--) {
      const fireAt = now - k * 60_000;
      await internalsOf(t.scheduler).history.merge(
        'flaky',
        fireAt,
        false,
        { kind: 'scheduled', outcome: 'failed', error: 'boom' },
        ['runs', 'errors'],
      );
    }
    // its due time long past the misfire grace (60 s): no scheduler has fired it
    await internalsOf(t.scheduler).redis.zadd(internalsOf(t.scheduler).keys.due, now - 10 * 60_000, 'stuck');
    const flaky = await t.api('GET', '/api/schedules/flaky');
    expect(flaky.body).toMatchObject({ badges: ['failing'], lastOutcome: 'failed', lastError: 'boom' });
    expect(flaky.body.counts).toEqual({ runs: 3, errors: 3, skipped: 0, missed: 0, coalesced: 0 });
    expect((await t.api('GET', '/api/schedules/stuck')).body.badges).toEqual(['late']);
    const page = await (await fetch(`${t.url}/?q=flaky`, { headers: BEARER })).text();
    expect(page).toContain('data-badge="failing"');
    await t.api('DELETE', '/api/schedules/flaky');
    await t.api('DELETE', '/api/schedules/stuck');
  });

  it('answers 404 for unknown ids and routes', async () => {
    for (const [method, path] of [
      ['GET', '/api/schedules/nope'],
      ['GET', '/api/schedules/nope/runs'],
      ['PATCH', '/api/schedules/nope'],
      ['POST', '/api/schedules/nope/pause'],
      ['POST', '/api/schedules/nope/resume'],
      ['POST', '/api/schedules/nope/trigger'],
      ['DELETE', '/api/schedules/nope'],
      ['GET', '/api/nothing-here'],
    ] as const) {
      const r = await t.api(method, path, method === 'PATCH' ? { maxInstances: 1 } : undefined);
      expect(r.status, `${method} ${path}`).toBe(404);
    }
    const page = await fetch(`${t.url}/schedules/nope`, { headers: BEARER });
    expect(page.status).toBe(404);
  });

  it('refuses missing or wrong credentials with 401, and keeps /healthz and /readyz open', async () => {
    const wrongBasic = `Basic ${Buffer.from('admin:wrong').toString('base64')}`;
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer nope' },
      { authorization: wrongBasic },
      { authorization: 'Token x' },
    ];
    for (const headers of attempts) {
      for (const [method, path] of [
        ['GET', '/api/schedules'],
        ['POST', '/api/schedules'],
        ['GET', '/api/stats'],
        ['GET', '/metrics'],
        ['GET', '/admin/queues/api/queues'],
      ] as const) {
        const r = await t.api(method, path, undefined, headers);
        expect(r.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(401);
      }
    }
    const challenge = await fetch(`${t.url}/api/schedules`);
    expect(challenge.headers.get('www-authenticate')).toContain('Basic');
    expect((await t.api('GET', '/api/schedules', undefined, BASIC)).status).toBe(200);
    expect((await t.api('GET', '/healthz', undefined, {})).body).toEqual({ status: 'ok' });
    expect((await t.api('GET', '/readyz', undefined, {})).body).toMatchObject({
      status: 'ready',
      redis: 'PONG',
    });
  });

  it('protects browser writes against CSRF; bearer requests are exempt', async () => {
    await t.api('POST', '/api/schedules', {
      name: 'csrf-target',
      queue: t.queue,
      trigger: { type: 'interval', seconds: 60 },
    });
    // basic auth (what a browser replays by itself) without the token: refused
    const noToken = await t.api('POST', '/api/schedules/csrf-target/pause', undefined, BASIC);
    expect(noToken.status).toBe(403);
    // a page hands out the token in a cookie and a meta tag; sending both back works
    const page = await fetch(`${t.url}/`, { headers: BASIC });
    const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0]!;
    const meta = /<meta name="csrf-token" content="([^"]+)">/.exec(await page.text())?.[1];
    expect(meta).toBeDefined();
    expect(cookie).toBe(`bb_csrf=${encodeURIComponent(meta!)}`);
    const ok = await t.api('POST', '/api/schedules/csrf-target/pause', undefined, {
      ...BASIC,
      cookie,
      'x-csrf-token': meta!,
    });
    expect(ok.status).toBe(200);
    // a forged token (right shape, wrong signature) and a cross-origin request are refused
    const forged = 'c-AAAA.BBBB';
    const r1 = await t.api('POST', '/api/schedules/csrf-target/resume', undefined, {
      ...BASIC,
      cookie: `bb_csrf=${forged}`,
      'x-csrf-token': forged,
    });
    expect(r1.status).toBe(403);
    const r2 = await t.api('POST', '/api/schedules/csrf-target/resume', undefined, {
      ...BASIC,
      cookie,
      'x-csrf-token': meta!,
      origin: 'https://evil.example',
    });
    expect(r2.status).toBe(403);
    // the HTML form route needs it too
    const form = await fetch(`${t.url}/schedules/csrf-target/resume`, {
      method: 'POST',
      headers: { ...BASIC, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'back=/',
      redirect: 'manual',
    });
    expect(form.status).toBe(403);
    const formOk = await fetch(`${t.url}/schedules/csrf-target/resume`, {
      method: 'POST',
      headers: { ...BASIC, cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: `back=%2F&_csrf=${encodeURIComponent(meta!)}`,
      redirect: 'manual',
    });
    expect(formOk.status).toBe(303);
    expect(formOk.headers.get('location')).toBe('/?done=resume&name=csrf-target');
    expect((await t.api('GET', '/api/schedules/csrf-target')).body.status).toBe('active');
    // Bull Board's writes must come from this origin
    const board = await t.api('PUT', `/admin/queues/api/queues/${t.queue}/pause`, undefined, {
      ...BASIC,
      origin: 'https://evil.example',
    });
    expect(board.status).toBe(403);
    await t.api('DELETE', '/api/schedules/csrf-target');
  });

  it('serves Bull Board for the schedules’ queues and picks up new ones', async () => {
    const queue2 = `${t.queue}-late`;
    const before = await t.api('GET', '/admin/queues/api/queues');
    expect(before.status).toBe(200);
    expect(before.body.queues.map((q: { name: string }) => q.name)).not.toContain(queue2);
    await t.api('POST', '/api/schedules', {
      name: 'late-queue',
      queue: queue2,
      trigger: { type: 'interval', seconds: 60 },
    });
    const after = await t.api('GET', '/admin/queues/api/queues');
    expect(after.body.queues.map((q: { name: string }) => q.name)).toContain(queue2);
    const html = await fetch(`${t.url}/admin/queues`, { headers: BEARER });
    expect(html.status).toBe(200);
    const text = await html.text();
    expect(text).toContain('<base href="/admin/queues/" />');
    expect(text).not.toContain('fonts.googleapis.com');
    await t.api('DELETE', '/api/schedules/late-queue');
  });

  it('exposes Prometheus metrics from its own registry, with bounded labels', async () => {
    const manualFires = async () => {
      const text = await (await fetch(`${t.url}/metrics`, { headers: BEARER })).text();
      return Number(/bullbeat_fires_total\{kind="manual"\} (\d+)/.exec(text)?.[1] ?? 0);
    };
    await t.api('POST', '/api/schedules', {
      name: 'metered',
      queue: t.queue,
      trigger: { type: 'interval', seconds: 60 },
    });
    const before = await manualFires();
    await t.api('POST', '/api/schedules/metered/trigger');
    expect(await manualFires()).toBe(before + 1);
    const r = await fetch(`${t.url}/metrics`, { headers: BEARER });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/plain');
    const text = await r.text();
    const active = (await t.api('GET', '/api/schedules?status=active&limit=1')).body.total;
    expect(active).toBeGreaterThan(0);
    expect(text).toContain(`bullbeat_schedules{status="active"} ${active}`);
    expect(text).toContain('# TYPE bullbeat_fire_lateness_seconds histogram');
    expect(text).toContain('# TYPE bullbeat_run_duration_seconds histogram');
    const stats = (await t.api('GET', '/api/stats')).body;
    expect(text).toContain(`bullbeat_runs_recorded{outcome="failed"} ${stats.errors}`);
    expect(text).toContain(`bullbeat_runs_recorded{outcome="succeeded"} ${stats.runs - stats.errors}`);
    expect(text).not.toContain('metered'); // no schedule-id labels
    expect(text).not.toContain('process_cpu'); // not prom-client's global default metrics
    await t.api('DELETE', '/api/schedules/metered');
  });
});

describe('dashboard settings', () => {
  it('answers 405 to every write in read-only mode', async () => {
    const t = await startTestDashboard({ readOnly: true });
    try {
      await t.scheduler
        .schedule({ name: 'ro', queue: t.queue }, { nextFire: () => null } as never)
        .saved.catch(() => undefined);
      for (const [method, path] of [
        ['POST', '/api/schedules'],
        ['PATCH', '/api/schedules/ro'],
        ['POST', '/api/schedules/ro/pause'],
        ['POST', '/api/schedules/ro/resume'],
        ['POST', '/api/schedules/ro/trigger'],
        ['DELETE', '/api/schedules/ro'],
        ['POST', '/schedules/ro/pause'],
        ['PUT', `/admin/queues/api/queues/${t.queue}/pause`],
      ] as const) {
        const r = await t.api(method, path, {});
        expect(r.status, `${method} ${path}`).toBe(405);
      }
      expect((await t.api('GET', '/api/schedules')).status).toBe(200);
      const page = await (await fetch(`${t.url}/`, { headers: BEARER })).text();
      expect(page).not.toContain('data-action="pause"');
    } finally {
      await t.cleanup();
    }
  });

  it('serves /metrics without credentials when metricsAuth is false', async () => {
    const t = await startTestDashboard({ metricsAuth: false });
    try {
      expect((await fetch(`${t.url}/metrics`)).status).toBe(200);
      expect((await fetch(`${t.url}/api/stats`)).status).toBe(401);
    } finally {
      await t.cleanup();
    }
  });

  it('signs a browser in with the token when only a token is configured', async () => {
    const t = await startTestDashboard({ user: '', password: '' });
    try {
      const first = await fetch(`${t.url}/`, { headers: { accept: 'text/html' }, redirect: 'manual' });
      expect(first.status).toBe(303);
      expect(first.headers.get('location')).toBe('/login?next=%2F');
      const wrong = await fetch(`${t.url}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'token=nope&next=%2F',
        redirect: 'manual',
      });
      expect(wrong.headers.get('location')).toContain('failed=1');
      expect(wrong.headers.get('set-cookie')).toBeNull();
      const right = await fetch(`${t.url}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'token=test-token-0123456789&next=%2F',
        redirect: 'manual',
      });
      expect(right.status).toBe(303);
      const session = (right.headers.get('set-cookie') ?? '').split(';')[0]!;
      expect(session).toMatch(/^bb_session=/);
      expect((await fetch(`${t.url}/api/stats`, { headers: { cookie: session } })).status).toBe(200);
      const tampered = session.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
      expect((await fetch(`${t.url}/api/stats`, { headers: { cookie: tampered } })).status).toBe(401);
    } finally {
      await t.cleanup();
    }
  });

  it('refuses to start without credentials unless open, and open binds 127.0.0.1 only', async () => {
    const scheduler = new SchedulerManager({
      prefix: `bbdash-open-${Date.now()}`,
      role: 'client',
      logger: quietLogger(),
    });
    try {
      await expect(startDashboard({ scheduler, port: 0, env: {} })).rejects.toThrow(ConfigError);
      await expect(
        startDashboard({ scheduler, port: 0, env: { BULLBEAT_DASHBOARD_USER: 'a' } }),
      ).rejects.toThrow(/BULLBEAT_DASHBOARD_PASSWORD/);
      const open = await startDashboard({
        scheduler,
        port: 0,
        host: '0.0.0.0',
        env: { BULLBEAT_DASHBOARD_OPEN: '1' },
      });
      try {
        expect(open.host).toBe('127.0.0.1');
        expect(open.server.address()).toMatchObject({ address: '127.0.0.1' });
        expect((await fetch(`${open.url}/api/stats`)).status).toBe(200);
      } finally {
        await open.close();
      }
      const fromEnv = await startDashboard({
        scheduler,
        port: 0,
        env: { BULLBEAT_DASHBOARD_TOKEN: 'envtoken' },
      });
      try {
        expect((await fetch(`${fromEnv.url}/api/stats`)).status).toBe(401);
        const ok = await fetch(`${fromEnv.url}/api/stats`, { headers: { authorization: 'Bearer envtoken' } });
        expect(ok.status).toBe(200);
      } finally {
        await fromEnv.close();
      }
    } finally {
      await scheduler.close();
    }
  });
});
