import { describe, expect, it } from 'vitest';
import { parseClusterNodes, queuePrefixFor, redisTarget } from '../../src/store/connection/redis-target.js';
import { keys } from '../../src/store/keys/keys.js';
import {
  crc16,
  DEFAULT_CLUSTER_PARTITIONS,
  keySlot,
  partitionOf,
  partitionTag,
} from '../../src/store/keys/partitions.js';

describe('partitions', () => {
  it("CRC16 and key slots are Redis Cluster's (values from CLUSTER KEYSLOT)", () => {
    expect(crc16('123456789')).toBe(0x31c3);
    expect(keySlot('foo')).toBe(12182);
    expect(keySlot('{user1000}.following')).toBe(keySlot('user1000'));
    expect(keySlot('foo{}{bar}')).toBe(keySlot('foo{}{bar}')); // an empty tag: the whole key
  });

  it('a schedule stays in one partition (stable hash of its id), spread evenly over the partitions', () => {
    expect(partitionOf('daily-report', 24)).toBe(partitionOf('daily-report', 24));
    expect(partitionOf('anything', 1)).toBe(0);
    const counts = new Array(24).fill(0);
    for (let i = 0; i < 24_000; i++) counts[partitionOf(`s${i}`, 24)]++;
    for (const n of counts) expect(Math.abs(n - 1000)).toBeLessThan(150);
  });

  it('partition tags do not depend on the process: the same prefix gives the same tags, each in its slot range', () => {
    for (let i = 0; i < 6; i++) {
      const tag = partitionTag('app', i, 6);
      expect(tag).toMatch(new RegExp(`^app:${i}(\\.\\d+)?$`));
      const slot = keySlot(`{${tag}}`);
      expect(slot).toBeGreaterThanOrEqual((i * 16384) / 6);
      expect(slot).toBeLessThan(((i + 1) * 16384) / 6);
    }
    expect(keys('{app}', 6).partition(2).base).toBe(`{${partitionTag('app', 2, 6)}}:bb`);
  });

  it('the default count is a power of two that spreads over 3 equal masters within 12.5 % of a third, whatever the prefix', () => {
    // a power of two: P tables of N/P entries round to the same size as one table of N (Redis sizes them in powers of 2)
    expect(Math.log2(DEFAULT_CLUSTER_PARTITIONS) % 1).toBe(0);
    const bounds = [5461, 10923, 16384]; // redis-cli --cluster create on 3 masters
    for (let t = 0; t < 200; t++) {
      const per = [0, 0, 0];
      for (let i = 0; i < DEFAULT_CLUSTER_PARTITIONS; i++) {
        const slot = keySlot(`{${partitionTag(`prefix-${t}`, i, DEFAULT_CLUSTER_PARTITIONS)}}`);
        per[bounds.findIndex((b) => slot < b)]!++;
      }
      for (const n of per)
        expect(Math.abs(n / (DEFAULT_CLUSTER_PARTITIONS / 3) - 1)).toBeLessThanOrEqual(0.125);
    }
  });

  it('one partition keeps the key names of earlier releases', () => {
    const k = keys('bullbeat');
    expect([k.schedules, k.state, k.due, k.totals, k.runs('x'), k.lease('x'), k.group('g'), k.fleet]).toEqual(
      [
        '{bullbeat}:bb:schedules',
        '{bullbeat}:bb:state',
        '{bullbeat}:bb:due',
        '{bullbeat}:bb:totals',
        '{bullbeat}:bb:runs:x',
        '{bullbeat}:bb:lease:x',
        '{bullbeat}:bb:group:g',
        '{bullbeat}:bb:fleet',
      ],
    );
    expect(k.partition(0)).toBe(k);
    expect(k.of('x')).toBe(k);
    expect(k.all()).toEqual([k]);
  });
});

describe('connecting to a cluster', () => {
  it('seed nodes: host:port or URLs; the first URL gives the password and TLS of all', () => {
    expect(parseClusterNodes('10.0.0.1:7000, 10.0.0.2:7001').nodes).toEqual([
      { host: '10.0.0.1', port: 7000 },
      { host: '10.0.0.2', port: 7001 },
    ]);
    const secure = parseClusterNodes('rediss://:s3cret@redis-1:6380,redis-2:6380');
    expect(secure.nodes).toEqual([
      { host: 'redis-1', port: 6380 },
      { host: 'redis-2', port: 6380 },
    ]);
    expect(secure.redisOptions.password).toBe('s3cret');
    expect(secure.redisOptions.tls).toEqual({});
    const target = redisTarget({ cluster: 'rediss://:s3cret@redis-1:6380' });
    expect(target.cluster?.nodes).toEqual([{ host: 'redis-1', port: 6380 }]);
    expect(target.password).toBe('s3cret');
    expect(target.maxRetriesPerRequest).toBeNull();
  });

  it('bad seed nodes are refused naming the setting and the node', () => {
    expect(() => parseClusterNodes('')).toThrow(/REDIS_CLUSTER_NODES: expected host:port/);
    expect(() => parseClusterNodes('a:1,b')).toThrow(/REDIS_CLUSTER_NODES: node 2 \("b"\) must be host:port/);
    expect(() => parseClusterNodes('http://a:1')).toThrow(/node 1 .* redis:\/\/ URL/);
    expect(() => redisTarget({ cluster: 'a:99999' })).toThrow(/connection\.cluster: node 1/);
  });

  it('a queue gets its own hash tag on a cluster, BullMQ default prefix on a single Redis', () => {
    expect(queuePrefixFor(redisTarget({ cluster: 'a:1' }), 'emails')).toBe('{bull:emails}');
    expect(queuePrefixFor(redisTarget('redis://a:1'), 'emails')).toBeUndefined();
  });
});
