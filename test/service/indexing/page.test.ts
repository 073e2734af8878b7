/**
 * readPage (service/indexing/page.ts) on bodies of markup only, or none: it answers what the
 * reader answers of any page that is not an article (`skipped`, with the page's outline) and
 * never throws (a body without an element once did, in the outline's DOM). An ordinary page's
 * outline: its title, canonical, language and visible text, scripts and navigation left out.
 */
import { describe, expect, it } from 'vitest';
import { PAGE_TEXT_CHARS, readPage } from '../../../service/indexing/page.js';

const URL = 'https://a.example/x';

describe('readPage on a body of markup only', () => {
  const bodies: Record<string, string> = {
    '200,000 <': '<'.repeat(200_000),
    'one <': '<',
    empty: '',
    '<> pairs': '<>'.repeat(50_000),
    'unclosed tags': '<a href="x'.repeat(20_000),
    'nested divs': '<div>'.repeat(40_000),
    'open comments': '<!--'.repeat(50_000),
    'open scripts': '<script>'.repeat(25_000),
    '</ runs': '</'.repeat(50_000),
    'a doctype alone': '<!DOCTYPE html>',
  };
  for (const [name, body] of Object.entries(bodies))
    it(`${name}: not an article, the page's outline, no throw`, () => {
      const r = readPage(body, URL);
      expect(r.article).toBeNull();
      expect(r.skipped).toMatch(/^not an article: /);
      expect(r.title).toBe(URL);
      expect(r.text.length).toBeLessThanOrEqual(PAGE_TEXT_CHARS);
    });

  it('200,000 < is the text the page shows (a browser shows the run of <), cut at the page text bound', () => {
    const r = readPage('<'.repeat(200_000), URL);
    expect(r.text).toBe('<'.repeat(PAGE_TEXT_CHARS));
  });
});

describe("an ordinary page's outline", () => {
  it('title, canonical, site, language and visible text, one line a block; script, style, nav and forms left out', () => {
    const html = `<!DOCTYPE html><html lang="fr-FR"><head><title>Page  title</title>
      <meta property="og:site_name" content="Le Site"><link rel="Canonical" href="/canon">
      <script>var hidden = 1;</script><style>p { color: red }</style></head>
      <body><nav><a href="/">Accueil</a></nav><h1>Heading</h1><p>First   paragraph.</p><div>Second<br>line</div>
      <form><label>Search</label></form><noscript>Enable scripts</noscript><ul><li>one</li><li>two</li></ul></body></html>`;
    const r = readPage(html, URL);
    expect(r.article).toBeNull();
    expect(r).toMatchObject({ title: 'Page title', canonical: 'https://a.example/canon', siteName: 'Le Site', language: 'fr' });
    expect(r.text).toBe('Heading\nFirst paragraph.\nSecond\nline\none\ntwo');
  });
});
