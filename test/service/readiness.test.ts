/** /readyz's default checks: the store open, and the news index loaded (a background open reports its progress until it is). */
import { describe, expect, it } from 'vitest';
import { defaultReadiness } from '../../service/app.js';
import type { Services } from '../../service/context.js';

describe('default readiness', () => {
  it('is not ready while the news index loads in the background, naming how far it is', () => {
    const news = { ready: false, progress: { placed: 250, indexed: 1000 } };
    const r = defaultReadiness({ db: {}, news } as unknown as Services);
    expect(r.report()).toEqual({
      ready: false,
      checks: { store: { ready: true }, index: { ready: false, detail: 'the news index is loading: 250 of 1000 articles placed' } },
    });
    news.ready = true;
    expect(r.report()).toEqual({ ready: true, checks: { store: { ready: true }, index: { ready: true } } });
    expect(defaultReadiness({ db: {} } as unknown as Services).report().checks.index).toEqual({ ready: false, detail: 'no news store opened' });
  });
});
