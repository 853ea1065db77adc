// Interop: a plain BullMQ consumer, as another service (in any language BullMQ supports) would run
// it. It knows nothing of bullbeat: it consumes the `example-emails` queue, into which the example jobs
// module's `weekly-digest` schedule enqueues `send-digest` jobs without any local handler.
//   node dist/examples/email-service.js      (npm start runs it beside `bullbeat dev`)
import { Worker } from 'bullmq';

const url = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const connection = {
  host: url.hostname,
  port: Number(url.port || 6379),
  ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
  ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
  ...(url.pathname.length > 1 ? { db: Number(url.pathname.slice(1)) } : {}),
  maxRetriesPerRequest: null,
};

const worker = new Worker(
  'example-emails',
  async (job) => {
    // bullbeat puts the schedule's `data` on the job, beside its own occurrence fields.
    const data = job.data as { data?: { list?: string } };
    const list = data.data?.list ?? 'everyone';
    console.log(`email-service: sending the ${job.name} to "${list}" (job ${job.id})`);
    return { sent: true, list };
  },
  { connection, concurrency: 5 },
);
worker.on('error', (err) => console.error(`email-service: ${err.message}`));

const stop = async () => {
  await worker.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
console.log('email-service: consuming the "example-emails" queue (plain BullMQ, no bullbeat)');
