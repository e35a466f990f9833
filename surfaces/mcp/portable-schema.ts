// Turns a tool's bundled REST input schema into the portable subset every mainstream client's model
// accepts: one `type` per property, no `$ref`/`$defs`, no combinators, `enum` for closed
// vocabularies, every property described in the tool itself. The core still validates every call
// against the full REST schema, so what this leaves out (nullability, bounds of other types) is
// checked there, never loosened.

import type { JsonSchema } from '../../src/schemas/registry.js';

/**
 * The keywords kept: the fields of Gemini's function-declaration Schema (the narrowest of the
 * mainstream clients; https://ai.google.dev/api/caching#Schema) minus `anyOf` and `nullable`.
 * Everything else (`additionalProperties`, `uniqueItems`, `exclusiveMinimum`, `const`, ...) is
 * either rewritten below or left to the core's validation.
 */
export const PORTABLE_KEYWORDS = new Set([
  'type',
  'format',
  'title',
  'description',
  'enum',
  'properties',
  'required',
  'items',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'default',
]);

/** String formats Gemini takes (same page: "only enum and date-time"); others are dropped, the description names the value. */
const PORTABLE_FORMATS = new Set(['date-time', 'enum']);

/** Keywords that only mean something for one type: a property narrowed to another type drops them. */
const FOR_TYPE: Record<string, string> = {
  minLength: 'string',
  maxLength: 'string',
  pattern: 'string',
  format: 'string',
  minimum: 'number',
  maximum: 'number',
  items: 'array',
  minItems: 'array',
  maxItems: 'array',
  properties: 'object',
  required: 'object',
  minProperties: 'object',
  maxProperties: 'object',
};

const appliesTo = (keyword: string, type: string) => {
  const t = FOR_TYPE[keyword];
  return t === undefined || t === type || (t === 'number' && type === 'integer');
};

/** `fooBarId` → `Foo bar id.`: the least a property says when the REST schema says nothing more than its name. */
export function describedByName(name: string): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}.`;
}

/**
 * Bounds a model rarely comes near or that the type and description already say (a non-empty string,
 * an id from 1, any text length, a pattern the description already words, a list of twenty or more, an
 * amount of ten thousand or more): left to the core's validation, which answers a message naming the
 * field and its limit if one is ever crossed. They cost the `all` list several kilobytes otherwise.
 */
function noiseBound(key: string, value: unknown): boolean {
  if (key === 'minLength' || key === 'minimum' || key === 'minItems') return value === 1 || value === 0;
  if (key === 'maxLength') return true;
  // A pattern restates what the description says in words (act_... or biz_...); the core's message names the field.
  if (key === 'pattern') return true;
  if (key === 'maximum') return (value as number) >= 10_000;
  if (key === 'maxItems') return (value as number) >= 20;
  return key === 'minProperties' || key === 'maxProperties';
}

const typeOfValue = (v: unknown): string => (Number.isInteger(v) ? 'integer' : typeof v === 'number' ? 'number' : typeof v);

/** Joins two descriptions, each said once. */
function joined(a: unknown, b: unknown): string | undefined {
  const parts = [a, b].filter((p): p is string => typeof p === 'string' && p.length > 0);
  return parts.length ? [...new Set(parts)].join(' ') : undefined;
}

/**
 * Merges the variants of a combinator into one schema: `null` variants dropped (left out means
 * none), object variants' properties united (each says in its description which variant it
 * belongs to when they differ), scalar variants' enums united.
 */
function mergeVariants(variants: JsonSchema[], combinator: string): JsonSchema {
  const real = variants.filter((v) => v.type !== 'null');
  if (real.length === 1) return real[0];
  if (combinator === 'allOf') {
    return real.reduce<JsonSchema>(
      (acc, v) => ({
        ...acc,
        ...v,
        properties: { ...(acc.properties as object), ...(v.properties as object) },
        required: [...new Set([...((acc.required as string[]) ?? []), ...((v.required as string[]) ?? [])])],
        description: joined(acc.description, v.description),
      }),
      {},
    );
  }
  const objects = real.filter((v) => v.type === 'object' || v.properties);
  if (objects.length === real.length) {
    const properties: Record<string, JsonSchema> = {};
    for (const v of objects) for (const [k, p] of Object.entries((v.properties ?? {}) as Record<string, JsonSchema>)) properties[k] ??= p;
    return { type: 'object', properties, description: joined(objects[0].description, objects[1]?.description) };
  }
  const enums = real.flatMap((v) => (Array.isArray(v.enum) ? v.enum : v.const !== undefined ? [v.const] : []));
  if (enums.length && real.every((v) => Array.isArray(v.enum) || v.const !== undefined)) return { enum: [...new Set(enums)] };
  // An id or a reference to one ("$trigger.launchId"): the string form carries both.
  return real.find((v) => v.type === 'string') ?? real[0];
}

/** One schema node in the portable subset, its children done first. */
function portableNode(node: JsonSchema): JsonSchema {
  let s: JsonSchema = { ...node };
  for (const combinator of ['allOf', 'anyOf', 'oneOf'] as const) {
    if (Array.isArray(s[combinator])) {
      const { [combinator]: variants, ...rest } = s;
      const merged = mergeVariants((variants as JsonSchema[]).map(portableNode), combinator);
      // The field's own words win over those of the shared parts it was built from.
      s = { ...merged, ...rest, description: rest.description ?? merged.description };
    }
  }
  if (s.const !== undefined) s = { ...s, enum: [s.const] };
  let type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== 'null') : (s.type as string | undefined);
  if (type === undefined && Array.isArray(s.enum) && s.enum.length) type = typeOfValue(s.enum.find((v) => v !== null));
  if (type === undefined && s.properties) type = 'object';
  if (type === undefined && s.items) type = 'array';
  const out: JsonSchema = type ? { type } : {};
  for (const [key, value] of Object.entries(s)) {
    if (key === 'type' || !PORTABLE_KEYWORDS.has(key) || (type && !appliesTo(key, type))) continue;
    if (key === 'format' && !PORTABLE_FORMATS.has(value as string)) continue;
    if (key === 'enum') out.enum = (value as unknown[]).filter((v) => v !== null);
    else if (key === 'items') out.items = portableNode(value as JsonSchema);
    else if (key === 'properties') {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, JsonSchema>).map(([name, sub]) => {
          const p = portableNode(sub);
          return [name, p.description ? p : { ...p, description: describedByName(name) }];
        }),
      );
    } else if ((key === 'default' && value === null) || noiseBound(key, value)) continue;
    else out[key] = value;
  }
  return out;
}

/** The portable input schema of a tool: its bundled REST input schema rewritten as the module comment says. */
export function portableInput(schema: JsonSchema): JsonSchema & { type: 'object' } {
  const out = portableNode(schema);
  return { ...out, type: 'object', properties: out.properties ?? {} };
}

/**
 * The properties every variant of an open object may carry, united into one object: each keeps its
 * schema and its description names the variants that take it when not all do (`Campaign, ad set.`).
 * For a field the REST schema leaves open because the core checks it per kind (a node's settings per level).
 */
export function unitedVariants(description: string, variants: Array<{ label: string; schema: JsonSchema }>): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const holders = new Map<string, string[]>();
  for (const { label, schema } of variants) {
    for (const [name, sub] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
      holders.set(name, [...(holders.get(name) ?? []), label]);
      if (properties[name]) {
        const a = properties[name];
        if (Array.isArray(a.enum) && Array.isArray(sub.enum)) properties[name] = { ...a, enum: [...new Set([...a.enum, ...sub.enum])] };
      } else properties[name] = sub;
    }
  }
  for (const [name, labels] of holders) {
    if (labels.length === variants.length) continue;
    const who = `${labels.join(', ')} only.`;
    properties[name] = { ...properties[name], description: joined(who, properties[name].description) };
  }
  return { type: 'object', description, properties };
}
