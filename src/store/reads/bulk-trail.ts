import type { Redis } from 'ioredis';
import type { AuditActor } from '../forms/index.js';
import type { Keys } from '../keys/index.js';

/** What a bulk change did: `scheduleMany`, or a pause, resume, remove or backfill by selector. */
export type BulkOp = 'create' | 'pause' | 'resume' | 'remove' | 'backfill';

/** One entry of the deployment's bulk trail (`keys.bulkAudit`): one change over many schedules. */
export interface BulkChange {
  /** The entry id (Redis's clock: `<ms>-<seq>`). */
  id: string;
  /** When (Redis ms). */
  at: number;
  op: BulkOp;
  actor: string;
  source: string;
  onBehalfOf?: string;
  /** The selector it applied to (none for `scheduleMany`). */
  selector?: string;
  /** How many schedules the selector (or the batch) named. */
  matched: number;
  /** How many it changed (a pause of one already paused changes nothing). */
  count: number;
  /** The pause note, a resume's policy, a backfill's range: what the change said besides. */
  detail?: string;
}

/** How many bulk changes the trail keeps (newest). */
export const BULK_TRAIL_LIMIT = 1000;

/**
 * The deployment's bulk trail: one stream entry per bulk change, with its count, beside the entry each
 * schedule's own trail gets from the change's script. Written once the change is done, by whoever made
 * it (a bulk change spans many scripts, and partitions on a cluster: no one script can write it).
 */
export class BulkTrail {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
  ) {}

  async append(
    change: Omit<BulkChange, 'id' | 'at' | 'actor' | 'source' | 'onBehalfOf'>,
    by: AuditActor,
  ): Promise<string> {
    const fields = ['op', change.op, 'actor', by.actor, 'source', by.source];
    if (by.onBehalfOf !== undefined) fields.push('onBehalfOf', by.onBehalfOf);
    if (change.selector !== undefined) fields.push('selector', change.selector);
    fields.push('matched', String(change.matched), 'count', String(change.count));
    if (change.detail !== undefined) fields.push('detail', change.detail);
    const id = await this.redis.xadd(this.keys.bulkAudit, 'MAXLEN', '~', BULK_TRAIL_LIMIT, '*', ...fields);
    return String(id);
  }

  /** The newest `limit` bulk changes, newest first. */
  async list(limit = 50): Promise<BulkChange[]> {
    const raw = (await this.redis.xrevrange(this.keys.bulkAudit, '+', '-', 'COUNT', limit)) as [
      string,
      string[],
    ][];
    return raw.map(([id, flat]) => {
      const f: Record<string, string> = {};
      for (let i = 0; i + 1 < flat.length; i += 2) f[flat[i]!] = flat[i + 1]!;
      return {
        id,
        at: Number(id.split('-')[0]),
        op: f.op as BulkOp,
        actor: f.actor ?? '',
        source: f.source ?? '',
        ...(f.onBehalfOf !== undefined && { onBehalfOf: f.onBehalfOf }),
        ...(f.selector !== undefined && { selector: f.selector }),
        matched: Number(f.matched ?? 0),
        count: Number(f.count ?? 0),
        ...(f.detail !== undefined && { detail: f.detail }),
      };
    });
  }
}
