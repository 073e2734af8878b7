/** GET /v1/wiki/search: encyclopedia passages (service/wiki); loading through a running service (admin). */
import fs from 'node:fs';
import { ERROR_CODES } from '../../spec/index.js';
import type { GroupHandlers, RequestCtx } from '../context.js';
import { HttpError } from '../errors/index.js';

const store = (ctx: RequestCtx) => {
  if (!ctx.services.wiki) throw new HttpError(503, 503000, 'the encyclopedia store is not open in this service');
  return ctx.services.wiki;
};
const refuse = (msg: string) => new HttpError(422, ERROR_CODES.validation, [{ loc: ['body', 'path'], msg, type: 'value_error' }]);

export const wikiHandlers: GroupHandlers = {
  search_wiki: async (ctx) => {
    return { documents: await store(ctx).search(ctx.query) };
  },

  // `newsflow wiki load` while the service runs (admin token): the service loads, the CLI follows
  admin_wiki_load: async (ctx) => {
    const wiki = store(ctx);
    const { path } = ctx.body;
    if (!fs.existsSync(path)) throw refuse(`no such file or folder on the service's machine: ${path}`);
    if (!wiki.startLoad(path)) throw refuse(`a load is running (${wiki.loadStatus().path}); follow it with GET /v1/admin/wiki/load`);
    return wiki.loadStatus();
  },
  admin_wiki_load_status: async (ctx) => store(ctx).loadStatus(),
};
