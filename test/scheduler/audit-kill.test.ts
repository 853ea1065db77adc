// No change without its audit entry, no entry without its change: a process changing a schedule is
// SIGKILLed at a random hook before or after a change's script (and a few ms into it), again and again;
// after each kill the stored schedule and its trail agree.
import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/store/forms/audit-entry.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { childFixture } from '../setup/child-fixtures.js';
import { REDIS_URL, testEnv } from './helpers.js';

const CHANGER = childFixture('test/scheduler/fixtures/audit-changer.ts');
const ROUNDS = 8;

let env: ReturnType<typeof testEnv>;
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  await env.cleanup();
});

/** Run the changer and SIGKILL it at its `killAt`-th hook line, `delayMs` after it (0: at once). */
function runAndKill(
  vars: Record<string, string>,
  killAt: number,
  delayMs: number,
): Promise<{ lines: string[]; signal: string | null }> {
  const child = spawn(process.execPath, [CHANGER], {
    env: { ...process.env, REDIS_URL, ...vars },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const lines: string[] = [];
  let buffer = '';
  child.stdout?.on('data', (d) => {
    buffer += String(d);
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    for (const line of parts) {
      lines.push(line);
      if (lines.length === killAt) {
        if (delayMs === 0) child.kill('SIGKILL');
        else setTimeout(() => child.kill('SIGKILL'), delayMs);
      }
    }
  });
  return new Promise((resolve) => child.on('exit', (_code, signal) => resolve({ lines, signal })));
}

describe('audit trail: a change and its entry are one script', () => {
  it(`survives ${ROUNDS} SIGKILLs at hooks around the change scripts with the schedule and its trail agreeing`, {
    timeout: 240_000,
  }, async () => {
    env = testEnv('audit-kill');
    const m = env.manager({ role: 'client', auditLimit: 10_000 });
    await m.schedule({ name: 'k' }, new IntervalTrigger(3600), { id: 'k', data: { n: 0 } }).saved;
    let hooks = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // kill at a before- or an after-hook line (odd and even), at once or a few ms into the call
      const killAt = 3 + round * 2 + (round % 2);
      const { lines, signal } = await runAndKill(
        { PREFIX: env.prefix, QUEUE: env.queue, ID: 'k' },
        killAt,
        round % 3,
      );
      expect(signal).toBe('SIGKILL');
      hooks += lines.length;

      const job = await m.get('k');
      const nOf = (data: unknown) => Number((data as { n?: number } | undefined)?.n);
      const stored = nOf(job?.def.data);
      const trail = (await m.auditTrail('k', { limit: 10_000 })).reverse(); // oldest first
      const updates = trail.filter((e) => e.op === 'update');
      // every update that changed the definition has its entry, in order, once; none without its change
      expect(updates.map((e) => nOf(e.definition?.data))).toEqual(
        Array.from({ length: stored }, (_, i) => i + 1),
      );
      for (const u of updates) expect(u.changes?.map((c) => c.field)).toEqual(['data']);
      // the status is what the newest pause or resume entry says
      const controls = trail.filter((e): e is AuditEntry => e.op === 'pause' || e.op === 'resume');
      const last = controls.at(-1);
      expect(job?.status).toBe(last?.op === 'pause' ? 'paused' : 'active');
      // pauses and resumes alternate (a pause entry only with its pause, a resume only with its resume)
      expect(controls.map((e) => e.op)).toEqual(controls.map((_, i) => (i % 2 === 0 ? 'pause' : 'resume')));
      // a pause's note and entry agree
      if (job?.status === 'paused') expect(job.pauseNote?.note).toBe(last?.note);
      // the last hook line seen: an `after` line's change is in the trail
      const lastAfter = [...lines].reverse().find((l) => l.startsWith('after '));
      if (lastAfter?.startsWith('after update ')) {
        expect(stored).toBeGreaterThanOrEqual(Number(lastAfter.split(' ')[2]));
      }
    }
    expect(hooks).toBeGreaterThan(ROUNDS * 3);
  });
});
