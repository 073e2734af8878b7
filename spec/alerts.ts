/** Alerts under /v1/chat/alerts (../shared/spec/asknews-facts.md §9). */
import { z } from 'zod';
import { AlertCheckModel, AlertType, DeepNewsEngine, DeepNewsModel, DeepNewsSource, LEGACY_REPORT_MODELS } from './enums.js';
import { atMostJsonBytes, DateTime, DateTimeInput, FreeObject, INPUT_LIMITS, LookbackHours, record, UnixSeconds, Url, Uuid } from './common.js';
import { FilterParams } from './search.js';
import { EMAIL, HTTP_URL } from './patterns.js';
import { X_RULES, type CrossFieldRule } from './rules.js';

/**
 * Webhooks the API refuses at creation (422 on `triggers.N.params.url`): a host that is an address
 * literal of a network the fetch policy refuses, or localhost; names that resolve to such addresses
 * are refused at delivery. The networks and names are the server's own (its fetch policy, which the
 * check at creation applies): the document a server serves lists them in `hosts` and `names`
 * (buildOpenApi's `refusedHosts`), so the document and the check share one list.
 */
export const WEBHOOK_REFUSED_HOSTS: CrossFieldRule = {
  rule: 'refused-hosts',
  fields: ['url'],
  description:
    'a webhook URL whose host is an address literal of a network in `hosts` (loopback, private, link-local, CGNAT, the cloud metadata address, unspecified, ' +
    'multicast, reserved and documentation ranges, and the IPv6 forms that carry such an IPv4 address: IPv4-mapped, NAT64, 6to4) or a name in `names` ' +
    '(localhost and its subdomains) is refused (422 naming triggers.N.params.url), unless the server allows it (NEWSFLOW_FETCH_ALLOW)',
};

/**
 * Five-field cron (minute hour day-of-month month day-of-week) or a macro (`@daily`...). CRON (the
 * OpenAPI `pattern` of `cron`) says the shape: each field is a comma list of `*`, a value or a
 * range `a-b`, each with an optional step `/1` to `/99`; values are numbers in the field's range
 * (one leading zero allowed: `05`) or, for months and days of the week, their three-letter English
 * names in any case; fields are separated by spaces or tabs, which may also surround the whole.
 * One rule the pattern leaves to CRON_RULES (`x-newsflow-rules`): in a range a-b, a <= b (names
 * count as their numbers), as the scheduler (Temporal) refuses a reversed range.
 */
const CRON_FIELDS: { name: string; lo: number; hi: number; names?: string[] }[] = [
  { name: 'minute', lo: 0, hi: 59 },
  { name: 'hour', lo: 0, hi: 23 },
  { name: 'day of month', lo: 1, hi: 31 },
  { name: 'month', lo: 1, hi: 12, names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] },
  { name: 'day of week', lo: 0, hi: 7, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
];
const CRON_MACROS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];
/** `jan` -> `[Jj][Aa][Nn]` (no flags in a JSON Schema pattern) */
const anyCase = (w: string) => [...w].map((c) => `[${c.toUpperCase()}${c}]`).join('');
/** The integers lo..hi (0 <= lo <= hi <= 99) as a pattern; one-digit values may have a leading zero. */
function intRange(lo: number, hi: number): string {
  const alts: string[] = [];
  for (let tens = Math.floor(lo / 10); tens <= Math.floor(hi / 10); tens++) {
    const a = Math.max(lo, tens * 10) % 10;
    const b = Math.min(hi, tens * 10 + 9) % 10;
    const ones = a === b ? String(a) : `[${a}-${b}]`;
    alts.push(tens === 0 ? `0?${ones}` : `${tens}${ones}`);
  }
  return alts.join('|');
}
/** The number of a field's value (`05`, `mar`, `Sun`). */
const cronValue = (f: (typeof CRON_FIELDS)[number], v: string) => {
  const i = f.names?.indexOf(v.toLowerCase()) ?? -1;
  return i >= 0 ? i + (f.name === 'month' ? 1 : 0) : Number(v);
};
function fieldPattern(f: (typeof CRON_FIELDS)[number]): string {
  const value = `(?:${[intRange(f.lo, f.hi), ...(f.names ?? []).map(anyCase)].join('|')})`;
  const item = `(?:\\*|${value}(?:-${value})?)(?:/(?:0?[1-9]|[1-9][0-9]))?`;
  return `${item}(?:,${item})*`;
}
const FIELD_RES = CRON_FIELDS.map((f) => new RegExp(`^(?:${fieldPattern(f)})$`));
const SEP = '[ \\t]';
/** The shape of a cron of `Cron` (see above). */
export const CRON = new RegExp(`^${SEP}*(?:${CRON_MACROS.join('|')}|${CRON_FIELDS.map(fieldPattern).join(`${SEP}+`)})${SEP}*$`);
export const CRON_RULES: CrossFieldRule[] = [
  {
    rule: 'ascending-ranges',
    fields: ['cron'],
    description: 'in each range a-b of a cron field, a <= b (month and day names count as their numbers: jan = 1, sun = 0)',
  },
];

/** Why `expr` is not a cron (CRON, then CRON_RULES), or null when it is one. */
export function cronError(expr: string): string | null {
  const e = expr.replace(/^[ \t]+|[ \t]+$/g, '');
  if (e.startsWith('@')) return CRON_MACROS.includes(e) ? null : `cron macro "${e}" is not one of ${CRON_MACROS.join(', ')}`;
  const parts = e.split(/[ \t]+/);
  if (parts.length !== 5) return `cron must have 5 fields (minute hour day-of-month month day-of-week) separated by spaces, got ${parts.length}`;
  for (let i = 0; i < 5; i++) {
    const f = CRON_FIELDS[i]!;
    if (!FIELD_RES[i]!.test(parts[i]!)) {
      const names = f.names ? ` or ${f.names[0]}-${f.names[f.names.length - 1]}` : '';
      return `cron ${f.name} field "${parts[i]}" is not valid: a comma list of *, values ${f.lo}-${f.hi}${names} or ranges a-b, each with an optional step /1 to /99`;
    }
    for (const item of parts[i]!.split(',')) {
      const [a, b] = item.split('/')[0]!.split('-');
      if (b !== undefined && cronValue(f, a!) > cronValue(f, b)) return `cron ${f.name} range "${item}" is reversed`;
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
  })
  // the shape as the document's pattern; cronError is what the server checks (the same shape, then the ranges)
  .meta({
    pattern: CRON.source,
    description: 'Five-field cron (UTC) or a macro (@hourly, @daily, @weekly, @monthly, @yearly, @annually, @midnight)',
    [X_RULES]: CRON_RULES,
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
      params: z
        .object({
          url: Url.regex(HTTP_URL, 'webhook url must be an absolute http(s) URL (a host name, a dotted-quad IPv4 or a bracketed IPv6; no spaces)').meta({
            description:
              'absolute http(s) URL the alert runner POSTs to, under the fetch policy: public addresses only unless the server lists the address ' +
              '(NEWSFLOW_FETCH_ALLOW); redirects are not followed. A URL whose host is a non-public address literal or localhost is a 422 (x-newsflow-rules).',
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
        })
        .meta({ [X_RULES]: [WEBHOOK_REFUSED_HOSTS] }),
    }),
    z.object({
      action: z.literal('email'),
      params: z.object({
        to: z.string().regex(EMAIL, 'not an email address'),
        subject: z.string().nullable().optional(),
        asknews_watermark: z.boolean().default(true),
      }),
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
        emails: z.array(z.string().regex(EMAIL, 'not an email address')).nullable().optional(),
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
