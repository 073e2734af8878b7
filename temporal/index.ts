/**
 * temporal/: Temporal management, the room both the CLI (pipelines/) and the activities may import
 * (it imports lib/ only): the Temporal server a command talks to, what it takes to run one here,
 * and the schedules on it.
 * - schedules.ts: ScheduleDecl, planning and applying schedules (the CLI's and the alert sync's;
 *   imported as temporal/schedules.js, so that this index loads no Temporal client)
 * - endpoint.ts: which one (TEMPORAL_ADDRESS, else one of ours under the data dir)
 * - dev-server.ts: the Temporal CLI dev server (SQLite); temporal-cli.ts: finding its binary
 * - postgres-server.ts: the Temporal server on PostgreSQL (`newsflow temporal install` builds it)
 * - postgres.ts: PostgreSQL for it (NEWSFLOW_PG_URL, else a cluster of our own)
 * - ports.ts: free and preferred local ports; shutdown.ts: stopping what a command started
 * - types.ts: the endpoint and the errors they share
 */
export { temporalEndpoint } from './endpoint.js';
export { startDevServer, TEMPORAL_UI_PORT } from './dev-server.js';
export { findTemporalCli } from './temporal-cli.js';
export { installTemporalServer, serverDir, startPostgresTemporal, TEMPORAL_SERVER_VERSION } from './postgres-server.js';
export { pgBinDir, PostgresSetupError, startPostgres, type PgEndpoint } from './postgres.js';
export { freePort, preferredPort } from './ports.js';
export { atExit, atShutdown, stopOnSignals } from './shutdown.js';
export { RunFailedError, TemporalSetupError, type TemporalEndpoint } from './types.js';
