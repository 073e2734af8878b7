/**
 * The extractor over the Readability test pages of the shared folder (35 real pages): each page
 * is served from a loopback server, fetched through fetchPage, extracted, and scored against its
 * expected-metadata.json and expected.html. The figures are printed; the thresholds below are
 * the measured figures with a small margin (see docs/service.md, "Fetching pages"). The pipeline is also
 * scored against Readability alone with the article-extraction-benchmark's shingle F1
 * (bench/extract-score.ts), and on pages built from real markup: boilerplate boxes, JSON-LD
 * articleBody, CJK text in short paragraphs, a text page.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseHTML } from 'linkedom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractArticle, extractWithBoilerplate, isoUtc, splitByline, type ExtractResult } from '../../../service/fetch/extract.js';
import { meanScores, pageF1, readabilityAlone, shingleScore } from '../../../bench/extract-score.js';
import { htmlText } from '../../../bench/extract-pages.js';
import { fetchPage } from '../../../lib/fetch/fetcher.js';
import { parseFetchAllow } from '../../../lib/fetch/policy.js';
import { sharedDir } from '../../helpers/paths.js';
import { html, startPageServer, type PageServer } from '../../helpers/page-server.js';
import { norm, tokenF1, tokens } from '../../helpers/readability-pages.js';

const pagesDir = path.join(sharedDir, 'data/html/readability');
const names = fs
  .readdirSync(pagesDir)
  .filter((n) => fs.existsSync(path.join(pagesDir, n, 'source.html')))
  .sort();

interface Expected {
  title: string | null;
  byline: string | null;
  lang: string | null;
  publishedTime: string | null;
  readerable: boolean;
}

interface Scored {
  name: string;
  result: ExtractResult;
  expected: Expected;
  title?: boolean;
  byline?: boolean;
  pubDate?: boolean;
  f1?: number;
  /** the lines of the boilerplate removed from Readability's article */
  removed: Set<string>;
}

let server: PageServer;
const scored: Scored[] = [];

beforeAll(async () => {
  server = await startPageServer();
  for (const n of names) server.routes.set(`/${n}/`, html(fs.readFileSync(path.join(pagesDir, n, 'source.html'))));
  const policy = parseFetchAllow('127.0.0.1');
  for (const name of names) {
    const page = await fetchPage(`${server.origin}/${name}/`, { policy });
    const { result, boilerplate } = extractWithBoilerplate(page.html, page.url);
    const expected = JSON.parse(fs.readFileSync(path.join(pagesDir, name, 'expected-metadata.json'), 'utf8')) as Expected;
    const s: Scored = { name, result, expected, removed: new Set(boilerplate.flatMap((b) => b.split('\n')).map(norm)) };
    if (!('skipped' in result)) {
      s.title = norm(result.title) === norm(expected.title);
      if (expected.byline) {
        // every name we give is made of words of the expected byline, in order
        const byline = ` ${tokens(expected.byline).join(' ')} `;
        s.byline = result.authors.length > 0 && result.authors.every((a) => byline.includes(` ${tokens(a).join(' ')} `));
      }
      if (expected.publishedTime) s.pubDate = result.pub_date === isoUtc(expected.publishedTime);
      const { document } = parseHTML(`<!doctype html><html><body>${fs.readFileSync(path.join(pagesDir, name, 'expected.html'), 'utf8')}</body></html>`);
      // Readability's output keeps the boilerplate we remove (captions, newsletter lines...): the
      // text and what was removed, together, are scored against it
      s.f1 = tokenF1([result.text, ...boilerplate].join('\n'), document.body.textContent ?? '');
    }
    scored.push(s);
  }
  const articles = scored.filter((s) => s.f1 !== undefined);
  const pct = (xs: (boolean | undefined)[]) => {
    const judged = xs.filter((x) => x !== undefined);
    return `${judged.filter(Boolean).length}/${judged.length}`;
  };
  console.log(
    scored
      .map((s) =>
        'skipped' in s.result
          ? `${s.name.padEnd(18)} skipped: ${s.result.skipped}`
          : `${s.name.padEnd(18)} F1 ${s.f1!.toFixed(3)} title ${s.title ? 'ok' : 'NO'} byline ${s.byline === undefined ? '-' : s.byline ? 'ok' : 'NO'} pub_date ${s.pubDate === undefined ? '-' : s.pubDate ? 'ok' : 'NO'} lang ${s.result.language}`,
      )
      .join('\n'),
  );
  const f1s = articles.map((s) => s.f1!).sort((a, b) => a - b);
  console.log(
    `pages ${scored.length}, articles ${articles.length}, mean F1 ${(f1s.reduce((a, b) => a + b, 0) / f1s.length).toFixed(4)}, ` +
      `median F1 ${f1s[Math.floor(f1s.length / 2)]!.toFixed(3)}, min F1 ${f1s[0]!.toFixed(3)}, ` +
      `titles ${pct(articles.map((s) => s.title))}, bylines ${pct(articles.map((s) => s.byline))}, pub_dates ${pct(articles.map((s) => s.pubDate))}`,
  );
}, 120_000);

afterAll(async () => {
  await server.close();
});

const articles = () => scored.filter((s) => !('skipped' in s.result));
const expectedTextOf = (name: string) => htmlText(fs.readFileSync(path.join(pagesDir, name, 'expected.html'), 'utf8'));

describe('extractArticle over the Readability test pages', () => {
  it('reads all 35 pages through fetchPage', () => {
    expect(names).toHaveLength(35);
    expect(scored).toHaveLength(35);
  });

  it('skips no page with more than 200 words of article text (the yahoo-2 front page gives its featured story)', () => {
    const long = scored.filter((s) => (s.expected.readerable || tokens(expectedTextOf(s.name)).length > 200) && 'skipped' in s.result);
    expect(long.map((s) => s.name)).toEqual([]);
    const yahoo = scored.find((s) => s.name === 'yahoo-2')!;
    expect((yahoo.result as { text: string }).text).toContain('Progress MS-04');
  });

  it('scores at least as well as Readability alone (shingle F1) on every page it removed no boilerplate from, and else differs by that boilerplate only', () => {
    const rows = names.map((name) => {
      const source = fs.readFileSync(path.join(pagesDir, name, 'source.html'), 'utf8');
      const url = `https://pages.example/${name}/`;
      const reference = htmlText(fs.readFileSync(path.join(pagesDir, name, 'expected.html'), 'utf8'));
      const { result, boilerplate } = extractWithBoilerplate(source, url);
      const ours = 'skipped' in result ? '' : result.text;
      const theirs = readabilityAlone(source, url);
      return { name, text: ours, theirsText: theirs, ours: shingleScore(reference, ours), theirs: shingleScore(reference, theirs), boilerplate };
    });
    const ours = meanScores(rows.map((r) => r.ours));
    const theirs = meanScores(rows.map((r) => r.theirs));
    const clean = rows.filter((r) => !r.boilerplate.length);
    const oursClean = meanScores(clean.map((r) => r.ours));
    const theirsClean = meanScores(clean.map((r) => r.theirs));
    console.log(
      `shingle F1 on the ${rows.length} shared pages: pipeline ${ours.f1.toFixed(4)} (P ${ours.precision.toFixed(4)} R ${ours.recall.toFixed(4)}), ` +
        `Readability alone ${theirs.f1.toFixed(4)} (P ${theirs.precision.toFixed(4)} R ${theirs.recall.toFixed(4)}); on the ${clean.length} pages with no boilerplate removed: ` +
        `pipeline ${oursClean.f1.toFixed(4)}, Readability alone ${theirsClean.f1.toFixed(4)}; boilerplate removed on ` +
        rows
          .filter((r) => r.boilerplate.length)
          .map((r) => `${r.name} (${r.boilerplate.map((b) => JSON.stringify(b.replace(/\s+/g, ' ').trim().slice(0, 50))).join(', ')})`)
          .join('; '),
    );
    expect(oursClean.f1).toBeGreaterThanOrEqual(theirsClean.f1);
    for (const r of clean) expect(pageF1(r.ours), r.name).toBeGreaterThanOrEqual(pageF1(r.theirs));
    // where boilerplate went, every line Readability gives is in ours or in what was removed
    const flat = (t: string) => t.replace(/\s+/g, ' ').trim();
    for (const r of rows.filter((x) => x.boilerplate.length)) {
      const ourText = flat(r.text);
      const removed = r.boilerplate.map(flat);
      const lost = r.theirsText
        .split('\n')
        .map(flat)
        .filter((l) => l && !ourText.includes(l) && !removed.some((b) => b.includes(l)));
      expect(lost, r.name).toEqual([]);
    }
    for (const r of rows) expect(pageF1(r.ours), r.name).toBeGreaterThanOrEqual(0.9);
  });

  // expected.html is Readability's own output (on JSDOMParser): the text and the boilerplate removed
  // from it must come through our fetch, decoding and document nearly whole
  it('extracts the article text with a mean token F1 of at least 0.99 and none below 0.95', () => {
    const f1s = articles().map((s) => s.f1!);
    expect(f1s.reduce((a, b) => a + b, 0) / f1s.length).toBeGreaterThanOrEqual(0.99);
    expect(Math.min(...f1s)).toBeGreaterThanOrEqual(0.95);
  });

  it('matches the expected title on every article page', () => {
    expect(
      articles()
        .filter((s) => !s.title)
        .map((s) => s.name),
    ).toEqual([]);
  });

  it('finds the byline names where the page has a byline', () => {
    const judged = articles().filter((s) => s.byline !== undefined);
    expect(judged.length).toBeGreaterThan(20);
    expect(judged.filter((s) => !s.byline).map((s) => s.name)).toEqual([]);
  });

  it('gives the published time as ISO UTC where the page has one', () => {
    const judged = articles().filter((s) => s.pubDate !== undefined);
    expect(judged.length).toBeGreaterThan(5);
    expect(judged.filter((s) => !s.pubDate).map((s) => s.name)).toEqual([]);
    for (const s of articles()) {
      const d = (s.result as { pub_date: string | null }).pub_date;
      if (d !== null) expect(d).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    }
  });

  it('gives the language of each page as its primary subtag', () => {
    const wrong = articles().filter((s) => {
      const ours = (s.result as { language: string }).language;
      return s.expected.lang ? ours !== s.expected.lang.split('-')[0]!.toLowerCase() : ours === 'unknown';
    });
    expect(wrong.map((s) => s.name)).toEqual([]);
  });

  it('keeps the tables and lists of the pages that have them: a line per table row (cells apart) and per list item, but a list of links under a "See also" heading', () => {
    const withTables = ['lwn-1', 'wikipedia', 'wikipedia-2', 'wikipedia-3', 'wikipedia-4'];
    for (const name of withTables) {
      const s = scored.find((x) => x.name === name)!;
      const lines = new Set((s.result as { text: string }).text.split('\n').map(norm));
      const { document } = parseHTML(`<!doctype html><html><body>${fs.readFileSync(path.join(pagesDir, name, 'expected.html'), 'utf8')}</body></html>`);
      const rows = [...document.querySelectorAll('tr')]
        .filter((tr) => !tr.querySelector('table, li, p, div, br'))
        .map((tr) =>
          [...tr.children]
            .map((c) => norm(c.textContent))
            .filter(Boolean)
            .join(' '),
        )
        .filter((r) => r.length > 2);
      const items = [...document.querySelectorAll('li')]
        .filter((li) => !li.querySelector('li, p, div, table, br'))
        .map((li) => norm(li.textContent))
        .filter((t) => t.length > 2);
      expect(rows.length + items.length, name).toBeGreaterThan(0);
      // the list of links under a "See also" heading is removed as boilerplate (a list of related pages), no other
      const related = [...document.querySelectorAll('h2, h3')]
        .filter((h) => /^see also/i.test(norm(h.textContent)))
        .flatMap((h) => (h.nextElementSibling?.matches('ul, ol') ? [...h.nextElementSibling.querySelectorAll('li')].map((li) => norm(li.textContent)) : []));
      expect(
        related.filter((t) => lines.has(t) || !s.removed.has(t)),
        name,
      ).toEqual([]);
      expect(
        [...rows, ...items].filter((t) => !lines.has(t) && !related.includes(t)),
        name,
      ).toEqual([]);
    }
  });

  it('makes og:image absolute', () => {
    const withImage = articles().filter((s) => (s.result as { image_url: string | null }).image_url);
    expect(withImage.length).toBeGreaterThan(20);
    for (const s of withImage) expect((s.result as { image_url: string }).image_url).toMatch(/^https?:\/\//);
  });
});

describe('byline and date helpers', () => {
  it('splits a byline into names', () => {
    expect(splitByline('By Jane Doe, John Roe and Ann Poe')).toEqual(['Jane Doe', 'John Roe', 'Ann Poe']);
    expect(splitByline('Martin Untersinger (avec Damien Leloup et Morgane Tual)')).toEqual(['Martin Untersinger', 'Damien Leloup', 'Morgane Tual']);
    expect(splitByline('By Nathan Willis\n   March 25, 2015')).toEqual(['Nathan Willis']);
    expect(splitByline(null)).toEqual([]);
  });

  it('reads a time without zone as UTC and gives null for no time', () => {
    expect(isoUtc('2018-04-05T06:00')).toBe('2018-04-05T06:00:00.000Z');
    expect(isoUtc('2015-07-24T05:36:09+01:00')).toBe('2015-07-24T04:36:09.000Z');
    expect(isoUtc('2017-11-03 03:01:00.000000')).toBe('2017-11-03T03:01:00.000Z');
    expect(isoUtc('not a date')).toBeNull();
    expect(isoUtc(null)).toBeNull();
  });
});

describe('extractArticle on built pages', () => {
  const para = (s: string) => `<p>${s.repeat(6)}</p>`;
  const story = (head: string, body: string) => `<!doctype html><html${head}<body><article>${body}</article></body></html>`;

  it('makes the links and images of the article HTML absolute against the page URL', () => {
    const p = para('Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt. ');
    const r = extractArticle(
      story('><head><title>Story</title></head>', `${p}<p><a href="/rel/link">a link</a> <img src="img/a.png"></p>${p}${p}`),
      'https://news.example/2024/01/story.html',
    );
    expect('skipped' in r).toBe(false);
    const html = (r as { html: string }).html;
    expect(html).toContain('href="https://news.example/rel/link"');
    expect(html).toContain('src="https://news.example/2024/01/img/a.png"');
  });

  it('skips a listing of headlines as not an article', () => {
    const items = Array.from({ length: 30 }, (_, i) => `<li><a href="/story/${i}">Headline number ${i}</a></li>`).join('');
    const r = extractArticle(`<html><head><title>Latest</title></head><body><ul>${items}</ul></body></html>`, 'https://news.example/latest/');
    expect(r).toEqual({ skipped: expect.stringMatching(/^not an article/) });
  });

  it('detects the language when the page declares none, and reads JSON-LD datePublished and og:image', () => {
    const p = para(
      'Die Bundesregierung hat am Mittwoch ein neues Gesetz beschlossen, das die Förderung von Wärmepumpen neu regelt und vielen Haushalten helfen soll. ',
    );
    const head =
      '><head><title>Neues Gesetz</title><meta property="og:image" content="//cdn.example/pic.jpg">' +
      '<script type="application/ld+json">{"@graph":[{"@type":"WebPage"},{"@type":"NewsArticle","datePublished":"2024-03-06T10:15:00+01:00"}]}</script></head>';
    const r = extractArticle(story(head, p + p + p), 'https://zeitung.example/politik/gesetz.html');
    expect(r).toMatchObject({ language: 'de', pub_date: '2024-03-06T09:15:00.000Z', image_url: 'https://cdn.example/pic.jpg' });
  });
});

describe('extractArticle on pages built from real markup', () => {
  const ars = fs.readFileSync(path.join(pagesDir, 'ars-1', 'source.html'), 'utf8');
  /** ars-1 with markup inserted after the article's second paragraph */
  const arsWith = (markup: string) => {
    const at = ars.indexOf('</p>', ars.indexOf('Mojang has failed to act on it.')) + 4;
    return ars.slice(0, at) + markup + ars.slice(at);
  };
  const url = 'https://arstechnica.com/security/2015/04/minecraft-crash/';
  const textOf = (r: ExtractResult) => {
    expect(r).not.toHaveProperty('skipped');
    return (r as { text: string }).text;
  };

  it('removes the newsletter, cookie and related-stories boxes and the "Read more" line, and keeps tables and lists', () => {
    const page = arsWith(
      '<div class="newsletter-signup"><h3>Get the Ars Technica newsletter</h3><p>Sign up for our daily briefing of the top technology stories, delivered to your inbox.</p><form><input type="email"><button>Subscribe</button></form></div>' +
        '<p><strong>Read more:</strong> <a href="/security/2015/04/minecraft-patch/">Mojang patches a second Minecraft server flaw</a></p>' +
        '<aside class="related-stories"><h4>Related stories</h4><ul><li><a href="/gaming/1/">Minecraft sells its hundred millionth copy on PC</a></li><li><a href="/gaming/2/">Microsoft buys Mojang for two and a half billion dollars</a></li></ul></aside>' +
        '<div id="cookie-consent" class="cookie-banner"><p>We use cookies to improve your experience on our site. By continuing to browse you agree to our use of cookies.</p><button>Accept</button></div>' +
        '<table><tr><th>Server version</th><th>Status</th></tr><tr><td>1.8.3</td><td>vulnerable to the crash</td></tr><tr><td>1.8.4</td><td>patched by Mojang</td></tr></table>' +
        '<ul><li>Update every server to version 1.8.4</li><li>Limit the packets a client may send</li></ul>',
    );
    // Readability alone keeps the newsletter box and the "Read more" line
    const alone = readabilityAlone(page, url);
    expect(alone).toContain('daily briefing');
    expect(alone).toContain('Mojang patches a second');
    const text = textOf(extractArticle(page, url));
    for (const gone of ['daily briefing', 'Mojang patches a second', 'hundred millionth', 'use of cookies']) expect(text).not.toContain(gone);
    expect(text).toContain('A flaw in the wildly popular online game Minecraft');
    expect(text).toContain('1.8.3 vulnerable to the crash');
    expect(text).toMatch(/Update every server to version 1\.8\.4\n+Limit the packets a client may send/);
  });

  it('removes a list of other pages under its heading (in German too), lines that only work the page, copyright lines, navigation and boxes named in part for newsletters or authors', () => {
    const page = arsWith(
      '<h3>Mehr zum Thema</h3><ul><li><a href="/a/">Mojang streicht den Support für alte Server</a></li><li><a href="/b/">Microsoft kauft Mojang für 2,5 Milliarden Dollar</a></li></ul>' +
        '<p>Zurück zur Übersicht</p><p>Was this article helpful?</p>' +
        '<div class="c-native-newsletterbox"><p>Never miss a security story: our weekly digest lands in your inbox every Friday morning, free of charge.</p><form><input type="email"><button>Sign me up</button></form></div>' +
        '<div class="post-author-bio-content"><p>Dan Goodin is the Security Editor at Ars Technica, where he oversees coverage of malware and computer espionage.</p><p><a href="/author/dan-goodin/">More by Dan Goodin</a></p></div>' +
        '<nav><a href="/prev/">Previous story</a> <a href="/next/">Next story</a></nav>' +
        '<p>© 2015 Condé Nast. All rights reserved.</p>' +
        '<p>Server owners who cannot update right away can limit the size of the packets a client may send, the researcher said.</p>',
    );
    const alone = readabilityAlone(page, url);
    expect(alone).toContain('Mehr zum Thema');
    expect(alone).toContain('Zurück zur Übersicht');
    const { result, boilerplate } = extractWithBoilerplate(page, url);
    const text = textOf(result);
    for (const gone of [
      'Mehr zum Thema',
      'Support für alte Server',
      '2,5 Milliarden',
      'Zurück zur Übersicht',
      'Was this article helpful',
      'weekly digest',
      'Security Editor',
      'Previous story',
      'Condé Nast',
    ])
      expect(text).not.toContain(gone);
    expect(boilerplate.join('\n')).toContain('Support für alte Server');
    // the paragraph after the links is the article's again
    expect(text).toContain('Server owners who cannot update right away');
    expect(text).toContain('A flaw in the wildly popular online game Minecraft');
  });

  it('uses the JSON-LD articleBody when the page builds its article by script', () => {
    const body = [
      'The city council voted on Tuesday to expand the tram network to the northern districts, a project that has been debated for more than a decade.',
      'The first line is due to open in 2027 and will connect the central station with the university campus and the new housing estates.',
      'Opponents argued that the money would be better spent on buses, which can be rerouted as the city grows, while supporters pointed to the lower running costs of trams.',
      'The regional government has promised to cover half of the cost, estimated at 420 million euros, if construction starts before the end of next year.',
    ].join('\n');
    const ld = JSON.stringify({ '@context': 'https://schema.org', '@type': 'NewsArticle', headline: 'Council backs tram extension', articleBody: body });
    const page = `<!doctype html><html lang="en"><head><title>Council backs tram extension</title><script type="application/ld+json">${ld}</script></head><body><header><nav><a href="/">Home</a> <a href="/city/">City</a></nav></header><div id="app"><h1>Council backs tram extension</h1><p>Loading…</p></div><footer>© City Paper</footer></body></html>`;
    const text = textOf(extractArticle(page, 'https://citypaper.example/city/tram-extension'));
    expect(text.split('\n\n')).toEqual(body.split('\n'));
  });

  it('reads a Chinese article written in short paragraphs (isProbablyReaderable said no)', () => {
    const paras = [
      '国际空间站上的宇航员不能喝酒。',
      '酒精会影响判断，在失重环境下后果很严重。',
      '专家说，太空中的身体反应和地面不同。',
      '宇航员每天要做很多实验，需要保持清醒。',
      '此前曾有宇航员带酒上天，引起争议。',
      '航天机构现在严格禁止在太空饮酒。',
      '不过，俄罗斯宇航员在和平号空间站上曾经喝过少量白兰地。',
      '美国航空航天局的规定更加严格，任何含酒精的物品都不能带上飞船。',
      '就连漱口水和某些药品中的酒精也受到限制，因为酒精会干扰空间站的水回收系统。',
      '科学家认为，未来长期的火星任务中，宇航员的饮食和心理健康将成为新的课题。',
    ];
    const page = `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><title>宇航员在太空中喝酒会怎么样</title></head><body><div class="nav"><a href="/">首页</a></div><div class="article"><h1>宇航员在太空中喝酒会怎么样</h1>${paras.map((p) => `<p>${p}</p>`).join('')}</div></body></html>`;
    const text = textOf(extractArticle(page, 'https://tech.example.cn/2017/05/astronauts.html'));
    for (const p of paras) expect(text).toContain(p);
  });

  it('reads the copy of its article that a page built by script gives in <noscript>', () => {
    const paragraphs = [
      'Over the past few years the threats on the web have become more sophisticated, and a warning that comes an hour late protects no one.',
      'The browser now checks the pages a reader opens against a list kept up to date in real time, and the check does not reveal which page was opened.',
      'Readers who turn the protection on are warned about phishing pages before the page has loaded, the team said.',
    ];
    const page = `<!doctype html><html lang="en"><head><title>Faster protection in the browser</title></head><body><div id="app"></div><script>render()</script><noscript><article><h1>Faster protection in the browser</h1>${paragraphs.map((p) => `<p>${p}</p>`).join('')}</article></noscript></body></html>`;
    expect(readabilityAlone(page, 'https://blog.example/2020/05/protection.html')).toBe('');
    const r = extractArticle(page, 'https://blog.example/2020/05/protection.html');
    expect(textOf(r).split('\n\n')).toEqual(paragraphs);
    expect(r).toMatchObject({ title: 'Faster protection in the browser', language: 'en' });
  });

  it('reads a page that is text with no markup as its text', () => {
    const text = Array.from({ length: 12 }, (_, i) => `Paragraph ${i + 1} of a plain text page that a server sends as HTML, with enough words to read.`).join(
      '\n\n',
    );
    expect(textOf(extractArticle(text, 'https://plain.example/notes.txt'))).toBe(text);
  });
});
