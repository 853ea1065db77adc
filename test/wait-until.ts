/**
 * The one polling helper of the tests: call `probe` every `stepMs` until it returns a truthy value,
 * and resolve with that value; reject after `timeoutMs` with what was awaited (`what`).
 *
 * Poll only for what happens in another process or on Redis's own time (a child's output, a BullMQ
 * worker's job, a key's expiry). Where the fire loop, claims or leases are what the test waits on,
 * drive their clock instead (`test/scheduler/manual-time.ts`, `setScriptClock`): no wall time passes.
 */
export async function waitUntil<T>(
  probe: () => T | Promise<T>,
  timeoutMs = 10_000,
  { stepMs = 20, what = 'a condition' }: { stepMs?: number; what?: string } = {},
): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
