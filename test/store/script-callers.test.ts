// The marshaller (StoreScripts) without Redis: each method puts its named arguments in the slots its
// layout names (the layouts are read against the .lua headers by script-layouts.test.ts), and each
// answer decodes to its name.

import { describe, expect, it } from 'vitest';
import { decodeDefinition } from '../../src/store/forms/schedule-definition.js';
import type { ClaimResult } from '../../src/store/forms/schedule-store-types.js';
import { ScheduleScripts } from '../../src/store/scripts/schedule-scripts.js';
import * as L from '../../src/store/scripts/script-layouts.js';
import {
  AUDIT,
  AUDIT_SLOTS,
  B,
  bySlot,
  fakeScriptClient,
  k,
  one,
  scriptCallers,
} from './fake-script-client.js';

describe('the script callers put each named argument in its slot', () => {
  it('upsert-9', async () => {
    const json = '{"name":"s","queue":"q","trigger":{"type":"interval","seconds":1}}';
    const definition = { ...decodeDefinition('s', json).def, source: 'code' as const };
    const c = await one(
      L.UPSERT,
      (s) =>
        s.schedules.upsert(k, {
          definition,
          fingerprint: 'fp',
          next: null,
          now: 5,
          keepCompleted: true,
          ifCreatedAt: 3,
          ...AUDIT,
        }),
      'created',
    );
    expect(c.out).toBe('created');
    expect(c.keys).toMatchObject({ schedules: `${B}:schedules`, claim: `${B}:claim`, audit: `${B}:audit:s` });
    expect(c.argv).toMatchObject({
      id: 's',
      fingerprint: 'fp',
      next: '',
      now: 5,
      source: 'c',
      keepCompleted: 1,
    });
    expect(c.argv).toMatchObject({ createdAt: 3, ...AUDIT_SLOTS });
    // no pauseOnFailure: the schedule keeps no failure streak
    expect(c.keys).toMatchObject({ counts: `${B}:counts:s` });
    expect(c.argv).toMatchObject({ keepsStreak: '' });
    const paused = { ...definition, run: { ...definition.run, pauseOnFailure: 2 } };
    const d = await one(
      L.UPSERT,
      (s) =>
        s.schedules.upsert(k, {
          definition: paused,
          fingerprint: 'fp',
          next: 9,
          now: 5,
          keepCompleted: false,
          ifCreatedAt: 3,
          ...AUDIT,
        }),
      'updated',
    );
    expect(d.argv).toMatchObject({ keepsStreak: 1 });
  });

  it('claim-6: the fleet slots only with a fleet member', async () => {
    const fleet = { replica: 'r1', aheadMs: 10, liveMs: 20, recent: 3, imminentMs: 40 };
    const answer = [100, '', 150, 1, 's', 90, 1, '{}', 'a|0||1|fp|c', 'p', 80, 2, 500];
    const c = await one(
      L.CLAIM,
      (s) => s.schedules.claim(k, { batch: 5, leaseMs: 6, token: 'tk', aheadMs: 8, fleet }),
      answer,
    );
    expect(c.argv).toEqual({
      batch: 5,
      leaseMs: 6,
      token: 'tk',
      aheadMs: 8,
      replica: 'r1',
      horizon: 10,
      longestSleep: 20,
      claimedWithin: 3,
      imminent: 40,
    });
    expect(c.out).toMatchObject({
      now: 100,
      nextDue: null,
      nextLease: 150,
      fleet: { size: 2, aheadMs: 500 },
    });
    expect(c.out).toMatchObject({ claims: [{ id: 's', fireAt: 90, claim: '90|tk', reclaimed: true }] });
    expect((c.out as ClaimResult).claims).toHaveLength(1);
    expect((c.out as ClaimResult).coalescedParked).toEqual([{ id: 'p', fireAt: 80 }]);
    const alone = await one(
      L.CLAIM,
      (s) => s.schedules.claim(k, { batch: 5, leaseMs: 6, token: 'tk', aheadMs: 0 }),
      [1, '', '', 0],
    );
    expect(alone.out).toMatchObject({ claims: [] });
    expect((alone.out as ClaimResult).coalescedParked).toBeUndefined();
    expect(Object.keys(alone.argv)).toEqual(['batch', 'leaseMs', 'token', 'aheadMs']);
  });

  it('renew-claims-2', async () => {
    const c = await one(
      L.RENEW_CLAIMS,
      (s) => s.schedules.renewClaims(k, { ids: ['a', 'b'], token: 'tk', leaseMs: 9 }),
      ['b'],
    );
    expect(c).toMatchObject({ out: ['b'], argv: { leaseMs: 9, token: 'tk' }, rest: ['a', 'b'] });
  });

  it('set-status-6, with its codes by name', async () => {
    const call = (answer: number) =>
      one(
        L.SET_STATUS,
        (s) => s.schedules.setStatus(k, { id: 's', from: 'po', to: 'a', next: 50, op: 'resume', ...AUDIT }),
        answer,
      );
    const c = await call(-2);
    expect(c.argv).toEqual({ id: 's', from: 'po', to: 'a', next: 50, ...AUDIT_SLOTS, op: 'resume' });
    expect(c.out).toBe('claimed');
    expect((await call(1)).out).toBe('done');
    expect((await call(0)).out).toBe('missing');
    expect((await call(-1)).out).toBe('wrongStatus');
    await expect(call(5)).rejects.toThrow(/set-status-6: unexpected answer 5/);
  });

  it('remove-13', async () => {
    const c = await one(L.REMOVE, (s) => s.schedules.remove(k, { id: 's', onlyIf: 'c', ...AUDIT }), 0);
    expect(c.out).toBe(false);
    expect(c.keys).toMatchObject({ runs: `${B}:runs:s`, runidx: `${B}:runidx:s`, counts: `${B}:counts:s` });
    expect(c.argv).toEqual({ id: 's', requiredStatus: 'c', ...AUDIT_SLOTS, trailKept: 99 });
  });

  it('mark-errored-9 and clear-error-6', async () => {
    const error = { reason: 'bad', at: 4, fireAt: null };
    const m = await one(L.MARK_ERRORED, (s) =>
      s.schedules.markErrored(k, { id: 's', claim: '5|t', error, now: 6, ...AUDIT }),
    );
    expect(m.out).toBe(true);
    expect(m.argv).toEqual({
      id: 's',
      claim: '5|t',
      errorJson: JSON.stringify(error),
      now: 6,
      ...AUDIT_SLOTS,
      reason: 'bad',
      occurrence: '',
    });
    const c = await one(
      L.CLEAR_ERROR,
      (s) => s.schedules.clearError(k, { id: 's', next: null, now: 6, ...AUDIT }),
      0,
    );
    expect(c).toMatchObject({ out: false, argv: { id: 's', next: '', now: 6, ...AUDIT_SLOTS } });
  });

  it('merge-run-4 and manual-run-5: the patch counted last', async () => {
    const patch = { outcome: 'running', error: null };
    const m = await one(L.MERGE_RUN, (s) =>
      s.schedules.mergeRun(k, {
        scheduleId: 's',
        field: 'm7',
        fireAt: 7,
        historyLimit: 3,
        counters: ['runs', 'errors'],
        patch,
      }),
    );
    expect(m.argv).toEqual({
      field: 'm7',
      score: 7,
      scheduleId: 's',
      historyLimit: 3,
      counters: 'runs,errors',
      removes: 'error',
      pairs: 1,
    });
    expect(m.rest).toEqual(['outcome', 'running']);
    const r = await one(L.MANUAL_RUN, (s) =>
      s.ledger.manualRun(k, {
        scheduleId: 's',
        field: 'm7',
        fireAt: 7,
        historyLimit: 3,
        jobId: 'j',
        patch,
        ...AUDIT,
      }),
    );
    expect(r.argv).toEqual({
      field: 'm7',
      score: 7,
      scheduleId: 's',
      historyLimit: 3,
      ...AUDIT_SLOTS,
      jobId: 'j',
      pairs: 1,
    });
  });

  it('pause-note-2 and pause-5', async () => {
    const n = await one(L.PAUSE_NOTE, (s) => s.schedules.pauseNote(k, { id: 's', noteJson: '' }), 0);
    expect(n).toMatchObject({ out: false, keys: { notes: `${B}:notes` }, argv: { id: 's', noteJson: '' } });
    const note = { note: 'why', by: 'ann', at: 3 };
    const p = await one(L.PAUSE, (s) => s.schedules.pause(k, { id: 's', note, ...AUDIT }), -1);
    expect(p.out).toBe('wrongStatus');
    expect(p.argv).toEqual({ id: 's', noteJson: JSON.stringify(note), noteText: 'why', ...AUDIT_SLOTS });
  });

  it('backfill-take-11, with its verdicts by name', async () => {
    const override = { id: 'o1', json: '{"names":["data"],"data":2,"by":"ann"}' };
    const take = { overlap: 'allowAll' as const, from: 10, to: 20, overrides: 'data', override };
    const occurrences = [
      { fireAt: 11, withinMs: 1.5 },
      { fireAt: 12, withinMs: 2 },
    ];
    const c = await one(
      L.BACKFILL_TAKE,
      (s) => s.ledger.backfillTake(k, { scheduleId: 's', take, ledgerExpiryMs: 9, occurrences, ...AUDIT }),
      [100, 0, 4],
    );
    expect(c.keys).toMatchObject({
      paused: `${B}:paused:s`,
      owedRuns: `${B}:owed-runs`,
      notes: `${B}:notes`,
      backfillOverrides: `${B}:backfill-overrides:s`,
    });
    expect(c.argv).toEqual({
      id: 's',
      take: 1,
      ledgerExpiry: 9,
      owedMiddle: 'b|allowAll|',
      ...AUDIT_SLOTS,
      from: 10,
      to: 20,
      only: '',
      overrides: 'data',
      overrideId: 'o1',
      override: override.json,
    });
    expect(c.rest).toEqual([11, 2, 12, 2]);
    expect(c.out).toEqual({ now: 100, verdicts: ['run', 'future'] });
    const gone = await one(
      L.BACKFILL_TAKE,
      (s) =>
        s.ledger.backfillTake(k, {
          scheduleId: 's',
          take: undefined,
          ledgerExpiryMs: 9,
          occurrences,
          ...AUDIT,
        }),
      [-1],
    );
    expect(gone.out).toBeNull();
    expect(gone.argv).toMatchObject({
      take: '',
      owedMiddle: 'b|bufferAll|',
      from: '',
      to: '',
      overrides: '',
      overrideId: '',
      override: '',
    });
  });

  it('resume-10', async () => {
    const a = {
      id: 's',
      next: 50,
      policy: 'once' as const,
      ledgerExpiryMs: 9,
      withinMs: 2.5,
      candidates: [10, 20],
    };
    const c = await one(L.RESUME, (s) => s.ledger.resume(k, { ...a, ...AUDIT }), [1, 20, 1]);
    expect(c.argv).toEqual({
      id: 's',
      next: 50,
      policy: 'once',
      ledgerExpiry: 9,
      msAfterNow: 3,
      owedOverlap: 'bufferAll',
      ...AUDIT_SLOTS,
    });
    expect(c.rest).toEqual([10, 20]);
    expect(c.out).toEqual({ code: 'done', runs: [{ fireAt: 20, coalesced: 1 }] });
    expect((await one(L.RESUME, (s) => s.ledger.resume(k, { ...a, ...AUDIT }), [-2])).out).toEqual({
      code: 'claimed',
      runs: [],
    });
  });

  it('owed-done-5 and owed-take-2', async () => {
    const records = [{ owedMember: 'm', field: 'b5', fireAt: 5, patch: { outcome: 'enqueued' } }];
    const d = await one(
      L.OWED_DONE,
      (s) => s.ledger.owedDone(k, { scheduleId: 's', historyLimit: 3, records }),
      -1,
    );
    expect(d).toMatchObject({ out: null, argv: { scheduleId: 's', historyLimit: 3 } });
    expect(d.keys).toMatchObject({ backfillOverrides: `${B}:backfill-overrides:s` });
    expect(d.rest).toEqual(['m', 'b5', 5, 1, 'outcome', 'enqueued']);
    const t = await one(L.OWED_TAKE, (s) => s.ledger.owedTake(k, { leaseMs: 4, max: 2 }), [104, 'm', '{}']);
    expect(t).toMatchObject({
      argv: { lease: 4, most: 2 },
      out: { owedBy: 104, taken: [{ member: 'm', definition: '{}' }] },
    });
  });

  it('leases and groups: renew-lease-1, renew-run-2, try-group-4, leave-group-queue-2', async () => {
    const l = await one(L.RENEW_LEASE, (s) => s.leases.renewLease({ set: 'z', leaseId: 'l', ttlMs: 3 }), 0);
    expect(l).toMatchObject({ out: false, keys: { lease: 'z' }, argv: { leaseId: 'l', ttl: 3 } });
    const r = await one(
      L.RENEW_RUN,
      (s) => s.leases.renewRun(k, { scheduleId: 's', leaseId: 'l', ttlMs: 3 }),
      -1,
    );
    expect(r).toMatchObject({
      out: 'cancelled',
      keys: { lease: `${B}:lease:s`, cancelled: `${B}:cancelled:s` },
    });
    const g = await one(L.TRY_GROUP, (s) => s.leases.tryGroup(k, { group: 'g', leaseId: 'l', ttlMs: 3 }), 0);
    expect(g).toMatchObject({
      out: undefined,
      keys: { groupTicket: `${B}:group:g:ticket` },
      argv: { leaseId: 'l', ttl: 3 },
    });
    const q = await one(L.LEAVE_GROUP_QUEUE, (s) =>
      s.leases.leaveGroupQueue(k, { group: 'g', leaseId: 'l' }),
    );
    expect(q).toMatchObject({ keys: { groupQueue: `${B}:group:g:queue` }, argv: { leaseId: 'l' } });
  });

  it('unstarted-since-n: one key a job, numkeys first; a job not waiting is null', async () => {
    const fake = fakeScriptClient(() => ['1700', '', '1800']);
    const out = await scriptCallers(fake.redis).ledger.unstartedSince(['bull:q:a', 'bull:q:b', 'bull:q:c']);
    expect(out).toEqual([1700, null, 1800]);
    expect(fake.calls).toEqual([
      { command: L.UNSTARTED_SINCE.command, args: [3, 'bull:q:a', 'bull:q:b', 'bull:q:c'] },
    ]);
    const none = fakeScriptClient();
    expect(await scriptCallers(none.redis).ledger.unstartedSince([])).toEqual([]);
    expect(none.calls).toEqual([]); // nothing to look up: no call
  });

  it("BullMQ's keys: unstage-2, finished-jobs-1, handover-scheduler-2", async () => {
    const keysOf = { delayed: 'd', events: 'e', jobBase: 'bull:q:' };
    const u = await one(
      L.UNSTAGE,
      (s) => s.ledger.unstage({ ...keysOf, jobIdPrefix: 'bb-s-', windowMs: 9, fireAt: undefined }),
      ['5'],
    );
    expect(u).toMatchObject({
      out: [5],
      argv: { keyPrefix: 'bull:q:', jobIdPrefix: 'bb-s-', window: 9, fireTime: '' },
    });
    const f = await one(
      L.FINISHED_JOBS,
      (s) =>
        s.ledger.finishedJobs({
          events: 'e',
          jobBase: 'bull:q:',
          after: '1-0',
          count: 7,
          jobIdPrefix: 'bb-',
        }),
      ['1-0', 0],
    );
    expect(f).toMatchObject({
      out: ['1-0', 0],
      keys: { events: 'e' },
      argv: { keyPrefix: 'bull:q:', after: '1-0', count: 7, jobIdPrefix: 'bb-' },
    });
    const h = await one(
      L.HANDOVER_SCHEDULER,
      (s) => s.ledger.handoverScheduler({ repeatKey: 'r', schedulerId: 'x', handoverAt: 4 }),
      2,
    );
    expect(h).toMatchObject({
      out: 'moved-on',
      keys: { repeat: 'r', scheduler: 'r:x' },
      argv: { instant: 4 },
    });
  });

  it('foreign-outcomes-2: the outcomes of one tick in one call per partition', async () => {
    const fake = fakeScriptClient(() => [1, '', 0, '']);
    const write = new ScheduleScripts(fake.redis).foreignOutcomes(k, { historyLimit: 3, perCall: 20 });
    const o = { scheduleId: 's', field: '5', fireAt: 5, jobId: 'j', counters: ['runs'], kind: 'scheduled' };
    const written = await Promise.all([
      write(0, { ...o, patch: { outcome: 'succeeded' } }),
      write(0, { ...o, patch: {} }),
    ]);
    expect(fake.calls).toHaveLength(1);
    const c = bySlot(L.FOREIGN_OUTCOMES, fake.calls[0]!.args);
    expect(c.argv).toEqual({ base: B, historyLimit: 3 });
    expect(c.rest).toEqual([
      's',
      5,
      5,
      'j',
      'runs',
      'scheduled',
      1,
      'outcome',
      'succeeded',
      's',
      5,
      5,
      'j',
      'runs',
      'scheduled',
      0,
    ]);
    expect(written).toEqual([true, false]);
  });
});
