/** Chat completions, DeepNews and their stream chunks (../shared/spec/asknews-facts.md §11). */
import { z } from 'zod';
import {
  DEFAULT_CHAT_MODEL,
  DEFAULT_DEEPNEWS_MODEL,
  DeepNewsEngine,
  DeepNewsModel,
  DeepNewsModelType,
  DeepNewsSource,
  InlineCitations,
  Continent,
  IndexCountCategory,
  Language,
  ProvocativeFilter,
  ReportingVoiceFilter,
  Sampling,
  SentimentFilter,
  StringOp,
  TimeFilter,
} from './enums.js';
import { DateTime, DateTimeInput, FreeObject, FreeObjectInput, record } from './common.js';
import { SearchResponseDictItem, WebSearchResult } from './article.js';
import { EntityGuaranteeItem, FilterParams } from './search.js';
import { X_RULES } from './rules.js';

export const ChatMessage = z
  .object({
    role: z.enum(['system', 'user', 'assistant']),
    content: z.string(),
    name: z.string().nullable().optional(),
    function_call: FreeObjectInput.nullable().optional(),
  })
  .meta({ id: 'ChatMessage' });
export type ChatMessage = z.infer<typeof ChatMessage>;

/**
 * The size of a chat or DeepNews conversation in one request (the interface sets none), bounded
 * in work and not only in bytes: at most maxMessages messages (422 on `messages`) whose contents
 * hold at most maxChars characters in all (422 on `messages`). The service then works on the
 * newest turns only (service/chat: HISTORY_TOKENS), so the cost of a request does not grow with
 * its history.
 */
export const CHAT_LIMITS = { maxMessages: 1000, maxChars: 500_000 } as const;
const totalChars = (ms: { content: string }[]) => ms.reduce((n, m) => n + m.content.length, 0);
/** The messages of a chat or DeepNews request, within CHAT_LIMITS. */
export const ChatMessages = z
  .array(ChatMessage)
  .min(1)
  .max(CHAT_LIMITS.maxMessages, { abort: true })
  .refine((ms) => totalChars(ms) <= CHAT_LIMITS.maxChars, {
    message: `the contents of the messages hold more than ${CHAT_LIMITS.maxChars} characters in all`,
  })
  .meta({
    [X_RULES]: [
      {
        rule: 'max-total-length',
        fields: ['messages'],
        property: 'content',
        max: CHAT_LIMITS.maxChars,
        description: `the contents of the messages hold at most ${CHAT_LIMITS.maxChars} characters in all (422 on messages)`,
      },
    ],
  });

/** Most choices (`n`) one chat or DeepNews request may ask for (the interface sets no maximum). */
export const CHAT_MAX_CHOICES = 8;

const samplingShape = {
  temperature: z.number().default(0.9),
  top_p: z.number().default(1),
  /** answers are written one after another: bounded so one request cannot hold a worker for long */
  n: z.int().min(1).max(CHAT_MAX_CHOICES).default(1),
  stream: z.boolean().default(false),
  stop: z
    .union([z.string(), z.array(z.string())])
    .nullable()
    .optional(),
  max_tokens: z.int().min(1).default(9999),
  presence_penalty: z.int().default(0),
  frequency_penalty: z.int().default(0),
  user: z.string().nullable().optional(),
};

export const ChatCompletionRequest = z
  .looseObject({
    messages: ChatMessages,
    model: z.string().default(DEFAULT_CHAT_MODEL),
    ...samplingShape,
    thread_id: z.string().nullable().optional(),
    inline_citations: InlineCitations.default('markdown_link'),
    append_references: z.boolean().default(true),
    journalist_mode: z.boolean().default(true),
    asknews_watermark: z.boolean().default(true),
    conversational_awareness: z.boolean().default(true),
    filter_params: FilterParams.nullable().optional(),
  })
  .meta({ id: 'CreateChatCompletionRequest' });
export type ChatCompletionRequest = z.input<typeof ChatCompletionRequest>;

export const ChatUsage = z.object({ prompt_tokens: z.int(), completion_tokens: z.int(), total_tokens: z.int() });
const Delta = z.looseObject({
  role: z.string().optional(),
  content: z.string().optional(),
  name: z.string().nullable().optional(),
  function_call: FreeObject.nullable().optional(),
});

export const ChatCompletionResponse = record({
  id: z.string(),
  created: z.int(),
  object: z.string().default('chat.completion'),
  model: z.string().default(DEFAULT_CHAT_MODEL),
  usage: ChatUsage,
  choices: z.array(z.object({ index: z.int(), message: ChatMessage, finish_reason: z.string().nullable() })),
}).meta({ id: 'CreateChatCompletionResponse' });
export type ChatCompletionResponse = z.infer<typeof ChatCompletionResponse>;

export const ChatCompletionChunk = record({
  id: z.string(),
  created: z.int(),
  object: z.string().default('chat.completion.chunk'),
  model: z.string().default(DEFAULT_CHAT_MODEL),
  usage: ChatUsage,
  choices: z.array(z.object({ index: z.int(), delta: Delta, finish_reason: z.string().nullable() })),
}).meta({ id: 'CreateChatCompletionResponseStream' });

/** In-stream error event (../shared/spec/asknews-facts.md §2.4). */
export const StreamError = z.object({ error: z.object({ message: z.string(), code: z.int() }) }).meta({ id: 'StreamError' });

export const DeepNewsRequest = z
  .looseObject({
    messages: ChatMessages,
    model: DeepNewsModel.nullable().default(DEFAULT_DEEPNEWS_MODEL),
    filter_params: FilterParams.nullable().optional(),
    search_depth: z.int().min(1).max(190).default(2),
    max_depth: z.int().min(1).max(200).default(6),
    sources: z.union([DeepNewsSource, z.array(DeepNewsSource)]).default('asknews'),
    inline_citations: InlineCitations.default('markdown_link'),
    start_citation_number: z.int().default(1),
    return_sources: z.boolean().default(true),
    only_cited_sources: z.boolean().default(true),
    append_references: z.boolean().default(true),
    journalist_mode: z.boolean().default(true),
    conversational_awareness: z.boolean().default(true),
    include_entities: z.boolean().default(true),
    include_graphs: z.boolean().default(false),
    include_coordinates: z.boolean().default(false),
    asknews_watermark: z.boolean().default(true),
    ...samplingShape,
    thread_id: z.string().nullable().optional(),
    max_parallel_tool_calls: z.int().min(1).max(4).default(1),
    engine: DeepNewsEngine.default('v1.5'),
    enable_source_pruning: z.boolean().default(false),
    cutoff_datetime: DateTimeInput.nullable().optional(),
  })
  .meta({ id: 'CreateDeepNewsRequest' });
export type DeepNewsRequest = z.input<typeof DeepNewsRequest>;

export const DeepNewsUsage = ChatUsage.extend({ tool_usage: z.record(z.string(), z.int()).nullable().optional() });
export const DeepNewsSources = z
  .object({
    news: z.array(SearchResponseDictItem).nullable().optional(),
    web: z.array(WebSearchResult).nullable().optional(),
    /** ChartResponse items (PY DeepNewsSources; ../shared/spec/asknews-facts.md §11.5) */
    charts: z.array(FreeObject).nullable().optional(),
  })
  .meta({ id: 'DeepNewsResponseSources' });

export const DeepNewsResponse = record({
  id: z.string(),
  created: z.int(),
  object: z.string().default('chat.completion'),
  model: z.string().default(DEFAULT_DEEPNEWS_MODEL),
  usage: DeepNewsUsage,
  choices: z.array(z.object({ index: z.int(), message: ChatMessage, finish_reason: z.string().nullable() })),
  sources: DeepNewsSources,
}).meta({ id: 'CreateDeepNewsResponse' });
export type DeepNewsResponse = z.infer<typeof DeepNewsResponse>;

/** Engine v2.0 typed delta events. */
export const ContentBlock = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('thinking'), thinking: z.string() }),
  z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: FreeObject.optional() }),
]);
export const ContentBlockDelta = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text_delta'), text: z.string() }),
  z.object({ type: z.literal('thinking_delta'), thinking: z.string() }),
  z.object({ type: z.literal('input_json_delta'), partial_json: z.string() }),
]);
export const DeepNewsV2Event = z.discriminatedUnion('type', [
  z.object({ type: z.literal('message_start'), role: z.literal('assistant') }),
  z.object({ type: z.literal('content_block_start'), index: z.int(), content_block: ContentBlock }),
  z.object({ type: z.literal('content_block_delta'), index: z.int(), delta: ContentBlockDelta }),
  z.object({ type: z.literal('content_block_stop'), index: z.int() }),
  z.object({ type: z.literal('message_stop') }),
]);

export const DeepNewsStreamChunk = record({
  id: z.string(),
  created: z.int(),
  object: z.literal('chat.completion.chunk'),
  model: z.string().default(DEFAULT_DEEPNEWS_MODEL),
  usage: DeepNewsUsage,
  choices: z.array(z.object({ index: z.int(), delta: z.union([DeepNewsV2Event, Delta]), finish_reason: z.string().nullable() })),
}).meta({ id: 'CreateDeepNewsResponseStreamChunk' });

export const DeepNewsStreamSource = record({
  id: z.string(),
  created: z.int(),
  object: z.literal('chat.completion.source'),
  source: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('news'), data: SearchResponseDictItem }),
    z.object({ kind: z.literal('web'), data: WebSearchResult }),
    z.object({ kind: z.literal('graph'), data: z.string() }),
    z.object({ kind: z.literal('chart'), data: FreeObject }),
  ]),
}).meta({ id: 'CreateDeepNewsResponseStreamSource' });
export const DeepNewsStreamEvent = z.union([DeepNewsStreamChunk, DeepNewsStreamSource]);

export const DeepNewsModelsResponse = record({
  models: z.array(
    z.looseObject({
      model: DeepNewsModel.or(z.string()),
      type: DeepNewsModelType.or(z.string()),
      /** extension: a real model of this name can run on this service (else the extractive writer answers) */
      available: z.boolean().optional(),
      /** extension: the model that would write a report asked of this one */
      served_by: z.string().optional(),
    }),
  ),
}).meta({ id: 'ListDeepNewsModelResponse' });

/** GET /v1/openai/models (../shared/spec/asknews-facts.md §11.3; called by the official Python and TypeScript clients). */
export const ModelsResponse = record({
  object: z.literal('list'),
  data: z.array(record({ id: z.string(), object: z.literal('model'), created: z.int(), owned_by: z.string() })),
}).meta({ id: 'ListModelResponse' });

/**
 * POST /v1/chat/charts (../shared/spec/asknews-facts.md §11.5; an endpoint of the official SDKs after 0.32.4): a question
 * becomes ChartParameters, answered with a plotly figure of index counts (GET /v1/index_counts).
 */
export const CHART_TYPES = ['line', 'bar', 'bar_pct'] as const;
export const ChartType = z.enum(CHART_TYPES);
/** Most characters of a chart question (a newsflow limit; the hosted API states none). */
export const CHART_QUERY_MAX = 1000;
/** Most series one chart draws (a newsflow limit). */
export const CHART_MAX_SERIES = 8;
/** One series: an index-count request (GET /v1/index_counts parameters, `domains` included). */
export const SeriesConfig = record({
  name: z.string(),
  start_datetime: DateTime,
  end_datetime: DateTime,
  sampling: Sampling.default('1d'),
  time_filter: TimeFilter.default('pub_date'),
  categories: z.array(IndexCountCategory).nullable().optional(),
  domains: z.array(z.string()).nullable().optional(),
  bad_domain_url: z.array(z.string()).nullable().optional(),
  page_rank: z.int().nullable().optional(),
  string_guarantee: z.array(z.string()).nullable().optional(),
  string_guarantee_op: StringOp.default('OR'),
  reverse_string_guarantee: z.array(z.string()).nullable().optional(),
  entity_guarantee: z.array(EntityGuaranteeItem).nullable().optional(),
  entity_guarantee_op: StringOp.default('OR'),
  countries: z.array(z.string().length(2)).nullable().optional(),
  countries_blacklist: z.array(z.string().length(2)).nullable().optional(),
  continents: z.array(Continent).nullable().optional(),
  languages: z.array(Language).nullable().optional(),
  sentiment: SentimentFilter.nullable().optional(),
  reporting_voice: z.array(ReportingVoiceFilter).nullable().optional(),
  provocative: ProvocativeFilter.default('all'),
}).meta({ id: 'SeriesConfig' });
export type SeriesConfig = z.output<typeof SeriesConfig>;
export const ChartParameters = record({
  chart_type: ChartType,
  title: z.string().nullable().optional(),
  series: z.array(SeriesConfig),
}).meta({ id: 'ChartParameters' });
export type ChartParameters = z.output<typeof ChartParameters>;
export const CreateChartRequest = z
  .object({
    query: z.string().min(1).max(CHART_QUERY_MAX).describe('The question to chart, e.g. "Ukraine vs Russia coverage over the last month"'),
    /** newsflow extension: search filters applied to every series (what DeepNews passes) */
    filter_params: FilterParams.nullable().optional(),
  })
  .meta({ id: 'CreateChartRequest' });
export const ChartResponse = record({
  success: z.boolean(),
  /** the plotly figure as JSON (`data` traces and `layout`) */
  chart_json: FreeObject,
  query: z.string().nullable().optional(),
  reasoning: z.string().nullable().optional(),
  parameters: ChartParameters.nullable().optional(),
  context: FreeObject.nullable().optional(),
  iterations_used: z.int().nullable().optional(),
  last_reasoning: z.string().nullable().optional(),
  last_parameters: ChartParameters.nullable().optional(),
  png_data: z.string().nullable().optional(),
  png_url: z.string().nullable().optional(),
  chart_url: z.string().nullable().optional(),
}).meta({ id: 'ChartResponse' });
export type ChartResponse = z.output<typeof ChartResponse>;

/** SSE framing (../shared/spec/asknews-facts.md §11.1). */
export const SSE = { contentType: 'text/event-stream', done: '[DONE]' } as const;
