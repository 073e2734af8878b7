/**
 * Rules between fields that JSON Schema cannot say, written beside the zod check that enforces
 * them and published in the OpenAPI document as `x-newsflow-rules`: on an operation for its
 * query parameters, on a body schema for its own fields. Each names its kind and fields and
 * says in words what the server checks, so a person, a client generator or a fuzzer (the
 * Schemathesis hooks of test/fuzz/hooks.py read them) knows which schema-valid requests the
 * server still refuses with 422, and why.
 */
export const X_RULES = 'x-newsflow-rules';

export type CrossFieldRule =
  /** fields[1] is not before fields[0] when both are given (date-times, or Unix seconds) */
  | { rule: 'not-before'; fields: [string, string]; description: string }
  /** both Unix-second fields fall in one UTC calendar month */
  | { rule: 'same-utc-month'; fields: [string, string]; description: string }
  /** either every field is given (not null) or none is */
  | { rule: 'all-or-none'; fields: string[]; description: string }
  /** the field is JSON text of `contentSchema` (contentMediaType), each ring closed: its first point equals its last */
  | { rule: 'closed-rings'; fields: [string]; description: string }
  /**
   * index counts: the buckets of fields[2] (sampling) that meet [fields[0], fields[1]) number at
   * most `max` (a missing end is the server's now; a missing start is `defaults[sampling] - 1`
   * buckets before the end's), and the last one ends by 9999-12-31T23:59:59.999Z
   */
  | { rule: 'max-buckets'; fields: [string, string, string]; max: number; defaults: Record<string, number>; description: string }
  /** the strings `property` of the items of fields[0] hold at most `max` characters in all */
  | { rule: 'max-total-length'; fields: [string]; property: string; max: number; description: string }
  /** in each range `a-b` of the cron fields[0], a <= b (month and day names count as their numbers) */
  | { rule: 'ascending-ranges'; fields: [string]; description: string }
  /**
   * a URL whose host is an address literal in one of the networks `hosts` (CIDR) or one of the
   * names `names` (`*.` a name's subdomains) is refused (422 naming it); the lists are the
   * server's (its fetch policy), filled in by buildOpenApi's `refusedHosts`
   */
  | { rule: 'refused-hosts'; fields: [string]; hosts?: string[]; names?: string[]; description: string };

export const notBefore = (start: string, end: string): CrossFieldRule => ({
  rule: 'not-before',
  fields: [start, end],
  description: `${end} is not before ${start} when both are given`,
});
export const inOneUtcMonth = (start: string, end: string): CrossFieldRule => ({
  rule: 'same-utc-month',
  fields: [start, end],
  description: `${start} and ${end} (Unix seconds) fall in one UTC calendar month`,
});
export const allOrNone = (...fields: string[]): CrossFieldRule => ({
  rule: 'all-or-none',
  fields,
  description: `${fields.join(', ')} are given together (all of them, not null) or not at all`,
});
