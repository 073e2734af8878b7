/** Wiring shared by the CLI commands that talk to Temporal: connection, client, warehouse, worker. */
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NewsClient } from '../client/index.js';
import { Warehouse } from '../warehouse/warehouse.js';
import { createWorkers } from './worker.js';
import { temporalEndpoint, type TemporalEndpoint } from './temporal.js';

export const warehouseDir = (dataDir: string) => path.resolve(process.env.NEWSFLOW_WAREHOUSE_DIR ?? dataDir);

export async function temporalClient(ep: TemporalEndpoint): Promise<Client> {
  return new Client({ connection: await Connection.connect({ address: ep.address }), namespace: ep.namespace });
}

export async function startWorker(opts: { endpoint: TemporalEndpoint; dataDir: string; apiUrl?: string; apiKey?: string }) {
  const warehouse = await Warehouse.open(warehouseDir(opts.dataDir));
  const client = new NewsClient({ baseUrl: opts.apiUrl, apiKey: opts.apiKey });
  const workers = await createWorkers({ address: opts.endpoint.address, namespace: opts.endpoint.namespace, client, warehouse });
  const running = workers.run();
  return {
    warehouse,
    running,
    async stop() {
      workers.shutdown();
      await running;
      await client.close();
      warehouse.close();
    },
  };
}

export { temporalEndpoint };
