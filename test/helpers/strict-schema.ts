/**
 * A strict client's view of a spec schema: the JSON Schema of its output with every object
 * closed (no keys beyond its properties), checked with ajv, as generated clients that forbid
 * extra fields do.
 */
import { z } from 'zod';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

type Json = Record<string, unknown>;

function close(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(close);
  if (v && typeof v === 'object') {
    const out: Json = {};
    for (const [k, x] of Object.entries(v)) out[k] = close(x);
    if (out.type === 'object' && out.properties) out.additionalProperties = false;
    return out;
  }
  return v;
}

/** A validator that rejects any key a schema does not name; returns the errors (empty when valid). */
export function strictValidator(schema: z.ZodType): (value: unknown) => string[] {
  const js = close(z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output', unrepresentable: 'any' })) as Json;
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  const validate = ajv.compile(js);
  return (value) => (validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`));
}
