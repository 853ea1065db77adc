/**
 * What happens to occurrences that the scheduler sees after `fireAt + misfireGraceMs`: `once` one
 * run for all, `all` each (up to `maxCatchUp`), `skip` none. Its own file, free of zod, so the CLI's
 * option table can list the choices without loading the schemas.
 */
export const MISFIRE_POLICIES = ['once', 'all', 'skip'] as const;
export type MisfirePolicy = (typeof MISFIRE_POLICIES)[number];
