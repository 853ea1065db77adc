// The status index (includes/names `snames:<status>`, includes/state `setStatus`) follows every script
// that moves a state row between statuses, each on its own against Redis: set-status-6 (pause, orphan,
// resume), mark-errored-9, clear-error-6 (to active, to completed), complete-n's completion, upsert-9
// (a create completed at once, a restore, a rename of a paused one) and remove-13; an active schedule is
// in none of the status indexes, every other in exactly its own.
import { afterEach, describe, expect, it } from 'vitest';
import {
  CLEAR_ERROR,
  COMPLETE,
  MARK_ERRORED,
  REMOVE,
  SET_STATUS,
  UPSERT,
} from '../../src/store/scripts/script-layouts.js';
import { callScript, item, row, StoreBed, scheduleScriptKeys } from './helpers.js';

let bed: StoreBed;
afterEach(async () => {
  await bed.cleanup();
});

const ERR = JSON.stringify({ reason: 'boom', at: 9000, fireAt: 5000 });
const STATUSES = ['paused', 'completed', 'errored'] as const;

/** Where `s` (listed as `name`) stands in the status indexes: the one holding it, 'none' for none. */
async function listedAs(name = 'report'): Promise<string> {
  const member = `${name}\0s`;
  const found: string[] = [];
  for (const st of STATUSES) {
    if ((await bed.redis.zscore(bed.k.statusNames(st), member)) !== null) found.push(st);
  }
  return found.length === 0 ? 'none' : found.join(',');
}

async function stored(status: string) {
  bed = new StoreBed();
  await bed.redis.hset(bed.k.schedules, 's', JSON.stringify({ id: 's', name: 'report', queue: 'q1' }));
  await bed.redis.hset(bed.k.state, 's', row(status, 2, 4000));
  return scheduleScriptKeys(bed.k);
}

describe('the status index follows each status change', () => {
  it('set-status: pause, resume, orphan', async () => {
    const keys = await stored('a');
    expect(await callScript(bed, SET_STATUS, ...keys.setStatus, 's', 'a', 'p', '')).toBe(1);
    expect(await listedAs()).toBe('paused');
    expect(await callScript(bed, SET_STATUS, ...keys.setStatus, 's', 'p', 'a', 6000)).toBe(1);
    expect(await listedAs()).toBe('none');
    expect(await callScript(bed, SET_STATUS, ...keys.setStatus, 's', 'a', 'o', '')).toBe(1);
    expect(await listedAs()).toBe('paused'); // an orphan is shown paused
  });

  it('mark-errored and clear-error (to active, to completed)', async () => {
    const keys = await stored('a');
    expect(await callScript(bed, MARK_ERRORED, ...keys.markErrored, 's', '', ERR, 9000)).toBe(1);
    expect(await listedAs()).toBe('errored');
    expect(await callScript(bed, CLEAR_ERROR, ...keys.clearError, 's', 8000, 9000)).toBe(1);
    expect(await listedAs()).toBe('none');
    expect(await callScript(bed, MARK_ERRORED, ...keys.markErrored, 's', '', ERR, 9000)).toBe(1);
    expect(await callScript(bed, CLEAR_ERROR, ...keys.clearError, 's', '', 9000)).toBe(1);
    expect(await listedAs()).toBe('completed');
  });

  it("complete-n's completion", async () => {
    const keys = await stored('a');
    await bed.redis.zadd(bed.k.inflight, Date.now() + 60_000, 's');
    await bed.redis.hset(bed.k.claim, 's', '5000|t');
    expect(
      await callScript(bed, COMPLETE, ...keys.complete(['s']), 10, 9000, 't', 0, ...item('s', 5000, -1)),
    ).toEqual([1]);
    expect(await listedAs()).toBe('completed');
  });

  it('upsert: a create completed at once, a rename of a paused one, a restore; remove', async () => {
    bed = new StoreBed();
    const keys = scheduleScriptKeys(bed.k);
    const def = (name: string) => JSON.stringify({ id: 's', name, queue: 'q1' });
    const upsert = (d: string, next: number | '', fp = 'fp') =>
      callScript(bed, UPSERT, ...keys.upsert, 's', d, fp, next, 1000, 'r', '0', '', 0, '', '', '', '0', '');
    expect(await upsert(def('report'), '')).toBe('created');
    expect(await listedAs()).toBe('completed');
    expect(await upsert(def('report'), 5000, 'fp2')).toBe('updated'); // re-timed: active again
    expect(await listedAs()).toBe('none');
    expect(await callScript(bed, SET_STATUS, ...keys.setStatus, 's', 'a', 'p', '')).toBe(1);
    expect(await upsert(def('renamed'), 5000, 'fp2')).toBe('updated');
    expect(await listedAs('report')).toBe('none');
    expect(await listedAs('renamed')).toBe('paused');
    expect(await bed.redis.zscore(bed.k.queueNames('q1'), 'renamed\0s')).toBe('0');
    expect(await callScript(bed, SET_STATUS, ...keys.setStatus, 's', 'p', 'o', '')).toBe(1);
    expect(await upsert(def('renamed'), 5000, 'fp2')).toBe('restored');
    expect(await listedAs('renamed')).toBe('none');
    expect(await callScript(bed, SET_STATUS, ...keys.setStatus, 's', 'a', 'p', '')).toBe(1);
    expect(await callScript(bed, REMOVE, ...keys.remove('s'), 's', '', 0, '', '', '', 0)).toBe(1);
    expect(await listedAs('renamed')).toBe('none');
    expect(await bed.redis.exists(bed.k.names, bed.k.queueNames('q1'), bed.k.queues)).toBe(0);
  });
});
