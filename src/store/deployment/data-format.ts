import type { Redis } from 'ioredis';
import { BullbeatError } from '../../errors/bullbeat-error.js';
import { DataFormatError } from '../../errors/data-format-error.js';
import { checkPartitionCount, type Keys } from '../keys/index.js';
import { checkListIndexes, deploymentExists } from '../reads/index.js';
import { COMPACT_AUDIT, ScriptCaller, SET_FORMAT, scriptArgs, yes } from '../scripts/index.js';

/**
 * The format of the data this release reads and writes in Redis, recorded once per deployment at
 * `keys.dataFormat`. Bump it (and add the step from the previous format to `FORMAT_UPGRADES` in the same
 * change, and a line to docs/upgrading.md) when a release writes something the previous release would
 * misread or damage: a key renamed or given another type, a stored field that changes meaning, a codec
 * that drops what the previous one wrote. A change the previous release reads correctly (a new optional
 * field its codec fills in, a new key it never reads) keeps the format: every reader here also reads
 * each older format's data, as the codecs read the full definition rows of earlier releases.
 */
export const DATA_FORMAT = 3;

/**
 * One upgrade step: rewrites a deployment's data from the format it is keyed by to the next. Two
 * processes of the new release may run it at once, and a process may die in the middle of it, so it
 * must be safe to run again over data it already rewrote (in part or whole).
 */
export type FormatUpgrade = (redis: Redis, k: Keys) => Promise<void>;

/**
 * Format 1 to 2: an idle schedule's audit trail (a stream holding only its `create`) moves into its
 * partition's first-entry hash (`keys.auditFirst`, includes/audit.lua), ~40 B instead of a stream's
 * ~420 B. Every schedule of every partition, by `HSCAN` of its definitions, one `compact-audit-3` each
 * (which leaves a trail of any other shape, or one already moved, as it is: the step runs again safely).
 */
async function compactAuditTrails(redis: Redis, k: Keys): Promise<void> {
  const caller = new ScriptCaller(redis);
  for (const p of k.all()) {
    let cursor = '0';
    do {
      const [next, flat] = await redis.hscan(p.schedules, cursor, 'COUNT', 500);
      cursor = next;
      const calls: Promise<unknown>[] = [];
      for (let i = 0; i < flat.length; i += 2) {
        const id = flat[i] as string;
        const keys = { audit: p.audit(id), auditFirst: p.auditFirst(id), schedules: p.schedules };
        calls.push(caller.run(COMPACT_AUDIT, scriptArgs(COMPACT_AUDIT, keys, { id })));
      }
      await Promise.all(calls);
    } while (cursor !== '0');
  }
}

/**
 * Format 2 to 3: the index of every schedule by name (`keys.names`, a sorted set of `<name>\0<id>` per
 * partition) goes; the queue indexes, which hold each schedule once, are the name order's only index
 * (~113 B per schedule less). Each partition's queue and status indexes are completed first where they
 * are not (`checkListIndexes`: a partition written before them, or whose counts are off), then its
 * `names` is unlinked. Run again, it finds nothing to complete or delete.
 */
async function dropNameIndex(redis: Redis, k: Keys): Promise<void> {
  await checkListIndexes(redis, k);
  await Promise.all(k.all().map((p) => redis.unlink(p.names)));
}

/** The upgrade steps, by the format each starts from. */
export const FORMAT_UPGRADES: Readonly<Record<number, FormatUpgrade>> = {
  1: compactAuditTrails,
  2: dropNameIndex,
};

/** What a process knows: the newest format and the steps up to it (tests pass others). */
export interface DataFormatRules {
  known: number;
  upgrades: Readonly<Record<number, FormatUpgrade>>;
}

const THIS_RELEASE: DataFormatRules = { known: DATA_FORMAT, upgrades: FORMAT_UPGRADES };

let inForce: DataFormatRules = THIS_RELEASE;

/**
 * Tests only: the format this process knows and its upgrade steps, in place of this release's
 * (`DATA_FORMAT`, `FORMAT_UPGRADES`), for every check the process makes from now on (a manager's start
 * included); `undefined` puts this release's back. A test registers a step from format 1 to 2 here, in
 * the processes it starts, to prove the upgrade path with a step the package never ships. Production
 * never sets one.
 */
export function setDataFormatRules(rules: DataFormatRules | undefined): void {
  inForce = rules ?? THIS_RELEASE;
}

/** How long one process holds the right to run an upgrade step before another may take it (ms). */
const UPGRADE_LEASE_MS = 30_000;
/** How often a process that waits for another's step looks at the format again (ms). */
const UPGRADE_POLL_MS = 50;

/**
 * Check the deployment's data format (pg-boss's schema version check, in Redis): read once, at a
 * process's start.
 *
 * - Newer than this release knows: a `DataFormatError` naming both, whatever the process.
 * - No key and no data (an empty deployment): a process that writes (`record`) records this release's
 *   format (`SET NX`); a read records nothing (a look at a mistyped prefix leaves no deployment behind).
 * - No key but data (written before the format was recorded): format 1.
 * - Older: a process that writes runs each upgrade step in turn and moves the key on after each one
 *   (`set-format-1`, only from the format the step started from: of two processes upgrading at once,
 *   one moves it, the other reads the new format and goes on from there); a read reads it as it is.
 *   Format 1 with no key gets the key written.
 *
 * Returns the deployment's format after the check, undefined when it has none (an empty deployment,
 * a read).
 */
export async function checkDataFormat(
  redis: Redis,
  k: Keys,
  record: boolean,
  rules: DataFormatRules = inForce,
): Promise<number | undefined> {
  const { known, upgrades } = rules;
  // each pass either returns or moves the stored format on (or finds another process did): it ends
  for (;;) {
    const { stored, raw } = await readFormat(redis, k, known);
    if (stored === undefined) {
      if (!record) return undefined;
      if ((await redis.set(k.dataFormat, String(known), 'NX')) === 'OK') return known;
      continue;
    }
    if (!record || (stored === known && raw !== null)) return stored;
    if (stored < known) {
      const step = upgrades[stored];
      if (step === undefined) {
        throw new BullbeatError(
          `${k.dataFormat}: this release knows format ${known} but has no upgrade from format ${stored}: ` +
            `upgrade through the release that introduced format ${stored + 1} first (docs/upgrading.md)`,
        );
      }
      await runStepOnce(redis, k, stored, raw, step);
      continue; // read the format again: this step or another process's moved it on, or is moving it
    }
    await moveFormat(redis, k, raw ?? '', Math.min(stored + 1, known));
  }
}

/**
 * Run the upgrade step from format `from` in this process only if no other process is running it: the
 * right to run it is a lease (`<format key>:upgrade:<from>`, `SET NX PX`) renewed while the step runs,
 * so of processes starting together one runs it and the others wait for the format to move on
 * (`UPGRADE_POLL_MS`) and read it again. A process that dies mid-step lets its lease lapse and another
 * runs the step again over what it rewrote (steps are written to run again safely). The process that
 * ran it moves the format on (`set-format-1`, only from the format the step started from).
 */
async function runStepOnce(
  redis: Redis,
  k: Keys,
  from: number,
  raw: string | null,
  step: FormatUpgrade,
): Promise<void> {
  const lease = `${k.dataFormat}:upgrade:${from}`;
  const token = `${process.pid}:${Math.random().toString(36).slice(2)}`;
  if ((await redis.set(lease, token, 'PX', UPGRADE_LEASE_MS, 'NX')) !== 'OK') {
    await new Promise((resolve) => setTimeout(resolve, UPGRADE_POLL_MS));
    return;
  }
  // the format may have moved between the read and the lease (a step that ended just then)
  if ((await redis.get(k.dataFormat)) !== raw) {
    await redis.del(lease);
    return;
  }
  const renew = setInterval(() => {
    redis.pexpire(lease, UPGRADE_LEASE_MS).catch(() => undefined);
  }, UPGRADE_LEASE_MS / 3);
  try {
    await step(redis, k);
  } finally {
    clearInterval(renew);
  }
  // the format moves before the lease goes: a process that takes it next reads the new format
  await moveFormat(redis, k, raw ?? '', from + 1);
  await redis.del(lease);
}

/**
 * The stored format (1 for data with no key, undefined for no key and no data) and the key's own
 * value; a `DataFormatError` when it is newer than `known`.
 */
async function readFormat(
  redis: Redis,
  k: Keys,
  known: number,
): Promise<{ stored: number | undefined; raw: string | null }> {
  const raw = await redis.get(k.dataFormat);
  let stored: number | undefined = 1;
  if (raw !== null) stored = parseFormat(raw, k.dataFormat);
  else if (!(await deploymentExists(redis, k))) stored = undefined;
  if (stored !== undefined && stored > known) throw new DataFormatError(stored, known, k.dataFormat);
  return { stored, raw };
}

/** `set-format-1`: the key moved from `from` ('' none) to `to`; false when another process moved it. */
async function moveFormat(redis: Redis, k: Keys, from: string, to: number): Promise<boolean> {
  const args = scriptArgs(SET_FORMAT, { format: k.dataFormat }, { from, to });
  return yes(SET_FORMAT, await new ScriptCaller(redis).run(SET_FORMAT, args));
}

function parseFormat(raw: string, key: string): number {
  const n = Number(raw);
  if (!/^[1-9]\d*$/.test(raw) || !Number.isSafeInteger(n)) {
    throw new BullbeatError(`${key}: "${raw}" is not a data format version (a whole number from 1)`);
  }
  return n;
}

/**
 * A process's start on a deployment: its data format (`checkDataFormat`) and its partition count
 * (`checkPartitionCount`), each with the same `record`. The format is read first and written last: a
 * newer format is refused before anything is written, a partition count refused leaves no format key
 * behind, and a new deployment is recorded at this release's format (not taken for one with data). True
 * once both are settled: the partition count recorded and this release's format; false when there is
 * more to check at the next use (nothing recorded yet, or an older format only read).
 */
export async function checkDeployment(redis: Redis, k: Keys, record: boolean): Promise<boolean> {
  const { known } = inForce;
  const found = await readFormat(redis, k, known);
  const partitions = await checkPartitionCount(redis, k, record);
  let format = found.stored;
  if (record && !(found.stored === known && found.raw !== null)) {
    format =
      found.stored === undefined && (await redis.set(k.dataFormat, String(known), 'NX')) === 'OK'
        ? known
        : await checkDataFormat(redis, k, true);
  }
  return partitions && format === known;
}
