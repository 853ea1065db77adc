// The marshaller's run path (RunPathScripts) without Redis: complete-n, and start-runs-1 and
// finish-runs-5 batched per partition; each argument in its slot, each answer decoded by name.
import { describe, expect, it } from 'vitest';
import { RunPathScripts, sharedPairs } from '../../src/store/scripts/run-path-scripts.js';
import * as L from '../../src/store/scripts/script-layouts.js';
import { B, bySlot, fakeScriptClient, k, one } from './fake-script-client.js';

describe('RunPathScripts: the run path', () => {
  it('complete-n: numkeys, each item its own keys, then its values', async () => {
    const claim = { id: 's', fireAt: 5, claim: '5|tk', reclaimed: false, defJSON: '', state: null };
    const records = [
      { fireAt: 4, field: '4', patch: { outcome: 'missed' as const }, counter: 'missed' as const },
    ];
    const completion = { claim, next: null, records, missedUncounted: 2, coalesced: 1 };
    const c = await one(
      L.COMPLETE,
      (s) => s.runPath.complete(k, { completions: [completion], now: 9, token: 'tk', historyLimit: 3 }),
      [1, 'gone'],
    );
    expect(c.out).toEqual({ completed: 1, lost: ['gone'] });
    expect(c.keys).toMatchObject({ due: `${B}:due`, totals: `${B}:totals` });
    expect(c.argv).toEqual({ historyLimit: 3, now: 9, token: 'tk', shared: 0 }); // one record: nothing shared
    expect(c.rest).toEqual(['s', 5, -1, 2, 1, 5, 0, 1, 4, 4, 'missed', 1, 'outcome', 'missed']);
    const fake = fakeScriptClient(() => [0]);
    await new RunPathScripts(fake.redis).complete(k, {
      completions: [completion],
      now: 9,
      token: 'tk',
      historyLimit: 3,
    });
    expect(fake.calls[0]!.args.slice(0, 1)).toEqual([10]);
    expect(fake.calls[0]!.args.slice(8, 11)).toEqual([`${B}:runs:s`, `${B}:runidx:s`, `${B}:counts:s`]);
  });

  it("complete-n: what the call's enqueued records carry alike is sent once (shared), the rest per item", async () => {
    const claimOf = (id: string) => ({
      id,
      fireAt: 5,
      claim: '5|tk',
      reclaimed: false,
      defJSON: '',
      state: null,
    });
    const enqueued = (jobId: string, queue: string) => ({
      kind: 'scheduled' as const,
      queue,
      jobId,
      enqueuedAt: 7,
      replica: 'h:1',
      claimedAt: 3,
    });
    const completions = [
      { claim: claimOf('a'), next: 6, records: [], missedUncounted: 0, enqueued: enqueued('ja', 'q') },
      { claim: claimOf('b'), next: null, records: [], missedUncounted: 0 }, // not enqueued: no record
      { claim: claimOf('c'), next: 6, records: [], missedUncounted: 0, enqueued: enqueued('jc', 'other') },
    ];
    const fake = fakeScriptClient(() => [3]);
    await new RunPathScripts(fake.redis).complete(k, { completions, now: 9, token: 'tk', historyLimit: 3 });
    const c = bySlot(L.COMPLETE, fake.calls[0]!.args);
    expect(c.argv).toMatchObject({ historyLimit: 3, now: 9, token: 'tk', shared: 5 });
    expect(c.rest.slice(0, 8)).toEqual([
      'outcome',
      'enqueued',
      'kind',
      'scheduled',
      'enqueuedAt',
      7,
      'replica',
      'h:1',
    ]);
    expect(c.rest.slice(8, 10)).toEqual(['claimedAt', 3]);
    // each item: id, fireAt, next, missed, coalesced, ran, its own enqueued pairs (counted), its records
    expect(c.rest.slice(10)).toEqual([
      ...['a', 5, 6, 0, 0, 5, 2, 'queue', 'q', 'jobId', 'ja', 0],
      ...['b', 5, -1, 0, 0, 5, 0, 0],
      ...['c', 5, 6, 0, 0, 5, 2, 'queue', 'other', 'jobId', 'jc', 0],
    ]);
    expect(sharedPairs([['x', '1'], [], ['x', '1', 'y', '2']])).toEqual({
      shared: ['x', '1'],
      own: [[], [], ['y', '2']],
    });
    expect(
      sharedPairs([
        ['x', '1'],
        ['x', '2'],
      ]),
    ).toEqual({
      shared: [],
      own: [
        ['x', '1'],
        ['x', '2'],
      ],
    });
  });

  it('start-runs-1: the runs of one tick in one call, each decoded by name', async () => {
    const fake = fakeScriptClient(() => [
      1,
      2,
      7,
      100,
      '',
      0,
      3,
      0,
      101,
      'overlap',
      4,
      '',
      '',
      0,
      '',
      5,
      0,
      0,
      102,
      'ran-already',
    ]);
    const start = new RunPathScripts(fake.redis).startRuns(k, { ttlMs: 30, historyLimit: 3, markKeptMs: 90 });
    const run = {
      scheduleId: 's',
      leaseId: 'l',
      rule: { mode: 'skip' as const, cap: 2 },
      owed: false,
      jobId: 'j',
      field: '5',
      fireAt: 5,
      firstDelivery: true,
      running: { startedAt: 1, outcome: 'running', attempts: 1, error: null, queue: 'q' },
      skipped: { finishedAt: 1, outcome: 'skipped', queue: 'q', group: 'g' },
    };
    const marked = { ...run, mark: { stamp: 77, always: false } };
    const out = await Promise.all([start(0, run), start(0, run), start(0, run), start(0, marked)]);
    expect(out).toEqual([
      { status: 'started', live: 2, fencingToken: 7, at: 100, buffered: false },
      { status: 'skipped', live: 3, reason: 'overlap', at: 101 },
      { status: 'ran' },
      { status: 'refused', at: 102 },
    ]);
    expect(fake.calls).toHaveLength(1);
    const c = bySlot(L.START_RUNS, fake.calls[0]!.args);
    expect(c.argv).toEqual({
      base: B,
      leaseTtl: 30,
      historyLimit: 3,
      cancelChannel: `${B}:cancel`,
      markKept: 90,
    });
    // flags: f a first delivery, w the running record written by the script (its facts follow)
    const head = ['s', 'l', 'skip', 2, 'j', 5, 'fw'];
    const tail = [
      // the pairs only the skip sets, both set alike, only the run sets; the outcomes and instants are the script's
      1,
      1,
      1,
      'group',
      'g',
      'queue',
      'q',
      'attempts',
      1,
      'error',
    ];
    const one = [...head, '', ...tail];
    // a scheduled occurrence's mark: only where its claim was taken over (r), stamped by its add
    expect(c.rest).toEqual([...one, ...one, ...one, ...head, 'r77', ...tail]);
  });

  it('start-runs-1, the running record written behind: no facts are sent (10 values a run); a buffered start, a skip lacking facts say so', async () => {
    const fake = fakeScriptClient(() => [1, 0, 8, 100, 'buffered']);
    const start = new RunPathScripts(fake.redis).startRuns(k, { ttlMs: 30, historyLimit: 3, markKeptMs: 90 });
    const out = await start(0, {
      scheduleId: 's',
      leaseId: 'l',
      rule: { mode: 'bufferAll' as const, cap: 1 },
      owed: false,
      jobId: 'j',
      field: '5',
      fireAt: 5,
      firstDelivery: true,
      running: { startedAt: 1, outcome: 'running', attempts: 1, error: null, queue: 'q' },
      skipped: { finishedAt: 1, outcome: 'skipped', queue: 'q' },
      runningBehind: true,
    });
    expect(out).toEqual({ status: 'started', live: 0, fencingToken: 8, at: 100, buffered: true });
    // the record is the job's enqueued one: its facts are known (not sent again with the outcome)
    const known = new RunPathScripts(fakeScriptClient(() => [1, 0, 9, 101, ',facts']).redis).startRuns(k, {
      ttlMs: 30,
      historyLimit: 3,
      markKeptMs: 90,
    });
    expect(
      await known(0, {
        scheduleId: 's',
        leaseId: 'l',
        rule: { mode: 'skip' as const, cap: 1 },
        owed: false,
        jobId: 'j',
        field: '6',
        fireAt: 6,
        firstDelivery: true,
        running: { outcome: 'running', queue: 'q' },
        skipped: { outcome: 'skipped', queue: 'q' },
        runningBehind: true,
      }),
    ).toEqual({ status: 'started', live: 0, fencingToken: 9, at: 101, buffered: false, factsKnown: true });
    const c = bySlot(L.START_RUNS, fake.calls[0]!.args);
    // the lean path: the run's eight values, no facts (no w), the start mark ''; the occurrence field
    // is the fire time (no lane letter)
    expect(c.rest).toEqual(['s', 'l', 'bufferAll', 1, 'j', 5, 'f', '']);
    // a skip whose record held no facts of the job: the caller is told to write them
    const bare = new RunPathScripts(
      fakeScriptClient(() => [0, 1, 0, 102, 'overlap,nofacts']).redis,
    ).startRuns(k, {
      ttlMs: 30,
      historyLimit: 3,
      markKeptMs: 90,
    });
    expect(
      await bare(0, {
        scheduleId: 's',
        leaseId: 'l',
        rule: { mode: 'skip' as const, cap: 1 },
        owed: false,
        jobId: 'j',
        field: '7',
        fireAt: 7,
        firstDelivery: false,
        running: { outcome: 'running', queue: 'q' },
        skipped: { outcome: 'skipped', queue: 'q' },
        runningBehind: true,
      }),
    ).toEqual({ status: 'skipped', live: 1, reason: 'overlap', at: 102, factsMissing: true });
  });

  it('start-runs-1: a retry owed its run (o) and a manual or backfilled field (m, b) are flags; any other field is refused', async () => {
    const fake = fakeScriptClient(() => [2, 1, 0, 0, '', 1, 0, 3, 100, '']);
    const start = new RunPathScripts(fake.redis).startRuns(k, { ttlMs: 30, historyLimit: 3, markKeptMs: 90 });
    const run = {
      scheduleId: 's',
      leaseId: 'l',
      rule: { mode: 'skip' as const, cap: 1 },
      owed: true,
      jobId: 'j',
      field: 'm5',
      fireAt: 5,
      firstDelivery: false,
      running: { outcome: 'running' },
      skipped: { outcome: 'skipped' },
      runningBehind: true,
    };
    const out = await Promise.all([start(0, run), start(0, { ...run, owed: false, field: 'b5' })]);
    expect(out).toEqual([
      { status: 'wait', live: 1 },
      { status: 'started', live: 0, fencingToken: 3, at: 100, buffered: false },
    ]);
    const c = bySlot(L.START_RUNS, fake.calls[0]!.args);
    expect(c.rest).toEqual([
      ...['s', 'l', 'skip', 1, 'j', 5, 'om', ''],
      ...['s', 'l', 'skip', 1, 'j', 5, 'b', ''],
    ]);
    await expect(start(0, { ...run, field: 'x5' })).rejects.toThrow(/occurrence field "x5"/);
  });

  it('finish-runs-5: a finishedAt given is the script clock; a null one is removed', async () => {
    const fake = fakeScriptClient(() => [1, 0, 'next-job', 0, 1, '', 1, 0, '']);
    const finish = new RunPathScripts(fake.redis).finishRuns(k, { historyLimit: 3, auditLimit: 9 });
    const run = {
      scheduleId: 's',
      leaseId: undefined,
      field: '5',
      fireAt: 5,
      outcome: { outcome: 'failed', finishedAt: 1 },
      counters: ['runs', 'errors'],
      fencingToken: 7,
      streak: 'failed' as const,
      pause: { afterFailures: 3, note: 'boom', at: 4 },
      mode: 'bufferAll' as const,
    };
    const out = await Promise.all([
      finish(0, run),
      finish(0, { ...run, outcome: { finishedAt: null }, pause: { afterFailures: 0, note: '', at: 0 } }),
      // a record written behind: the run's own token is not sent as a fact (flag k), a success resets the streak (o)
      finish(0, {
        ...run,
        outcome: { outcome: 'succeeded', fencingToken: 7, finishedAt: 1 },
        streak: 'ok' as const,
      }),
    ]);
    expect(out).toEqual([
      { written: true, paused: false, next: 'next-job' },
      { written: false, paused: true },
      { written: true, paused: false },
    ]);
    const c = bySlot(L.FINISH_RUNS, fake.calls[0]!.args);
    expect(c.keys).toEqual({
      totals: `${B}:totals`,
      state: `${B}:state`,
      due: `${B}:due`,
      resched: `${B}:resched`,
      notes: `${B}:notes`,
    });
    expect(c.argv).toEqual({ base: B, historyLimit: 3, wakeChannel: `${B}:wake`, auditKept: 9 });
    const note = JSON.stringify({ note: 'boom', by: 'pauseOnFailure', at: 4 });
    // flags: t finishedAt is the script's clock, k the run's token is the record's, x a failure counted
    // in the streak (its pause values follow), o a success resetting it; no streak without pauseOnFailure;
    // d names removed (their list follows the pairs); the occurrence field is the fire time (no m, b)
    expect(c.rest).toEqual([
      ...['s', '', 5, 'tx', 'runs,errors', 7, 'bufferAll', 3, note, 1, 'outcome', 'failed'],
      ...['s', '', 5, 'd', 'runs,errors', 7, 'bufferAll', 0, 'finishedAt'],
      ...['s', '', 5, 'tko', 'runs,errors', 7, 'bufferAll', 1, 'outcome', 'succeeded'],
    ]);
    // a manual run's field (m), a backfilled one's (b)
    const lanes = fakeScriptClient(() => [1, 0, '', 1, 0, '']);
    const finishLanes = new RunPathScripts(lanes.redis).finishRuns(k, { historyLimit: 3, auditLimit: 9 });
    const plain = { ...run, outcome: { outcome: 'succeeded' }, streak: undefined };
    await Promise.all([finishLanes(0, { ...plain, field: 'm5' }), finishLanes(0, { ...plain, field: 'b5' })]);
    expect(bySlot(L.FINISH_RUNS, lanes.calls[0]!.args).rest).toEqual([
      ...['s', '', 5, 'm', 'runs,errors', 7, 'bufferAll', 1, 'outcome', 'succeeded'],
      ...['s', '', 5, 'b', 'runs,errors', 7, 'bufferAll', 1, 'outcome', 'succeeded'],
    ]);
  });
});
