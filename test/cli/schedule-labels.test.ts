import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliTestBed } from './cli-test-bed.js';
import { runBullbeat } from './run-bullbeat.js';

const { prefix, queue, env, redis } = cliTestBed('labels');
const dir = mkdtempSync(join(tmpdir(), 'bb-import-'));

const line = (id: string, tenant: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id,
    name: 'report',
    queue,
    trigger: { type: 'cron', expression: '0 9 * * *' },
    labels: { tenant },
    ...extra,
  });

describe('schedule:import, --selector', () => {
  it('refuses a file with a bad line naming the line and field (exit 2); nothing written', async () => {
    const file = join(dir, 'bad.ndjson');
    writeFileSync(
      file,
      `${line('a', 'acme')}\n\n# a comment\n${line('b', 'acme', { labels: { 'my key': 'x' } })}\n`,
    );
    const run = await runBullbeat(['schedule:import', file], { env });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(`${file} line 4: labels.my key: key "my key"`);
    const notJson = join(dir, 'nojson.ndjson');
    writeFileSync(notJson, `${line('a', 'acme')}\n{nope\n`);
    const bad = await runBullbeat(['schedule:import', notJson], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${notJson} line 2: not JSON`);
    expect(await redis.hlen(`{${prefix}}:bb:schedules`)).toBe(0);
  });

  it('refuses a group of max 0 and a spread longer than the period, naming the line and field (exit 2)', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['max0', { group: { key: 'tenant:acme', max: 0 } }, 'line 2: group.max: '],
      // hourly: the spread may not be longer than an hour
      [
        'spread',
        { trigger: { type: 'cron', expression: '0 * * * *' }, spread: '2h' },
        "line 2: spread: 2h is longer than the trigger's shortest gap between occurrences (1h)",
      ],
    ];
    for (const [name, extra, says] of cases) {
      const file = join(dir, `${name}.ndjson`);
      writeFileSync(file, `${line('a', 'acme')}\n${line('b', 'acme', extra)}\n`);
      const run = await runBullbeat(['schedule:import', file], { env });
      expect(run.code, `${name}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toContain(`${file} ${says}`);
    }
    expect(await redis.hlen(`{${prefix}}:bb:schedules`)).toBe(0);
  });

  it('imports a file as one bulk change; list, pause, resume and remove by --selector', async () => {
    const file = join(dir, 'ok.ndjson');
    const lines = ['a', 'b', 'c', 'd', 'e'].map((id, i) => line(id, i < 2 ? 'acme' : 'globex'));
    writeFileSync(file, `${lines.join('\n')}\n`);
    const run = await runBullbeat(['schedule:import', file], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^imported 5 of 5 schedules \(bulk change \d+-\d+\)\n$/);

    const list = await runBullbeat(['schedule:list', '--selector', 'tenant=acme', '--json'], { env });
    expect(list.code, list.stderr).toBe(0);
    const listed = JSON.parse(list.stdout) as { id: string; labels: Record<string, string> }[];
    expect(listed.map((j) => j.id)).toEqual(['a', 'b']);
    expect(listed[0]?.labels).toEqual({ tenant: 'acme' });

    const pause = await runBullbeat(
      ['schedule:pause', '--selector', 'tenant=acme', '--note', 'offboarding'],
      { env },
    );
    expect(pause.code, pause.stderr).toBe(0);
    expect(pause.stdout).toMatch(/^paused 2 of 2 schedules matching tenant=acme \(bulk change /);
    const paused = await runBullbeat(['schedule:list', '--selector', 'tenant=acme', '--json'], { env });
    expect((JSON.parse(paused.stdout) as { status: string }[]).map((j) => j.status)).toEqual([
      'paused',
      'paused',
    ]);
    const resume = await runBullbeat(['schedule:resume', '--selector', 'tenant=acme', '--json'], { env });
    expect(JSON.parse(resume.stdout)).toMatchObject({ matched: 2, count: 2, failed: [] });
    const remove = await runBullbeat(['schedule:remove', '--selector', 'tenant!=acme'], { env });
    expect(remove.stdout).toMatch(/^removed 3 of 3 schedules matching tenant!=acme/);
    expect((await redis.hkeys(`{${prefix}}:bb:schedules`)).sort()).toEqual(['a', 'b']);
  });

  it('refuses a selector that does not parse, an id with a selector, and neither (exit 2)', async () => {
    const cases: [string[], string][] = [
      [
        ['schedule:pause', '--selector', 'tenant=acme,,'],
        '--selector: "tenant=acme,,": expected a label key at 12',
      ],
      [['schedule:list', '--selector', 'a b'], '--selector'],
      [['schedule:remove', 'a', '--selector', 'tenant=acme'], 'not both'],
      [['schedule:pause'], 'give a schedule id, or --selector'],
      [['agenda', '--selector', '=x'], '--selector'],
    ];
    for (const [args, says] of cases) {
      const run = await runBullbeat(args, { env });
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toContain(says);
    }
    expect((await redis.hkeys(`{${prefix}}:bb:schedules`)).sort()).toEqual(['a', 'b']);
  });

  it('schedule:backfill --selector: a dry run lists per schedule what it would enqueue, then enqueues it', async () => {
    const file = join(dir, 'bf.ndjson');
    const hourly = (id: string, tenant: string) =>
      line(id, tenant, { trigger: { type: 'cron', expression: '0 * * * *' } });
    writeFileSync(file, `${[hourly('h1', 'bf'), hourly('h2', 'bf'), hourly('h3', 'other')].join('\n')}\n`);
    expect((await runBullbeat(['schedule:import', file], { env })).code).toBe(0);
    const range = ['--from', '2026-01-01T00:00:00Z', '--to', '2026-01-01T03:00:00Z'];
    const dry = await runBullbeat(['schedule:backfill', '--selector', 'tenant=bf', ...range, '--dry-run'], {
      env,
    });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('tenant=bf: 2 schedules matched');
    expect(dry.stdout).toContain(
      'h1: 3 to enqueue (2026-01-01T00:00:00.000Z, 2026-01-01T01:00:00.000Z, 2026-01-01T02:00:00.000Z)',
    );
    expect(dry.stdout).toContain('h2: 3 to enqueue');
    expect(dry.stdout).not.toContain('h3');
    expect(dry.stdout).toContain('dry run: 6 occurrences of 2 schedules to enqueue; nothing enqueued');
    expect(await redis.exists(`bull:${queue}:id`)).toBe(0);
    const run = await runBullbeat(['schedule:backfill', '--selector', 'tenant=bf', ...range, '--json'], {
      env,
    });
    expect(run.code, run.stderr).toBe(0);
    const r = JSON.parse(run.stdout) as { enqueued: number; schedules: { scheduleId: string }[] };
    expect(r.enqueued).toBe(6);
    expect(r.schedules.map((s) => s.scheduleId)).toEqual(['h1', 'h2']);
    expect(await redis.zcard(`bull:${queue}:delayed`)).toBe(0);
    expect((await redis.lrange(`bull:${queue}:wait`, 0, -1)).sort()).toEqual(
      ['h1', 'h2'].flatMap((id) => [0, 1, 2].map((h) => `bb-${id}-b${Date.UTC(2026, 0, 1, h)}`)).sort(),
    );
    const bad = await runBullbeat(
      ['schedule:backfill', '--selector', 'tenant=bf', '--from', '2026-01-02', '--to', '2026-01-01'],
      { env },
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--to');
    const both = await runBullbeat(['schedule:backfill', 'h1', '--selector', 'tenant=bf', ...range], { env });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('not both');
  });
});
