// A private Redis Cluster for the cluster tests: 3 masters + 3 replicas on free loopback ports, no
// persistence, in a temporary directory, made with `redis-cli --cluster create`. Each cluster test file
// starts its own (beforeAll) and stops it (afterAll): failover tests kill and promote nodes, which must
// not disturb other files running in parallel. Needs redis-server and redis-cli on PATH (as .ci/run has).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ping } from './redis-server.js';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function listenOn(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.on('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : undefined;
      server.close(() => resolve(bound));
    });
  });
}

/** A free port whose cluster bus port (port + 10000) is free too. */
async function freePort(): Promise<number> {
  for (;;) {
    const port = await listenOn(0);
    if (port !== undefined && port + 10000 <= 65535 && (await listenOn(port + 10000)) !== undefined)
      return port;
  }
}

/** One node: its port and process (replaced when restarted). */
export interface ClusterNodeProcess {
  port: number;
  child: ChildProcess;
}

export interface LocalCluster {
  /** `127.0.0.1:port,...` of every node (what REDIS_CLUSTER_NODES takes). */
  nodesText: string;
  nodes: ClusterNodeProcess[];
  /** `redis-cli -p port args...` → stdout. */
  cli(port: number, ...args: string[]): Promise<string>;
  /** Ports of the current masters, and of the replica of each (by master port). */
  roles(): Promise<{ masters: number[]; replicaOf: Map<number, number> }>;
  /** SIGKILL a node (a crashed master or replica). */
  kill(port: number): Promise<void>;
  /** Resolve when every slot is served again (`cluster_state:ok` on every live node). */
  waitOk(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Start a cluster of `masters` masters with one replica each. `nodeTimeoutMs`: cluster-node-timeout.
 * `nodeArgs`: each node's redis-server arguments (a compose file's), before the port, directory and
 * cluster settings the test gives each node (later arguments win).
 */
export async function startCluster(
  options: { masters?: number; nodeTimeoutMs?: number; nodeArgs?: readonly string[] } = {},
): Promise<LocalCluster> {
  const masters = options.masters ?? 3;
  const nodeTimeout = options.nodeTimeoutMs ?? 1500;
  const dir = mkdtempSync(join(tmpdir(), 'bullbeat-test-cluster-'));
  const nodes: ClusterNodeProcess[] = [];
  const start = (port: number) => {
    const own = join(dir, String(port));
    mkdirSync(own, { recursive: true });
    return spawn(
      'redis-server',
      [
        ...(options.nodeArgs ?? ['--save', '', '--appendonly', 'no']),
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-node-timeout',
        String(nodeTimeout),
        '--dir',
        own,
      ],
      { stdio: 'ignore' },
    );
  };
  for (let i = 0; i < masters * 2; i++) {
    const port = await freePort();
    nodes.push({ port, child: start(port) });
  }
  const cli = async (port: number, ...args: string[]) =>
    (await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args])).stdout;
  const stop = async () => {
    await Promise.all(
      nodes.map(async (n) => {
        if (n.child.exitCode === null && n.child.signalCode === null) {
          const exited = new Promise((resolve) => n.child.once('exit', resolve));
          n.child.kill('SIGKILL');
          await Promise.race([exited, sleep(3000)]);
        }
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  const alive = (n: ClusterNodeProcess) => n.child.exitCode === null && n.child.signalCode === null;
  const waitOk = async (timeoutMs = 30_000) => {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const states = await Promise.all(
        nodes.filter(alive).map((n) => cli(n.port, 'cluster', 'info').catch(() => '')),
      );
      if (states.every((s) => s.includes('cluster_state:ok'))) return;
      if (Date.now() > end) throw new Error(`redis cluster: not ok after ${timeoutMs} ms`);
      await sleep(100);
    }
  };
  try {
    for (const n of nodes) {
      let up = false;
      // a port found free can be taken before the node binds it (another cluster starting beside this
      // one): a node that exits is started again on another port
      for (let i = 0, restarts = 0; i < 100 && !up; i++) {
        if (!alive(n) && restarts++ < 5) {
          n.port = await freePort();
          n.child = start(n.port);
        }
        up = (await ping(`redis://127.0.0.1:${n.port}`, 500)) === 'ok';
        if (!up) await sleep(50);
      }
      if (!up) throw new Error(`redis cluster: node on port ${n.port} did not answer`);
    }
    await run('redis-cli', [
      '--cluster',
      'create',
      ...nodes.map((n) => `127.0.0.1:${n.port}`),
      '--cluster-replicas',
      '1',
      '--cluster-yes',
    ]);
    await waitOk();
    // every replica attached and synced: a failover test needs one to promote
    const end = Date.now() + 30_000;
    for (;;) {
      const infos = await Promise.all(nodes.map((n) => cli(n.port, 'info', 'replication')));
      const synced = infos.filter((i) => /role:slave/.test(i) && /master_link_status:up/.test(i)).length;
      if (synced === masters) break;
      if (Date.now() > end) throw new Error('redis cluster: replicas did not sync');
      await sleep(100);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    nodesText: nodes.map((n) => `127.0.0.1:${n.port}`).join(','),
    nodes,
    cli,
    async roles() {
      const text = await cli(nodes.find(alive)!.port, 'cluster', 'nodes');
      const byId = new Map<string, { port: number; master: string; flags: string }>();
      for (const line of text.trim().split('\n')) {
        const [id, addr, flags, master] = line.split(' ');
        byId.set(id!, { port: Number(addr!.split('@')[0]!.split(':')[1]), master: master!, flags: flags! });
      }
      const mastersNow: number[] = [];
      const replicaOf = new Map<number, number>();
      for (const n of byId.values()) {
        if (n.flags.includes('fail')) continue;
        if (n.flags.includes('master')) mastersNow.push(n.port);
        else if (n.master !== '-' && byId.has(n.master)) replicaOf.set(byId.get(n.master)!.port, n.port);
      }
      return { masters: mastersNow, replicaOf };
    },
    async kill(port) {
      const n = nodes.find((x) => x.port === port);
      if (!n || !alive(n)) return;
      const exited = new Promise((resolve) => n.child.once('exit', resolve));
      n.child.kill('SIGKILL');
      await exited;
    },
    waitOk,
    stop,
  };
}
