import { createServer } from 'node:net';
import { ConfigError } from '../errors/index.js';

/**
 * Checks that `host:port` can be listened on, so that a port in use is a clear `ConfigError` naming
 * the setting rather than a failure deep inside the HTTP server. Port 0 always passes.
 */
export async function assertPortFree(host: string, port: number, setting: string): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => {
      const reason =
        error.code === 'EADDRINUSE'
          ? `port ${port} is already in use on ${host}`
          : error.code === 'EACCES'
            ? `not allowed to listen on port ${port}`
            : `cannot listen on ${host}:${port} (${error.code ?? error.message})`;
      reject(new ConfigError(setting, reason, { cause: error }));
    });
    server.listen(port, host, () => server.close(() => resolve()));
  });
}
