// The batcher of the run scripts on its own: calls of one tick go together, calls made while a batch
// is on its way wait for it and then go together, lanes do not wait for each other, and an error
// of one call (or of a whole batch) reaches exactly the calls it belongs to.
import { describe, expect, it } from 'vitest';
import { ScriptBatcher } from '../../src/store/scripts/script-batcher.js';

/** A send that echoes each call's one value twice (width 2), and lets the test release each batch. */
function bed() {
  const sent: { lane: number; args: (string | number)[]; release: (fail?: Error) => void }[] = [];
  const batcher = new ScriptBatcher(
    (lane, args) =>
      new Promise((resolve, reject) => {
        sent.push({
          lane,
          args,
          release: (fail) =>
            fail
              ? reject(fail)
              : resolve(args.flatMap((a) => (String(a).startsWith('bad') ? [-1, `no ${a}`] : [a, a]))),
        });
      }),
    2,
    3,
  );
  return { batcher, sent };
}
const tick = () => new Promise((r) => setImmediate(r));

describe('ScriptBatcher', () => {
  it('sends the calls of one tick in one batch, and those made while it is on its way in the next', async () => {
    const { batcher, sent } = bed();
    const first = [batcher.call(0, ['a']), batcher.call(0, ['b'])];
    await tick();
    expect(sent.map((s) => s.args)).toEqual([['a', 'b']]);
    const later = [
      batcher.call(0, ['c']),
      batcher.call(0, ['d']),
      batcher.call(0, ['e']),
      batcher.call(0, ['f']),
    ];
    await tick();
    expect(sent).toHaveLength(1); // waits for the batch on its way
    sent[0]!.release();
    expect(await Promise.all(first)).toEqual([
      ['a', 'a'],
      ['b', 'b'],
    ]);
    await tick();
    expect(sent.map((s) => s.args)).toEqual([
      ['a', 'b'],
      ['c', 'd', 'e'],
    ]); // at most 3 per batch
    sent[1]!.release();
    await tick();
    expect(sent[2]!.args).toEqual(['f']);
    sent[2]!.release();
    expect(await Promise.all(later)).toEqual([
      ['c', 'c'],
      ['d', 'd'],
      ['e', 'e'],
      ['f', 'f'],
    ]);
  });

  it('keeps lanes apart: a batch on its way in one lane does not hold another back', async () => {
    const { batcher, sent } = bed();
    const a = batcher.call(0, ['a']);
    await tick();
    const b = batcher.call(1, ['b']);
    await tick();
    expect(sent.map((s) => [s.lane, s.args])).toEqual([
      [0, ['a']],
      [1, ['b']],
    ]);
    sent[1]!.release();
    expect(await b).toEqual(['b', 'b']);
    sent[0]!.release();
    expect(await a).toEqual(['a', 'a']);
  });

  it('rejects a call that failed in the script alone, and every call of a batch that failed as a whole', async () => {
    const { batcher, sent } = bed();
    const calls = [batcher.call(0, ['a']), batcher.call(0, ['bad-b']), batcher.call(0, ['c'])];
    await tick();
    sent[0]!.release();
    const settled = await Promise.allSettled(calls);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((settled[1] as PromiseRejectedResult).reason.message).toBe('no bad-b');

    const lost = [batcher.call(0, ['d']), batcher.call(0, ['e'])];
    await tick();
    sent[1]!.release(new Error('connection closed'));
    const both = await Promise.allSettled(lost);
    expect(both.map((s) => s.status === 'rejected' && s.reason.message)).toEqual([
      'connection closed',
      'connection closed',
    ]);
    // the lane goes on after a failed batch
    const after = batcher.call(0, ['g']);
    await tick();
    sent[2]!.release();
    expect(await after).toEqual(['g', 'g']);
  });

  it('a send that throws before sending fails its batch alone; the lane goes on', async () => {
    let calls = 0;
    const batcher = new ScriptBatcher((_lane, args) => {
      if (++calls === 1) throw new Error('bad argument');
      return Promise.resolve(args.flatMap((a) => [a, a]));
    }, 2);
    await expect(batcher.call(0, ['a'])).rejects.toThrow('bad argument');
    await expect(batcher.call(0, ['b'])).resolves.toEqual(['b', 'b']);
  });
});
