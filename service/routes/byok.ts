/** GET/PUT/DELETE /v1/byok/{provider}: the caller's own provider keys (enterprise plan, checked by the route table). */
import type { GroupHandlers, RequestCtx } from '../context.js';
import { notFound } from '../errors/index.js';
import { ownerOf, type ByokProviderName } from '../byok/store.js';

const who = (ctx: RequestCtx & { params: { provider: ByokProviderName } }) => ({ owner: ownerOf(ctx.principal!), provider: ctx.params.provider });

export const byokHandlers: GroupHandlers = {
  get_byok_key: async (ctx) => {
    const { owner, provider } = who(ctx);
    const hint = await ctx.services.byok.hint(owner, provider);
    if (hint === null) throw notFound(`no ${provider} key is stored for this ${ctx.principal!.org ? 'organization' : 'user'}`);
    return { provider, key_hint: hint };
  },
  upsert_byok_key: async (ctx) => {
    const { owner, provider } = who(ctx);
    const hint = await ctx.services.byok.put(owner, provider, ctx.body.api_key);
    return { provider, key_hint: hint };
  },
  delete_byok_key: async (ctx) => {
    const { owner, provider } = who(ctx);
    // idempotent: deleting a key that is not stored is also 204
    await ctx.services.byok.delete(owner, provider);
  },
};
