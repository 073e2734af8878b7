/**
 * Where the Temporal worker's log goes: every record as one JSON line to `<data dir>/logs/worker.log`;
 * on stderr, with --verbose everything, else errors only on a terminal (the command prints its own
 * progress and retry lines) and one compact JSON line per info record when stderr is not a terminal
 * (a log collector). The webpack report of the workflow bundle goes to the file only, unless --verbose.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { LogLevel, LogMetadata, Logger } from '@temporalio/common';

const RANK: Record<LogLevel, number> = { TRACE: 0, DEBUG: 1, INFO: 2, WARN: 3, ERROR: 4 };

const replacer = (_k: string, v: unknown) =>
  v instanceof Error ? { name: v.name, message: v.message, stack: v.stack } : typeof v === 'bigint' ? String(v) : v;
function line(level: LogLevel, message: string, meta?: LogMetadata): string {
  try {
    return JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...meta }, replacer);
  } catch {
    return JSON.stringify({ time: new Date().toISOString(), level, msg: message, meta: String(meta) });
  }
}

export const workerLogFile = (dataDir: string) => path.join(dataDir, 'logs', 'worker.log');

export class WorkerLog implements Logger {
  private readonly fd: number;
  readonly file: string;

  /** `quiet`: errors only on stderr even when it is not a terminal (the main job prints its own status) */
  constructor(
    dataDir: string,
    private readonly opts: { verbose?: boolean; quiet?: boolean; stream?: NodeJS.WriteStream } = {},
  ) {
    this.file = workerLogFile(dataDir);
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    this.fd = fs.openSync(this.file, 'a');
  }

  private write(level: LogLevel, message: string, meta: LogMetadata | undefined, terminal: boolean) {
    if (RANK[level] < RANK.INFO) return;
    const json = line(level, message, meta);
    fs.writeSync(this.fd, `${json}\n`);
    const stream = this.opts.stream ?? process.stderr;
    if (!terminal) return;
    if (this.opts.verbose)
      stream.write(`${new Date().toISOString()} [${level}] ${message}${meta && Object.keys(meta).length ? ` ${JSON.stringify(meta, replacer)}` : ''}\n`);
    else if (stream.isTTY || this.opts.quiet ? RANK[level] >= RANK.ERROR : true) stream.write(`${json}\n`);
  }

  log(level: LogLevel, message: string, meta?: LogMetadata) {
    this.write(level, message, meta, true);
  }
  trace(message: string, meta?: LogMetadata) {
    this.log('TRACE', message, meta);
  }
  debug(message: string, meta?: LogMetadata) {
    this.log('DEBUG', message, meta);
  }
  info(message: string, meta?: LogMetadata) {
    this.log('INFO', message, meta);
  }
  warn(message: string, meta?: LogMetadata) {
    this.log('WARN', message, meta);
  }
  error(message: string, meta?: LogMetadata) {
    this.log('ERROR', message, meta);
  }

  /** For the bundler: its report goes to the file, and to stderr only with --verbose (errors always). */
  readonly bundler: Logger = {
    log: (level, message, meta) => this.write(level, message, meta, Boolean(this.opts.verbose) || RANK[level] >= RANK.ERROR),
    trace: (m, meta) => this.bundler.log('TRACE', m, meta),
    debug: (m, meta) => this.bundler.log('DEBUG', m, meta),
    info: (m, meta) => this.bundler.log('INFO', m, meta),
    warn: (m, meta) => this.bundler.log('WARN', m, meta),
    error: (m, meta) => this.bundler.log('ERROR', m, meta),
  };
}
