// The door of src/store/connection/: what the store's other rooms use of it.

export { BullCluster } from './bull-cluster.js';
export { DEFAULT_COMMAND_TIMEOUT_MS, withCommandTimeout } from './command-timeout.js';
export {
  bullConnection,
  type ClusterConnection,
  isCluster,
  openRedis,
  parseClusterNodes,
  queuePrefixFor,
  type RedisTarget,
  redisTarget,
  targetOfCluster,
} from './redis-target.js';
export { redisTime } from './redis-time.js';
export { connectionOfKey, type ReplicaAcksOptions, waitForReplicas } from './replica-acks.js';
export { type LuaScript, luaScript, sendScript, usesKeyPrefix } from './send-script.js';
