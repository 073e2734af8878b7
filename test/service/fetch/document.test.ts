/**
 * The light DOM extraction reads (service/fetch/document.ts): what a page shows is in it, as a
 * browser nests it; what it never shows is not.
 */
import { describe, expect, it } from 'vitest';
import { elementsOf, holds, parseDocument } from '../../../service/fetch/document.js';

describe('parseDocument', () => {
  it('leaves out comments, scripts, styles, templates and the inside of an svg, but keeps JSON-LD', () => {
    const doc = parseDocument(
      '<html><head><title>A  title</title><style>p{color:red}</style><script>var a = "<p>not text</p>";</script></head>' +
        '<body><p>one<svg><path></path><title>Icon</title><g><path/></g></svg>two</p><template><p>hidden</p></template>' +
        '<div>three<!-- a comment --></div><script type="application/ld+json">{"@type":"NewsArticle"}</script></body></html>',
      'https://news.example/a',
    );
    expect(doc.title).toBe('A title');
    expect(doc.body.innerHTML).toBe('<p>one<svg></svg>two</p><div>three</div><script type="application/ld+json">{"@type":"NewsArticle"}</script>');
  });

  it('closes what the markup leaves open as browsers do, and decodes entities in text and attributes', () => {
    const doc = parseDocument('<body><ul><li>first<li>second &amp; third</ul><p>para one<p>para two<a href="/x?a=1&amp;b=2">link</a></body>');
    expect(elementsOf(doc, new Set(['LI'])).map((li) => li.textContent)).toEqual(['first', 'second & third']);
    expect(elementsOf(doc, new Set(['P'])).map((p) => p.textContent)).toEqual(['para one', 'para twolink']);
    expect(doc.getElementsByTagName('a')[0]!.getAttribute('href')).toBe('/x?a=1&b=2');
  });

  it('puts a fragment or bare text into the body', () => {
    const doc = parseDocument('just some text, no markup');
    expect(doc.body.textContent).toBe('just some text, no markup');
    expect(holds(doc.body, new Set(['P', 'DIV']))).toBe(false);
  });
});
