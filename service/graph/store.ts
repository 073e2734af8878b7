/**
 * Stored graphs behind their capability ids. `visualize_url` and `triples_url` are opened by
 * browsers, which send no API key: the graph's id is the capability (a random UUID, 122 bits from
 * the OS CSPRNG, never derived from the request), and the stored graph expires after
 * GRAPH_LIMITS.ttlHours. An unknown or expired id is a 404; expired rows are deleted when the
 * next graph is saved.
 */
import crypto from 'node:crypto';
import { GRAPH_LIMITS } from '../../spec/index.js';
import type { Db } from '../store/db.js';
import type { Graph } from './builder.js';

export interface StoredGraph {
  graphId: string;
  query: string;
  graph: Graph;
  createdAt: Date;
  expiresAt: Date;
}

export class GraphStore {
  constructor(
    private readonly db: Db,
    private readonly clock: () => number = Date.now,
  ) {}

  async save(graph: Graph, o: { query: string; keyId: string | null; ttlMs?: number }): Promise<StoredGraph> {
    const now = this.clock();
    const graphId = crypto.randomUUID();
    const createdAt = new Date(now);
    const expiresAt = new Date(now + (o.ttlMs ?? GRAPH_LIMITS.ttlHours * 3_600_000));
    await this.db.run('DELETE FROM graphs WHERE expires_at <= make_timestamp($1::BIGINT)', [now * 1000]);
    await this.db.run('INSERT INTO graphs VALUES ($1::UUID, $2, $3, $4::JSON, make_timestamp($5::BIGINT), make_timestamp($6::BIGINT))', [
      graphId,
      o.keyId,
      o.query,
      JSON.stringify(graph),
      createdAt.getTime() * 1000,
      expiresAt.getTime() * 1000,
    ]);
    return { graphId, query: o.query, graph, createdAt, expiresAt };
  }

  /** The graph, or null when the id is unknown or its graph expired. */
  async get(graphId: string): Promise<StoredGraph | null> {
    const r = await this.db.one<{ query: string; graph: string; created_us: bigint | number; expires_us: bigint | number }>(
      'SELECT query, graph::VARCHAR AS graph, epoch_us(created_at) AS created_us, epoch_us(expires_at) AS expires_us FROM graphs WHERE graph_id = $1::UUID',
      [graphId.toLowerCase()],
    );
    if (!r) return null;
    const expiresAt = new Date(Number(r.expires_us) / 1000);
    if (expiresAt.getTime() <= this.clock()) return null;
    return { graphId: graphId.toLowerCase(), query: r.query, graph: JSON.parse(r.graph) as Graph, createdAt: new Date(Number(r.created_us) / 1000), expiresAt };
  }
}
