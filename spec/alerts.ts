/** Alerts under /v1/chat/alerts (../shared/spec/asknews-facts.md §9). */
import { z } from 'zod';
import { AlertCheckModel, AlertType, DeepNewsEngine, DeepNewsModel, DeepNewsSource, LEGACY_REPORT_MODELS } from './enums.js';
import { atMostJsonBytes, DateTime, DateTimeInput, FreeObject, INPUT_LIMITS, LookbackHours, record, UnixSeconds, Url, Uuid } from './common.js';
import { FilterParams } from './search.js';

/** Five-field cron (minute hour day-of-month month day-of-week); checked field by field. */
const CRON_FIELDS: [string, number, number][] = [
  ['minute', 0, 59],
  ['hour', 0, 23],
  ['day of month', 1, 31],
  ['month', 1, 12],
  ['day of week', 0, 7],
];
const NAMES: Record<number, Record<string, number>> = {
  3: Object.fromEntries(['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'].map((m, i) => [m, i + 1])),
  4: Object.fromEntries(['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'].map((d, i) => [d, i])),
};
const MACROS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);
/** Returns an error message, or null when the expression is a valid cron. */
export function cronError(expr: string): string | null {
  const e = expr.trim();
  if (MACROS.has(e)) return null;
  const parts = e.split(/\s+/);
  if (parts.length !== 5) return `cron must have 5 fields (minute hour day-of-month month day-of-week), got ${parts.length}`;
  for (let i = 0; i < 5; i++) {
    const [name, lo, hi] = CRON_FIELDS[i]!;
    for (const item of parts[i]!.split(',')) {
      const m = /^(\*|([a-z0-9]+)(?:-([a-z0-9]+))?)(?:\/(\d+))?$/i.exec(item);
      if (!m) return `cron ${name} field "${parts[i]}" is not valid`;
      const val = (s: string) => {
        const n = NAMES[i]?.[s.toLowerCase()] ?? (/^\d+$/.test(s) ? Number(s) : NaN);
        return n;
      };
      for (const s of [m[2], m[3]].filter((x): x is string => x !== undefined)) {
        const n = val(s);
        if (!Number.isInteger(n) || n < lo || n > hi) return `cron ${name} value "${s}" is outside ${lo}-${hi}`;
      }
      if (m[3] !== undefined && val(m[2]!) > val(m[3])) return `cron ${name} range "${item}" is reversed`;
      if (m[4] !== undefined && Number(m[4]) === 0) return `cron ${name} step cannot be 0`;
    }
  }
  return null;
}
export const Cron = z
  .string()
  .max(INPUT_LIMITS.alertCronChars, { abort: true })
  .superRefine((v, ctx) => {
    const err = cronError(v);
    if (err) ctx.addIssue({ code: 'custom', message: err });
  });

/** An HTTP field name: a token (RFC 9110 section 5.1). */
export const HTTP_HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** An HTTP field value: no CR, LF, NUL or other control character but tab (RFC 9110 section 5.5). */
// eslint-disable-next-line no-control-regex -- the control characters are what the rule is about
export const HTTP_HEADER_VALUE = /^[^\u0000-\u0008\u000a-\u001f\u007f]*$/;
/**
 * Headers a webhook's `headers` cannot set: the transport's framing and hop-by-hop fields (RFC 9110
 * section 7.6.1, RFC 9112) and the delivery's own.
 */
export const WEBHOOK_FIXED_HEADERS = [
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'proxy-connection',
  'expect',
  'content-type',
  'idempotency-key',
  'user-agent',
] as const;
/** What the server refuses as a webhook host at creation (a 422 naming `triggers.N.params.url`). */
export const WEBHOOK_REFUSED_HOSTS =
  'address literals (any IPv4 form, IPv6, IPv4-mapped IPv6) of loopback, private, link-local, CGNAT, cloud metadata, unspecified, multicast, ' +
  'reserved and documentation ranges, and localhost, unless the server allows them (NEWSFLOW_FETCH_ALLOW)';

export const DeepNewsSourceParams = z.object({
  sources: z.union([DeepNewsSource, z.array(DeepNewsSource)]).default(['asknews', 'google', 'wiki', 'x']),
  filter_params: FilterParams.nullable().optional(),
  include_entities: z.boolean().default(true),
  include_graphs: z.boolean().default(false),
  include_coordinates: z.boolean().default(false),
  engine: DeepNewsEngine.exclude(['v2.0']).default('v1.5'),
  max_parallel_tool_calls: z.int().min(1).max(4).default(1),
  enable_source_pruning: z.boolean().default(false),
  cutoff_datetime: DateTimeInput.nullable().optional(),
  model: DeepNewsModel.nullable().default('gemini-3-flash'),
  search_depth: z.int().min(1).max(20).default(1),
  max_depth: z.int().min(1).max(40).default(4),
});
export const AlertSource = z
  .discriminatedUnion('identifier', [
    z.object({ identifier: z.literal('asknews'), params: FilterParams.nullable().optional() }),
    z.object({ identifier: z.literal('telegram'), params: z.object({ channel_name: z.string() }) }),
    z.object({ identifier: z.literal('bluesky'), params: z.object({ query: z.string().nullable().optional() }).nullable().optional() }),
    z.object({
      identifier: z.literal('web'),
      params: z.object({
        queries: z.array(z.string()).min(1),
        domains: z.array(z.string()).nullable().optional(),
        strict: z.boolean().default(true),
        lookback: LookbackHours.default(24),
      }),
    }),
    z.object({ identifier: z.literal('deepnews'), params: DeepNewsSourceParams.optional() }),
  ])
  .meta({ id: 'AlertSource' });

export const AlertTrigger = z
  .discriminatedUnion('action', [
    z.object({
      action: z.literal('webhook'),
      params: z.object({
        url: Url.pipe(z.url({ protocol: /^https?$/, error: 'webhook url must be an absolute http(s) URL' })).meta({
          description:
            'absolute http(s) URL the alert runner POSTs to, under the fetch policy: public addresses only unless the server lists the address ' +
            '(NEWSFLOW_FETCH_ALLOW); redirects are not followed. A URL whose host is a non-public address literal or localhost is a 422.',
          'x-newsflow-refused-hosts': WEBHOOK_REFUSED_HOSTS,
        }),
        headers: z
          .record(
            z.string().regex(HTTP_HEADER_NAME, 'not an HTTP header name'),
            z.string().regex(HTTP_HEADER_VALUE, 'an HTTP header value holds no control character'),
          )
          .nullable()
          .optional()
          .meta({ description: `sent with each POST, except ${WEBHOOK_FIXED_HEADERS.join(', ')}, which the delivery sets itself` }),
        payload: FreeObject.nullable().optional(),
      }),
    }),
    z.object({
      action: z.literal('email'),
      params: z.object({ to: z.email(), subject: z.string().nullable().optional(), asknews_watermark: z.boolean().default(true) }),
    }),
    z.object({
      action: z.literal('resend_broadcast'),
      params: z.object({
        sender: z.string(),
        reply_to: z
          .union([z.string(), z.array(z.string())])
          .nullable()
          .optional(),
        subject: z.string().nullable().optional(),
        audience_id: z.string(),
        resend_api_key: z.string(),
        asknews_watermark: z.boolean().default(true),
      }),
    }),
    z.object({
      action: z.literal('google_docs'),
      params: z.object({
        client_json: FreeObject,
        emails: z.array(z.email()).nullable().optional(),
        asknews_watermark: z.boolean().default(true),
      }),
    }),
  ])
  .meta({ id: 'AlertTrigger' });

const reportCommon = {
  logo_url: Url.nullable().optional(),
  include_appendix: z.boolean().nullable().default(false),
  asknews_watermark: z.boolean().default(true),
};
export const DeepNewsReportRequest = z.object({
  identifier: z.literal('deepnews').default('deepnews'),
  prompt: z.string(),
  params: DeepNewsSourceParams.extend({
    model: DeepNewsModel.nullable().default('claude-sonnet-5'),
    search_depth: z.int().min(1).max(190).default(2),
    max_depth: z.int().min(1).max(200).default(4),
    start_citation_number: z.int().default(1),
    journalist_mode: z.boolean().default(true),
  }).optional(),
  ...reportCommon,
});
export const LegacyReportRequest = z.object({
  identifier: z.literal('legacy'),
  model: z.enum(LEGACY_REPORT_MODELS).default('claude-sonnet-5'),
  ...reportCommon,
});
export const ReportRequest = z.union([DeepNewsReportRequest, LegacyReportRequest]);

/** Stored with the alert and sent back on every list page: bounded (INPUT_LIMITS). */
const AlertText = z.string().max(INPUT_LIMITS.alertTextChars);
const alertPart = <T extends z.ZodType>(s: T) => s.refine(...atMostJsonBytes(INPUT_LIMITS.alertPartBytes));
const alertFields = {
  query: AlertText.nullable().optional(),
  sources: alertPart(z.array(AlertSource)).nullable().optional(),
  alert_type: AlertType.nullable().optional(),
  model: AlertCheckModel.default('gpt-4o'),
  cron: Cron,
  triggers: alertPart(z.array(AlertTrigger)),
  always_trigger: z.boolean().default(false),
  repeat: z.boolean().default(true),
  active: z.boolean().default(true),
  expires_at: DateTimeInput.nullable().optional(),
  report: alertPart(z.union([ReportRequest, z.array(DeepNewsReportRequest)]))
    .nullable()
    .optional(),
  title: AlertText.nullable().optional(),
  share_link: Url.nullable().optional(),
};
/** Update fields carry no defaults: a field left out stays as it is. */
function unwrapDefault(s: z.ZodType): z.ZodType {
  return s instanceof z.ZodDefault ? (s.unwrap() as z.ZodType) : s;
}
export const CreateAlertRequest = z.object(alertFields).meta({ id: 'CreateAlertRequest' });
export type CreateAlertRequest = z.input<typeof CreateAlertRequest>;
export const UpdateAlertRequest = z
  .object(
    Object.fromEntries(
      Object.entries(alertFields).map(([k, s]) => [
        k,
        unwrapDefault(s as z.ZodType)
          .nullable()
          .optional(),
      ]),
    ) as { [K in keyof typeof alertFields]: z.ZodOptional<z.ZodNullable<z.ZodType>> },
  )
  .meta({ id: 'UpdateAlertRequest' });

/** alert_type overrides repeat / always_trigger (../shared/spec/asknews-facts.md §9.2). */
export const ALERT_TYPE_EFFECT = {
  AlwaysAlertWhen: { repeat: true, always_trigger: false },
  AlertOnceIf: { repeat: false, always_trigger: false },
  ReportAbout: { repeat: true, always_trigger: true },
} as const;

export const AlertResponse = record({
  id: Uuid,
  created_at: DateTime.nullable().optional(),
  updated_at: DateTime.nullable().optional(),
  expires_at: DateTime.nullable().optional(),
  user_id: Uuid,
  query: z.string().nullable().optional(),
  cron: z.string(),
  model: z.string().nullable(),
  share_link: z.string().nullable().optional(),
  sources: z.array(FreeObject).nullable().optional(),
  report: z
    .union([FreeObject, z.array(FreeObject)])
    .nullable()
    .optional(),
  triggers: z.array(FreeObject),
  always_trigger: z.boolean().default(false),
  repeat: z.boolean().default(true),
  active: z.boolean().default(true),
  alert_type: AlertType.nullable().optional(),
  title: z.string().nullable().optional(),
  seat_id: Uuid.nullable().optional(),
  api_key_id: z.string().nullable().optional(),
}).meta({ id: 'AlertResponse' });
export type AlertResponse = z.infer<typeof AlertResponse>;

export const AlertLog = record({
  id: Uuid,
  created_at: DateTime,
  alert_id: Uuid,
  user_id: Uuid,
  alert: z.boolean(),
  reasoning: z.string(),
  report: z.string().nullable().optional(),
  report_url: z.string().nullable().optional(),
  article_ids: z.array(Uuid),
  webhook: FreeObject.nullable().optional(),
}).meta({ id: 'AlertLog' });
export type AlertLog = z.infer<typeof AlertLog>;

export function Paginated<T extends z.ZodType>(item: T, id: string) {
  return record({
    items: z.array(item),
    count: z.int(),
    next_page: z.int().nullable(),
    previous_page: z.int().nullable(),
  }).meta({ id });
}
export const AlertsPage = Paginated(AlertResponse, 'PaginatedResponse_AlertResponse');
export const AlertLogsPage = Paginated(AlertLog, 'PaginatedResponse_AlertLog');

const paging = {
  page: z.int().min(1).default(1),
  per_page: z.int().min(1).max(100).default(10),
  all: z.boolean().default(false),
};
export const AlertsQuery = z.object({ user_id: Uuid.nullable().optional(), ...paging, include_deleted: z.boolean().default(false) });
export const AlertLogsQuery = z.object({
  alert_id: Uuid.nullable().optional(),
  user_id: Uuid.nullable().optional(),
  ...paging,
  start_timestamp: UnixSeconds.nullable().optional(),
  end_timestamp: UnixSeconds.nullable().optional(),
});
export const OneAlertLogsQuery = AlertLogsQuery.omit({ alert_id: true });
export const AlertPath = z.object({ alert_id: Uuid });
export const AlertGetQuery = z.object({ user_id: Uuid.nullable().optional() });
export const AlertRunQuery = z.object({ user_id: Uuid.nullable().optional(), is_test: z.boolean().default(false) });
