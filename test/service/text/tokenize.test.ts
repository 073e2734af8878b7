/** Index terms: CJK runs become character bigrams, so that part of a Chinese or Japanese title finds its text. */
import { describe, expect, it } from 'vitest';
import { Bm25Index } from '../../../service/search/bm25.js';
import { terms } from '../../../service/text/tokenize.js';

describe('terms', () => {
  it('indexes a Chinese run as its overlapping bigrams, the Latin word beside it as a word', () => {
    expect(terms('DeepMind新电脑已可学习', 'zh')).toEqual(['deepmind', '新电', '电脑', '脑已', '已可', '可学', '学习']);
  });

  it('indexes Japanese kanji and kana as bigrams, in whatever language the text is said to be', () => {
    const ja = terms('東京オリンピックが開幕した', 'ja');
    expect(ja).toContain('東京');
    expect(ja).toContain('開幕');
    expect(terms('東京オリンピックが開幕した', 'en')).toEqual(ja);
  });

  it('leaves Korean words and English stemming as they were', () => {
    // (folding decomposes Hangul syllables: composed again to compare)
    expect(terms('한국어 문장은 띄어쓰기를 한다', 'ko').map((t) => t.normalize('NFC'))).toEqual(['한국어', '문장은', '띄어쓰기를', '한다']);
    expect(terms('The running dogs', 'en')).toEqual(['run', 'dog']);
  });

  it('lets part of a Chinese or Japanese title find its article in a BM25 index', () => {
    const docs = [
      { text: '宇航员在太空中喝酒会怎么样？后果很严重。国际空间站上的宇航员不能喝酒。', lang: 'zh' },
      { text: '北京今天天气晴朗，气温适宜，适合出行。', lang: 'zh' },
      { text: '東京オリンピックの開会式が行われ、日本の選手団が入場しました。', lang: 'ja' },
      { text: 'The weather in London is mild today.', lang: 'en' },
    ];
    const index = new Bm25Index();
    docs.forEach((d, i) => index.add(i, terms(d.text, d.lang)));
    const top = (q: string) => {
      const r = index.score(terms(q, 'en'));
      return [...r.docs].sort((a, b) => r.scores[r.docs.indexOf(b)]! - r.scores[r.docs.indexOf(a)]!)[0];
    };
    expect(top('宇航员喝酒')).toBe(0);
    expect(top('北京天气')).toBe(1);
    expect(top('オリンピック開会式')).toBe(2);
  });
});
