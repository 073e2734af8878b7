/** Handlers of every endpoint group; an operation without a handler answers 501. */
import { ROUTES } from '../../spec/index.js';
import { handlerOf, type GroupHandlers } from '../context.js';
import { pingHandlers } from './ping.js';
import { profileHandlers } from './profile.js';
import { newsHandlers } from './news.js';
import { distributionHandlers } from './distribution.js';
import { alertHandlers } from './alerts.js';
import { indexCountsHandlers } from './index-counts.js';
import { storiesHandlers } from './stories.js';
import { chatHandlers } from './chat.js';
import { byokHandlers } from './byok.js';
import { adminHandlers } from './admin.js';
import { deepnewsHandlers } from './deepnews.js';
import { graphHandlers } from './graph.js';
import { indexUrlsHandlers } from './index-urls.js';
import { websearchHandlers } from './websearch.js';
import { autofilterHandlers } from './autofilter.js';
import { chartsHandlers } from './charts.js';
import { forumHandlers } from './forum.js';
import { wikiHandlers } from './wiki.js';
import { forecastHandlers } from './forecast.js';

export const HANDLERS: GroupHandlers = {
  ...pingHandlers,
  ...profileHandlers,
  ...newsHandlers,
  ...distributionHandlers,
  ...alertHandlers,
  ...indexCountsHandlers,
  ...storiesHandlers,
  ...chatHandlers,
  ...byokHandlers,
  ...adminHandlers,
  ...deepnewsHandlers,
  ...graphHandlers,
  ...indexUrlsHandlers,
  ...websearchHandlers,
  ...autofilterHandlers,
  ...chartsHandlers,
  ...forumHandlers,
  ...wikiHandlers,
  ...forecastHandlers,
};

/** operationIds this server answers 501 for (the OpenAPI document lists their 501). */
export const NOT_IMPLEMENTED: string[] = ROUTES.filter((d) => !handlerOf(HANDLERS, d.operationId)).map((d) => d.operationId);
