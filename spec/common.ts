/** Small building blocks shared by the resource and parameter schemas. */
import { z } from 'zod';

/** A query parameter that may be given once or repeated (`k=a&k=b`). */
export function oneOrMany<T extends z.ZodType>(item: T) {
  return z.union([item, z.array(item)]);
}
/** Repeated query parameter that is always an array once parsed. */
export function many<T extends z.ZodType>(item: T) {
  return z.array(item);
}
export const Uuid = z.uuid();
export const DateTime = z.iso.datetime({ offset: true });
export const Url = z.string().min(1).max(2083);
/** Unix seconds. */
export const UnixSeconds = z.int().min(0);
/** A record of the hosted API: extra fields are kept, never an error. */
export const record = z.looseObject;
export const FreeObject = z.record(z.string(), z.unknown());

export function normaliseList<T>(v: T | T[] | null | undefined): T[] | undefined {
  if (v === undefined || v === null) return undefined;
  return Array.isArray(v) ? v : [v];
}
