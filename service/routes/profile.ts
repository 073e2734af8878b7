/** GET /v1/profiles/me and /v1/profiles/me/limits (spec/profile.ts). */
import { LIMIT_GROUPS } from '../../spec/index.js';
import type { GroupHandlers } from '../context.js';
import type { GroupState } from '../limits.js';

export const profileHandlers: GroupHandlers = {
  get_user_profile: ({ principal }) => {
    const p = principal!;
    const subscription = { status: 'active', plan: p.plan, period_start: null, period_end: null };
    if (p.org) return { profile: { identity_type: 'organization', id: p.org.id, subscription } };
    return { profile: { identity_type: 'user', id: p.userId, subscription, organization: null, suspended: false } };
  },
  get_rate_limit_status: ({ principal, services }) => {
    const p = principal!;
    const groups = Object.fromEntries(LIMIT_GROUPS.map((g) => [g, services.limiter.state(p.keyId, g)])) as Record<string, GroupState>;
    const news = groups.news!;
    const deep = groups.deepnews!;
    return {
      ...news,
      deepnews_request_rate: deep.request_rate,
      deepnews_request_rate_capacity: deep.request_rate_capacity,
      deepnews_request_rate_remaining: deep.request_rate_remaining,
      deepnews_retry_after: deep.retry_after,
      deepnews_concurrency_limit: deep.concurrency_limit,
      deepnews_concurrency_remaining: deep.concurrency_remaining,
      groups,
    };
  },
};
