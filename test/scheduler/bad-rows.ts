import type { Redis } from 'ioredis';

/** Rows as an older release could have written them: each one broken in its own way. */
export async function writeBadRows(redis: Redis, prefix: string, base: string) {
  const k = `{${prefix}}:bb`;
  const def = JSON.parse((await redis.hget(`${k}:schedules`, base)) as string);
  const state = (await redis.hget(`${k}:state`, base)) as string;
  const rows: Record<string, { def: string; due: number }> = {
    'not-json': { def: '{"id":"not-json","name":', due: 2e12 },
    'date-1e20': {
      def: JSON.stringify({ ...def, id: 'date-1e20', trigger: { type: 'date', at: 1e20 } }),
      due: 1e20,
    },
    'every-1e13': {
      def: JSON.stringify({ ...def, id: 'every-1e13', trigger: { type: 'interval', seconds: 1e13 } }),
      due: 1e16,
    },
  };
  for (const [id, row] of Object.entries(rows)) {
    await redis.hset(`${k}:schedules`, id, row.def);
    await redis.hset(`${k}:state`, id, state);
    await redis.zadd(`${k}:due`, row.due, id);
  }
  return Object.keys(rows);
}
