/** Start the service: open the store, build the app, listen. */
import type { FastifyInstance } from 'fastify';
import { Db } from './store/db.js';
import { KeyStore } from './auth/keys.js';
import { RateLimiter } from './limits.js';
import { serviceConfig, storeFile, type ServiceConfig } from './config.js';
import { buildApp, type AppOptions } from './app.js';
import type { Services } from './context.js';

export interface RunningService {
  app: FastifyInstance;
  services: Services;
  url: string;
  close(): Promise<void>;
}

export async function openServices(config: ServiceConfig, db?: Db): Promise<Services> {
  const store = db ?? (await Db.open(storeFile(config.dataDir)));
  return { db: store, keys: new KeyStore(store), limiter: new RateLimiter(config.limits), config };
}

export async function startService(
  opts: Partial<ServiceConfig> & { limitsText?: string; services?: Services } & AppOptions = {},
): Promise<RunningService> {
  const config = opts.services?.config ?? serviceConfig(opts);
  const services = opts.services ?? (await openServices(config));
  const app = await buildApp(services, opts);
  const address = await app.listen({ port: config.port, host: config.host });
  const url = address.replace('[::1]', '127.0.0.1');
  let closed = false;
  return {
    app,
    services,
    url,
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      if (!opts.services) services.db.close();
    },
  };
}
