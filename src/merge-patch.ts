// How every PATCH applies its body (docs/operations.md, "PATCH merges objects"): fields not sent
// stay; an object-valued field is merged in the manner of RFC 7396 (JSON Merge Patch), where a
// null removes a key unless the schema gives null a meaning of its own (then null is the value);
// any other field sent, a top-level null included, replaces the value.

type Json = unknown;
type Schema = Record<string, unknown>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The schema of `key` inside an object schema (or inside its object branch of anyOf/oneOf). */
function propertyOf(schema: Schema | undefined, key: string): Schema | undefined {
  if (!schema) return undefined;
  if (isObject(schema.properties) && isObject(schema.properties[key])) return schema.properties[key] as Schema;
  for (const k of ['anyOf', 'oneOf'] as const) {
    for (const branch of Array.isArray(schema[k]) ? (schema[k] as Schema[]) : []) {
      const found = propertyOf(branch, key);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * RFC 7396: the patch's keys replace the target's, nested objects merge, anything else replaces,
 * and null removes the key, except where `schema` (the target's) lets that key be null: there null
 * has a meaning of its own (no minimum, every brand) and is kept as the value.
 */
export function mergePatch(target: Json, patch: Json, schema?: Schema): Json {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    const sub = propertyOf(schema, key);
    if (value === null) {
      if (sub && admitsNull(sub)) out[key] = null;
      else delete out[key];
    } else {
      out[key] = mergePatch(out[key], value, sub);
    }
  }
  return out;
}

/**
 * A PATCH body applied to the current values: each field sent whose value is an object is merged
 * into the current one (mergePatch, with the field's schema from `schema` when given); every other
 * field sent replaces its value as it is, so a top-level null keeps the meaning the reference gives
 * it (brandIds: every brand, objectIds: every object).
 */
export function applyPatch<T extends object>(current: T, body: Record<string, unknown>, schema?: Schema): T {
  const out = { ...current } as Record<string, unknown>;
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined) continue;
    out[key] = isObject(value) ? mergePatch((current as Record<string, unknown>)[key], value, propertyOf(schema, key)) : value;
  }
  return out as T;
}

/** True when the schema (or one of its anyOf/oneOf branches) lets a value be null. */
function admitsNull(s: Schema): boolean {
  const types = Array.isArray(s.type) ? s.type : s.type === undefined ? null : [s.type];
  if (types) return types.includes('null');
  if (Array.isArray(s.enum)) return s.enum.includes(null);
  if ('const' in s) return s.const === null;
  for (const k of ['anyOf', 'oneOf'] as const) if (Array.isArray(s[k])) return (s[k] as Schema[]).some(admitsNull);
  return true;
}

/** The schema of a key inside a merge patch: what the strict schema allows, or null to remove it. */
function nullable(s: Schema): Schema {
  if (admitsNull(s)) return s;
  if (Array.isArray(s.anyOf)) return { ...s, anyOf: [...(s.anyOf as Schema[]), { type: 'null' }] };
  if (Array.isArray(s.oneOf)) return { ...s, oneOf: [...(s.oneOf as Schema[]), { type: 'null' }] };
  if ('const' in s) return { anyOf: [s, { type: 'null' }] };
  const out: Schema = { ...s };
  if (s.type !== undefined) out.type = [...(Array.isArray(s.type) ? s.type : [s.type]), 'null'];
  if (Array.isArray(s.enum)) out.enum = [...s.enum, null];
  return out;
}

/**
 * The schema a merge patch for an object of `schema` must meet: every key may be null (removal),
 * none is required and counts of keys are not checked, nested objects alike, and no default is
 * filled in (a default would change a key that was not sent). What the merge makes is checked
 * against the strict schema afterwards.
 */
export function mergePatchSchema(schema: Schema): Schema {
  const out: Schema = { ...schema };
  for (const k of ['required', 'minProperties', 'maxProperties', 'default', 'dependentRequired']) delete out[k];
  if (isObject(schema.properties)) {
    out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, nullable(mergePatchSchema(v as Schema))]));
  }
  for (const k of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[k])) out[k] = (schema[k] as Schema[]).map((b) => mergePatchSchema(b));
  }
  return out;
}

/**
 * The input schema of a PATCH operation as its body is checked before merging: each object-valued
 * field takes a merge patch (mergePatchSchema); every other field is checked as it is.
 */
export function patchInputSchema(input: Schema): Schema {
  if (!isObject(input.properties)) return input;
  const properties = Object.fromEntries(
    Object.entries(input.properties).map(([k, v]) => {
      const s = v as Schema;
      return [k, s.type === 'object' ? mergePatchSchema(s) : s];
    }),
  );
  return { ...input, properties };
}
