import { describe, expect, it } from 'vitest';
import { unhandledOnQueues, unservedNoteOf } from '../../src/cli/fleet-notes.js';
import type { FleetMember, FleetSnapshot } from '../../src/ops/index.js';

const member = (over: Partial<FleetMember>): FleetMember => ({
  id: `worker:h:1:${Math.random()}`,
  role: 'worker',
  host: 'h',
  pid: 1,
  version: '1',
  queues: [],
  handlers: [],
  startedAt: 0,
  lastBeat: 0,
  heartbeatMs: 5000,
  alive: true,
  ...over,
});

/** A snapshot as FleetReader builds it: `served` from each live worker's per-queue names. */
function snapshot(members: FleetMember[]): FleetSnapshot {
  const served: Record<string, string[]> = {};
  for (const m of members) {
    const handles = m.handles ?? Object.fromEntries(m.queues.map((q) => [q, m.handlers]));
    for (const [q, names] of Object.entries(handles))
      served[q] = [...new Set([...(served[q] ?? []), ...names])];
  }
  return {
    now: 0,
    members,
    replicas: 0,
    workers: members.length,
    served,
    versions: {},
    mixedVersions: false,
  };
}

describe("the CLI's fleet notes read the per-queue job names", () => {
  const worker = member({
    queues: ['emails', 'reports'],
    handlers: ['buildReport', 'sendDigest'],
    handles: { emails: ['sendDigest'], reports: ['buildReport'] },
  });

  it('schedule:add: nothing to say where a worker handles the name on that queue', () => {
    expect(unservedNoteOf(snapshot([worker]), 'emails', 'sendDigest')).toBeUndefined();
  });

  it('schedule:add: a name handled on another queue is pointed out (the worker runs it by name)', () => {
    const note = unservedNoteOf(snapshot([worker]), 'emails', 'buildReport');
    expect(note).toContain('run them by name, but handle "buildReport" on queue "reports"');
  });

  it('schedule:add: no worker for the name at all', () => {
    expect(unservedNoteOf(snapshot([worker]), 'emails', 'cleanup')).toContain(
      'none of the 1 live bullbeat workers handles it',
    );
    expect(unservedNoteOf(snapshot([]), 'emails', 'cleanup')).toContain('no bullbeat worker is alive');
  });

  it('an older member (no per-queue names) counts every handler on every queue, as before', () => {
    const old = member({ queues: ['emails', 'reports'], handlers: ['buildReport', 'sendDigest'] });
    expect(unservedNoteOf(snapshot([old]), 'emails', 'buildReport')).toBeUndefined();
  });

  it('worker --queues: the job names on those queues that nothing handles there', () => {
    const schedules = [
      { queue: 'emails', name: 'sendDigest' },
      { queue: 'emails', name: 'orphan' },
      { queue: 'reports', name: 'buildReport' },
      { queue: 'other', name: 'x' },
    ];
    // this worker handles nothing; the fleet's worker handles two of them where they are
    expect(unhandledOnQueues(['emails', 'reports'], schedules, () => false, snapshot([worker]))).toEqual({
      emails: ['orphan'],
    });
    expect(unhandledOnQueues(['emails'], schedules, (n) => n === 'orphan', undefined)).toEqual({
      emails: ['sendDigest'],
    });
  });
});
