/** Wikitext to plain text by section, with wtf_wikipedia (templates, references and markup removed; tables and lists kept as lines). */
import wtf from 'wtf_wikipedia';
import type { WikiSection } from './model.js';
import { SKIPPED_SECTIONS } from './html.js';

export interface ParsedWikitext {
  sections: WikiSection[];
  categories: string[];
  links: string[];
  redirect: boolean;
}

/** A table as lines "Col: value; Col: value". */
function tableLines(rows: Record<string, { text?: string } | undefined>[]): string[] {
  const out: string[] = [];
  for (const row of rows) {
    const cells = Object.entries(row)
      .map(([k, v]) => [k, (v?.text ?? '').trim()] as const)
      .filter(([, v]) => v);
    if (cells.length) out.push(cells.map(([k, v]) => (/^col\d+$/.test(k) ? v : `${k}: ${v}`)).join('; '));
  }
  return out;
}

/** The parts of wtf_wikipedia's document we use (its typings disagree with its API on these). */
interface WtfSection {
  title(): string;
  depth(): number;
  text(): string;
  tables(): { json(): unknown }[];
}
interface WtfDoc {
  isRedirect(): boolean;
  sections(): WtfSection[];
  categories(): string[];
  links(): { page(): string | undefined }[];
}

export function parseWikitext(text: string): ParsedWikitext {
  const doc = wtf(text) as unknown as WtfDoc;
  const redirect = doc.isRedirect();
  const sections: WikiSection[] = [];
  const trail: string[] = [];
  let skipping = false;
  for (const s of doc.sections()) {
    const heading = s.title().trim();
    const level = heading ? s.depth() + 1 : 0;
    if (heading) {
      trail.length = Math.max(0, level - 1);
      trail[level - 1] = heading;
      if (level === 1) skipping = SKIPPED_SECTIONS.has(heading.toLowerCase());
    }
    if (skipping) continue;
    const parts = [s.text().trim()];
    for (const t of s.tables()) parts.push(tableLines(t.json() as never).join('\n'));
    const body = parts.filter(Boolean).join('\n');
    sections.push({ heading, path: heading ? trail.filter(Boolean).join(' > ') : '', level, text: body });
  }
  const links = [
    ...new Set(
      doc
        .links()
        .map((l) => l.page())
        .filter((p): p is string => !!p),
    ),
  ];
  return { sections, categories: doc.categories(), links, redirect };
}
