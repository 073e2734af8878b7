/** `newsflow sql`: one query, or a REPL on stdin, on the lake attached read-only (optionally as it was after a load). */
import fs from 'node:fs';
import readline from 'node:readline';
import { formatRows, openReader, writeParquet, type SqlFormat } from '../../warehouse/read.js';
import { currentProject, lakeOf } from '../config/current.js';

/**
 * Run `query` (or each line of stdin until `.exit` or `\q`) and print its rows in `format`, to
 * `out` when given; an error prints its first line. False when the one query failed.
 */
export async function sqlShell(o: { warehouseDir: string; query?: string; format: SqlFormat; out?: string; at?: string }): Promise<boolean> {
  const db = await openReader(o.warehouseDir, { at: o.at, lake: lakeOf(currentProject() ?? { lake: {} }) });
  const runOne = async (q: string) => {
    try {
      if (o.format === 'parquet') {
        const n = await writeParquet(db, q, o.out!);
        console.error(`${n} rows -> ${o.out}`);
        return true;
      }
      const out = formatRows(await db.all(q), o.format);
      if (o.out) fs.writeFileSync(o.out, out);
      else process.stdout.write(out);
      return true;
    } catch (e) {
      console.error(`error: ${(e as Error).message.split('\n')[0]}`);
      return false;
    }
  };
  try {
    if (o.query) return await runOne(o.query);
    const rl = readline.createInterface({ input: process.stdin, output: process.stdout, prompt: 'newsflow> ' });
    rl.prompt();
    for await (const line of rl) {
      if (line.trim() === '.exit' || line.trim() === '\\q') break;
      if (line.trim()) await runOne(line);
      rl.prompt();
    }
    return true;
  } finally {
    db.close();
  }
}
