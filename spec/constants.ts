/** Lists of the interface that need no schema (the CLI's help reads them without loading zod); enums.ts builds the schemas on them. */

/** Key scopes we issue. `analytics`, `internal`, `offline`, `openid` are accepted in OAuth requests and ignored. */
export const SCOPES = ['news', 'stories', 'chat', 'distribution', 'profile'] as const;

/** Plans in ascending order of tier (the interface's rate-limit page: Free < Pro < Analyst < Enterprise). */
export const PLANS = ['free', 'pro', 'analyst', 'enterprise'] as const;
