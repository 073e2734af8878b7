/**
 * Sentiment as an integer: the sum of AFINN-165 word scores (each word -5..+5, negation-aware,
 * via the `sentiment` package) over the headline and the first 1,500 characters of the body,
 * clamped to -10..+10. Negative < 0, neutral = 0, positive > 0 (the `sentiment` filter uses
 * exactly these signs). Finance words that AFINN mis-scores in news ("interest", "share") are
 * neutralised.
 */
import Sentiment from 'sentiment';

const analyzer = new Sentiment();
const NEWS_OVERRIDES = { interest: 0, interests: 0, share: 0, shares: 0, cancer: -2, crash: -2, fire: -1, fired: -2, critical: -1, breaking: 0, like: 0 };

export const SENTIMENT_RANGE = [-10, 10] as const;

export function sentimentScore(title: string, text: string): number {
  const r = analyzer.analyze(`${title}. ${text.slice(0, 1500)}`, { extras: NEWS_OVERRIDES });
  return Math.max(SENTIMENT_RANGE[0], Math.min(SENTIMENT_RANGE[1], Math.round(r.score)));
}

export function sentimentLabel(score: number): 'negative' | 'neutral' | 'positive' {
  return score < 0 ? 'negative' : score > 0 ? 'positive' : 'neutral';
}
