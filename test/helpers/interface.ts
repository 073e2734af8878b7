/** Facts read from the interface document itself, so the tests follow the source, not our copy. */
import fs from 'node:fs';
import path from 'node:path';
import { sharedDir } from './paths.js';

export const interfaceText = () => fs.readFileSync(path.join(sharedDir, 'spec', 'interface-v0.32.4.md'), 'utf8');

/** Every "METHOD /v1/..." the interface names, plus ping at "/" (`ping` in spec/routes.ts). */
export function interfaceOperations(): { method: string; path: string }[] {
  const seen = new Map<string, { method: string; path: string }>();
  for (const m of interfaceText().matchAll(/\b(GET|POST|PUT|DELETE) (\/v1\/[^\s|*()`]*[^\s|*()`.,;])/g)) {
    seen.set(`${m[1]} ${m[2]}`, { method: m[1]!, path: m[2]! });
  }
  seen.set('GET /', { method: 'GET', path: '/' });
  return [...seen.values()];
}

/** Rows of the first table after a heading that starts with `heading`. */
export function tableAfter(heading: string): string[][] {
  const text = interfaceText();
  const at = text.indexOf(heading);
  if (at < 0) throw new Error(`heading not found: ${heading}`);
  const lines = text.slice(at).split('\n');
  const rows: string[][] = [];
  let inTable = false;
  for (const line of lines.slice(1)) {
    if (line.startsWith('|')) {
      inTable = true;
      const cells = line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim());
      if (!cells.every((c) => /^-+$/.test(c))) rows.push(cells);
    } else if (inTable) break;
  }
  return rows.slice(1); // drop the header row
}

export function samplePath(p: string): string {
  const values: Record<string, string> = {
    article_id: '00000000-0000-4000-8000-000000000001',
    alert_id: '00000000-0000-4000-8000-000000000002',
    story_id: 'some-story',
    name: 'acme.com',
    provider: 'anthropic',
  };
  return p.replace(/\{([^}]+)\}/g, (_, k: string) => values[k] ?? 'x');
}
