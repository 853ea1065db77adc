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
});
