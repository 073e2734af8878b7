/**
 * lib/feeds/parse.ts on the 56 real feeds and sitemaps of the shared folder: every item the
 * manifest counts, text in the right characters whatever the bytes declare, links absolute,
 * dates read; broken bytes refused with a reason.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FeedError, parseFeedBytes, parseFeedText } from '../../../lib/feeds/parse.js';
import { feedManifest, feedsDir } from '../../helpers/feed-server.js';

const read = (file: string) => fs.readFileSync(path.join(feedsDir, file));
const parse = (file: string, contentType?: string) => parseFeedBytes(read(file), contentType, `https://feeds.example/${file}`);

describe('parsing the 56 shared feed files', () => {
  it('finds every item the manifest counts, in every kind (a sitemap index: its sitemaps; a URL listed twice: once)', () => {
    const rows: string[] = [];
    for (const e of feedManifest()) {
      const feed = parse(e.file);
      const found = feed.kind === 'sitemapindex' ? feed.sitemaps.length : feed.items.length;
      rows.push(`${e.file}: ${feed.kind} ${found}/${e.items}`);
      // hukumonline's sitemap lists 3 of its 50 URLs twice
      expect(found, e.file).toBe(e.file === 'sitemap/hukumonline-news-sitemap.xml' ? 47 : e.items);
      expect(feed.kind, e.file).toBe(
        { rss2: 'rss', rdf: 'rdf', atom: 'atom', jsonfeed: 'json', sitemap: feed.kind === 'sitemapindex' ? 'sitemapindex' : 'sitemap' }[e.kind],
      );
      for (const item of feed.items) expect(item.url, `${e.file}: ${item.key}`).toMatch(/^https?:\/\/[^\s]+$/);
      expect(new Set(feed.items.map((i) => i.key)).size, e.file).toBe(feed.items.length);
    }
    expect(rows).toHaveLength(56);
  });

  it('reads the text of non-UTF-8 and misdeclared files in the right characters', () => {
    const title = (file: string) => parse(file).items[0]!.title;
    expect(title('rss2/oren-ru-windows-1251.xml')).toBe('В Бузулуке главные стройплощадки – детсад и Ледовый дворец');
    expect(title('rss2/kc0011-gb2312.rss')).toBe('建国35周年纪念，华表，和平鸽');
    expect(title('rss2/jornal-de-noticias-ultimas.rss')).toBe('Mãe de utente é a nova presidente da Raríssimas');
    // ISO-8859-1 without a declaration: detected
    expect(parse('rss2/uol-noticias.rss')).toMatchObject({ charset: 'windows-1252', charsetSource: 'detected' });
    expect(title('rss2/uol-noticias.rss')).toBe('Ibope: Bolsonaro perde de Haddad, Ciro e Alckmin em simulações de 2º turno');
    expect(title('rdf/golem-de.rdf')).toBe('Digitalministerium: Neue Glasfaserförderung mit Schnellkasse');
    // declared ISO-8859-1, UTF-8 bytes: read as UTF-8
    for (const f of ['rss2/finanzen-net-analysen.xml', 'rdf/laut-de-news.rdf', 'rss2/dailymail-ushome.xml'])
      expect(parse(f), f).toMatchObject({ charset: 'utf-8', charsetSource: 'detected' });
    expect(parse('rdf/laut-de-news.rdf').items[0]!.summary).toContain('Schon länger haderten die Kölner');
    // the header's charset is checked against the bytes too
    expect(parse('rss2/oren-ru-windows-1251.xml', 'application/rss+xml; charset=utf-8').items[0]!.title).toBe(
      'В Бузулуке главные стройплощадки – детсад и Ледовый дворец',
    );
  });

  it('makes links absolute: relative Atom links against the feed URL, Google Alerts redirects unwrapped, whitespace in sitemap URLs removed', () => {
    expect(parse('atom/tpm-all-news.atom').items[0]!.url).toBe(
      'https://feeds.example/livewire/hannity-announces-fox-hired-sebastian-gorka-national-security-strategist',
    );
    expect(parse('atom/google-alerts-slack.atom').items[0]!.url).toBe(
      'https://www.aglobalmarketresearch.com/report-offers-prediction-of-automotive-slack-market-by-top-key-players-like-haldex-meritor-bendix-mei-wabco-accuride-stemco-tbk-febi-aydinsan/',
    );
    expect(parse('sitemap/nytimes-news-sitemap.xml').items[0]!.url).toBe('https://www.nytimes.com/interactive/2020/05/11/magazine/quarantine-insanity.html');
    // the JSON Feed's own permalink, not the linked article
    expect(parse('jsonfeed/daringfireball.json').items[0]!.url).toBe('https://daringfireball.net/linked/2017/06/26/the-talk-show-195');
  });

  it('reads dates in the forms the feeds use as UTC, and leaves undated items undated', () => {
    const pub = (file: string) => parse(file).items[0]!.published;
    expect(pub('rss2/uol-noticias.rss')).toBe('2018-09-24T22:42:40.000Z'); // 'Seg, 24 Set 2018 19:42:40 -0300'
    expect(pub('rss2/nbc-new-york.xml')).toBe('2023-12-16T14:02:33.000Z'); // 'Sat, Dec 16 2023 02:02:33 PM'
    expect(pub('rss2/kc0011-gb2312.rss')).toBe('2020-01-10T14:33:00.000Z'); // '2020/1/10 14:33:00'
    expect(pub('atom/tpm-all-news.atom')).toBe('2017-11-08T23:15:58.000Z'); // '2017-11-08T18:15:58-05:00'
    expect(parse('rss2/japan-times.xml').items.every((i) => i.published === null)).toBe(true);
  });

  it('carries the feed fields indexing sends: summary as plain text, authors, language, and the polling hints', () => {
    const g = parse('rss2/guardian-us.rss');
    expect(g.items[0]).toMatchObject({ authors: ['David Smith in Washington'], language: 'en' });
    expect(g.items[0]!.summary).not.toMatch(/<[a-z]/i);
    expect(parse('rss2/oren-ru-windows-1251.xml').ttlMinutes).toBe(30);
    // sy:updatePeriod hourly, sy:updateFrequency 6
    expect(parse('rdf/laut-de-news.rdf').updateMinutes).toBe(10);
    expect(parse('sitemap/nytimes-news-sitemap.xml').items[0]).toMatchObject({
      language: 'en',
      title: 'Quarantine Was Driving Me Crazy — So I Decided to Lose My Mind on Purpose',
    });
  });

  it('refuses broken bytes with a reason: truncated XML, UTF-16 bytes declared UTF-8, JSON that is no feed, XML that is no feed', () => {
    const guardian = read('rss2/guardian-us.rss');
    const fail = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(FeedError);
        return e as FeedError;
      }
      throw new Error('no error');
    };
    const cut = fail(() => parseFeedBytes(guardian.subarray(0, 80_000), 'application/rss+xml', 'https://x.example/feed'));
    expect(cut.reason).toBe('not_well_formed');
    expect(cut.message).toMatch(/line \d+, column \d+/);
    const utf16 = Buffer.from(guardian.toString('utf8'), 'utf16le');
    expect(fail(() => parseFeedBytes(utf16, 'application/rss+xml; charset=utf-8', 'https://x.example/feed')).reason).toBe('not_well_formed');
    expect(fail(() => parseFeedText('{"hello": "world"}', 'https://x.example/feed')).reason).toBe('not_a_feed');
    expect(fail(() => parseFeedText('<html><body><p>a page</p></body></html>', 'https://x.example/feed')).reason).toBe('not_a_feed');
  });
});
