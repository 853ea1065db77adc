import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The order of the house, as src/README.md draws it: every room stands on a floor and imports only
// rooms on the floors below it. The rooms above the library (the dashboard, the CLI, the worker
// entry) come in through the rooms' doors; the Nest module and the examples use the public API only.

const ROOT = normalize(join(dirname(fileURLToPath(import.meta.url)), '../..'));

/** Floor of each room, from the ground up. Rooms on one floor do not import each other. */
const FLOORS: readonly (readonly string[])[] = [
  ['errors', 'logging', 'package-version', 'tracing'], // tracing: spans only; the fire loop and the runtime call it
  ['cron'],
  ['triggers'],
  ['store'], // stores triggers: a definition's trigger is decoded and checked where it is read
  ['queue'], // the worker runtime: it runs what the store hands it, and knows no manager
  ['scheduler'], // names the runtime's handler types, and is the WorkerScheduler the runtime asks
  ['insight', 'ops'],
  ['api', 'internal'], // src/index.ts: the package's public API; src/internal.ts: the manager's plumbing, for bullbeat/nest
  ['dashboard', 'nest'],
  ['cli'],
  ['workers'],
];

/** Rooms that are not the product: they may import anything, and nothing imports them. */
const HARNESS = ['test', 'bench', 'scripts'];

/** Rooms that use the public API only, as a user's code does. */
const PUBLIC_ONLY: Record<string, readonly string[]> = { nest: ['api', 'internal'], examples: ['api'] };

/** Rooms above the library: they enter another room through its door only, never past it. */
const ENTERS_BY_DOORS = ['dashboard', 'cli', 'workers', 'nest', 'examples'];

/** A room's doors: `index.ts`, except where named here. */
const DOORS: Record<string, readonly string[]> = {
  api: ['src/index.ts'],
  internal: ['src/internal.ts'],
  'package-version': ['src/package-version.ts'],
  // index.ts is `bullbeat/dashboard`; internal.ts is what the CLI uses beyond it
  dashboard: ['dashboard/index.ts', 'dashboard/internal.ts'],
};

/**
 * Rooms split into subfolders, each subfolder's floor inside its room, from the ground up. A subfolder
 * is entered by its index.ts from anywhere outside it; another room enters the room by the room's own
 * index.ts only (its door); a subfolder imports only subfolders on floors below its own.
 */
const SUBFLOORS: Record<string, readonly (readonly string[])[]> = {
  // contract: the options, events and ScheduledJob; fire, outcomes, backfill stand on it; the manager composes them
  scheduler: [['contract'], ['fire', 'outcomes', 'backfill', 'alerts'], ['manager']],
  // keys: the names of every key; connection: clients and Redis time; forms: the stored forms and their
  // codecs; scripts: the Lua and its marshalling; reads and bullmq: readers, and what touches BullMQ's keys;
  // runs: run slots, manual runs, the backfill ledger; deployment: the schedule store, claims, pauses, fleet
  store: [['keys'], ['connection'], ['forms'], ['scripts'], ['reads', 'bullmq'], ['runs'], ['deployment']],
};

const floorOf = new Map(FLOORS.flatMap((rooms, floor) => rooms.map((room) => [room, floor] as const)));

/** The room a path belongs to: `src/store/keys.ts` → `store`, `src/index.ts` → `api`, `dashboard/x.ts` → `dashboard`. */
function roomOf(path: string): string {
  if (path === 'src/index.ts') return 'api';
  const inSrc = /^src\/([^/]+?)(?:\.ts)?(?:\/|$)/.exec(path);
  if (inSrc) return inSrc[1]!;
  return path.split('/')[0]!;
}

function doorsOf(room: string): readonly string[] {
  return (
    DOORS[room] ?? [room === 'cli' || floorOf.get(room)! <= 6 ? `src/${room}/index.ts` : `${room}/index.ts`]
  );
}

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return files(path);
    return /\.(ts|mts|mjs|js)$/.test(name) ? [path] : [];
  });
}

/** Every relative import of a file (static, dynamic, re-export), resolved to a path from the root. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
    out.push(relative(ROOT, join(ROOT, dirname(file), m[1]!)).replace(/\.js$/, '.ts'));
  }
  return out;
}

/** The subfolder of a split room a path lies in: `src/scheduler/fire/fire-loop.ts` → `fire`. */
function subfolderOf(path: string): string | undefined {
  const m = /^src\/([^/]+)\/([^/]+)\//.exec(path);
  return m && SUBFLOORS[m[1]!] ? m[2] : undefined;
}

/** How an import inside a split room breaks its order; `undefined` when it keeps it. */
function subfolderRule(room: string, file: string, target: string): string | undefined {
  const from = subfolderOf(file);
  const to = subfolderOf(target);
  const floors = SUBFLOORS[room]!;
  const floor = (sub: string) => floors.findIndex((subs) => subs.includes(sub));
  if (target === `src/${room}/index.ts` && from !== undefined) {
    return `src/${room}/index.ts is the door of other rooms; inside, use a subfolder's index.ts`;
  }
  if (to === undefined || to === from) return undefined;
  if (target !== `src/${room}/${to}/index.ts`) return `enter ${room}/${to}/ by its index.ts`;
  if (from !== undefined && floor(to) >= floor(from)) {
    return `${room}/${from}/ (floor ${floor(from)}) may import only subfolders below it; ${to}/ is on floor ${floor(to)}`;
  }
  return undefined;
}

/** Every way a file of the product breaks the order; `[]` when it keeps it. */
function violations(file: string, imports: readonly string[]): string[] {
  const from = roomOf(file);
  const wrong: string[] = [];
  for (const target of imports) {
    const to = roomOf(target);
    const why = (rule: string) => wrong.push(`${file} imports ${target}: ${rule}`);
    if (to === from) {
      const rule = SUBFLOORS[to] ? subfolderRule(to, file, target) : undefined;
      if (rule) why(rule);
      continue;
    }
    if (SUBFLOORS[to] && !HARNESS.includes(from) && target !== `src/${to}/index.ts`) {
      why(`other rooms enter ${to} by its door (src/${to}/index.ts)`);
      continue;
    }
    if (HARNESS.includes(to)) why(`the product does not import ${to}/`);
    else if (PUBLIC_ONLY[from]) {
      if (!PUBLIC_ONLY[from].includes(to)) why(`${from} uses the public API (src/index.ts) only`);
    } else if (!floorOf.has(to)) why(`${to} is on no floor`);
    else if (floorOf.get(to)! >= floorOf.get(from)!) {
      why(
        `${from} (floor ${floorOf.get(from)}) may import only rooms below it; ${to} is on floor ${floorOf.get(to)}`,
      );
    } else if (to === 'api') why('the public API is for users; the code inside uses the rooms’ doors');
    else if (ENTERS_BY_DOORS.includes(from) && !doorsOf(to).includes(target)) {
      why(`${from} enters ${to} by its door (${doorsOf(to).join(', ')})`);
    }
  }
  return wrong;
}

/** The product's rooms: every folder and file of src/, and every folder beside it that holds code. */
function productFiles(): string[] {
  const top = readdirSync(ROOT).filter(
    (name) =>
      !name.startsWith('.') &&
      !['node_modules', 'dist', ...HARNESS].includes(name) &&
      statSync(join(ROOT, name)).isDirectory(),
  );
  return top.flatMap(files);
}

describe('layering', () => {
  it('every room of the product stands on a floor (a new folder is placed in FLOORS on purpose)', () => {
    const unplaced = new Set(
      productFiles()
        .map(roomOf)
        .filter((room) => !floorOf.has(room) && !PUBLIC_ONLY[room]),
    );
    expect([...unplaced]).toEqual([]);
  });

  it('every file of a split room lies in a subfolder placed in SUBFLOORS, but its index.ts', () => {
    const unplaced = productFiles().filter((file) => {
      const room = roomOf(file);
      if (!SUBFLOORS[room] || file === `src/${room}/index.ts`) return false;
      const sub = subfolderOf(file);
      return sub === undefined || !SUBFLOORS[room].some((subs) => subs.includes(sub));
    });
    expect(unplaced).toEqual([]);
  });

  it('imports run down the floors, through the doors, and the Nest module and the examples use the public API only', () => {
    const wrong = productFiles().flatMap((file) => violations(file, importsOf(file)));
    expect(wrong).toEqual([]);
  });

  it('catches an import that runs back up, one past a door, and one into the public API from inside', () => {
    expect(violations('src/store/keys.ts', ['src/scheduler/manager/scheduler-manager.ts'])).toHaveLength(1);
    expect(violations('src/insight/why.ts', ['src/ops/fleet-registry.ts'])).toHaveLength(1);
    expect(violations('src/cli/commands/status.ts', ['dashboard/schedule-reader.ts'])).toHaveLength(1);
    expect(violations('src/cli/commands/status.ts', ['src/index.ts'])).toHaveLength(1);
    expect(violations('nest/bullbeat-module.ts', ['src/scheduler/index.ts'])).toHaveLength(1);
    expect(violations('src/queue/pipeline.ts', ['test/setup/redis-cluster.ts'])).toHaveLength(1);
    expect(violations('src/cli/commands/status.ts', ['dashboard/internal.ts', 'src/store/index.ts'])).toEqual(
      [],
    );
  });

  it('catches an import past a subfolder’s door, one back up the subfolders, and one past the room’s door', () => {
    const manager = 'src/scheduler/manager/scheduler-manager.ts';
    expect(violations(manager, ['src/scheduler/fire/fire-loop.ts'])).toHaveLength(1);
    expect(violations('src/scheduler/fire/fire-loop.ts', ['src/scheduler/manager/index.ts'])).toHaveLength(1);
    expect(violations('src/scheduler/fire/fire-loop.ts', ['src/scheduler/outcomes/index.ts'])).toHaveLength(
      1,
    );
    expect(violations('src/scheduler/fire/fire-loop.ts', ['src/scheduler/index.ts'])).toHaveLength(1);
    expect(violations('src/insight/why.ts', [manager])).toHaveLength(1);
    expect(violations('src/insight/why.ts', ['src/scheduler/manager/index.ts'])).toHaveLength(1);
    expect(violations('test/scheduler/fire-loop.test.ts', ['src/scheduler/fire/fire-loop.ts'])).toEqual([]);
    expect(
      violations(manager, [
        'src/scheduler/fire/index.ts',
        'src/scheduler/contract/index.ts',
        'src/scheduler/manager/replica-role.ts',
      ]),
    ).toEqual([]);
  });
});
