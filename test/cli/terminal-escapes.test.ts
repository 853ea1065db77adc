import { beforeAll, describe, expect, it } from 'vitest';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { IntervalTrigger } from '../../src/triggers/index.js';
import { REDIS_URL } from '../redis-url.js';
import { cliTestBed } from './cli-test-bed.js';
import { runBullbeat } from './run-bullbeat.js';

// Ids, names, notes and errors come from whoever wrote the schedule: the human output of the CLI
// shows their control characters escaped, so a name cannot clear the screen, ring the bell, set the
// terminal's title, return the carriage over a line or start a line of its own.

const { prefix, queue, env } = cliTestBed('esc');
const ID = 'evil\x1b[2J\x1b]0;pwned\x07id';
const NAME = 'name\rOVERWRITTEN\nFORGED-LINE\x9b31m';
const NOTE = 'note\x1b[31mred\x07\rback\nFORGED-NOTE';
/** Control characters that must never reach a terminal from a value: C0 but newline, DEL, C1. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: that is what this looks for
const RAW = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/;

beforeAll(async () => {
  const m = new SchedulerManager({ prefix, role: 'client', connection: REDIS_URL, defaultQueue: queue });
  await m.schedule({ name: NAME, queue }, new IntervalTrigger(3600), { id: ID }).saved;
  await m.schedule({ name: 'plain', queue }, new IntervalTrigger(3600), { id: 'plain' }).saved;
  await m.schedule({ name: NAME, queue }, new IntervalTrigger(3600), { id: `${ID}-active` }).saved;
  await m.pause(ID, { note: NOTE, by: 'tester' });
  await m.close();
});

/** Every line of a run's output, checked: no raw control character, and no line made by a value. */
function expectEscaped(text: string, where: string): void {
  expect(RAW.test(text), `${where}: ${JSON.stringify(text)}`).toBe(false);
  for (const line of text.split('\n')) {
    expect(/^(OVERWRITTEN|FORGED)/.test(line), `${where}: ${JSON.stringify(line)}`).toBe(false);
  }
}

describe('control characters in the human output of the CLI', () => {
  it.each([
    [['schedule:list']],
    [['schedule:show', ID]],
    [['agenda', '--next', '2h']],
    [['schedule:why', ID]],
    [['schedule:pause', 'plain', '--note', NOTE]],
    [['schedule:resume', ID]],
    [['schedule:show', `${ID}-missing`]],
    [['schedule:add', '--name', NAME, '--id', ID, '--every', '60', '--queue', queue]],
  ])('%j: escaped, on stdout and stderr', async (args) => {
    const run = await runBullbeat(args, { env });
    expect(run.code, run.stderr).not.toBe(1);
    expectEscaped(run.stdout, 'stdout');
    expectEscaped(run.stderr, 'stderr');
    expect(`${run.stdout}${run.stderr}`).toMatch(/\\x1b|\\r|\\n/);
  });

  it('schedule:list shows the escapes in place of the characters', async () => {
    const run = await runBullbeat(['schedule:list'], { env });
    expect(run.stdout).toContain('evil\\x1b[2J\\x1b]0;pwned\\x07id');
    expect(run.stdout).toContain('name\\rOVERWRITTEN\\nFORGED-LINE\\x9b31m');
    expect(run.stdout).toContain('note\\x1b[31mred\\x07\\rback\\nFORGED-NOTE');
  });

  it('--json keeps the values as they are (JSON escapes them)', async () => {
    const run = await runBullbeat(['schedule:show', ID, '--json'], { env });
    expect(run.code).toBe(0);
    const shown = JSON.parse(run.stdout) as { id: string; name: string };
    expect(shown).toMatchObject({ id: ID, name: NAME });
  });
});
