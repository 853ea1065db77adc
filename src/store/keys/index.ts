// The door of src/store/keys/: what the store's other rooms use of it.

export { publishWake, subscribeTo, unsubscribeAll, WAKE_HANDOFF } from './channels.js';
export { hashTag, type Keys, keys, laneOf, occurrenceField, type RecordLane } from './keys.js';
export { checkPartitionCount } from './partition-count.js';
export { DEFAULT_CLUSTER_PARTITIONS, keySlot } from './partitions.js';
