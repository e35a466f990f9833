// Input schemas in the form OpenAI's strict mode takes, for clients that ask for it (X-MCP-Schema:
// strict). A strict client sends every property and marks the ones that may be left out nullable;
// the OpenAI Agents SDK's convertSchemasToStrict rewrites a portable schema that way itself, but
// writes each optional property's description twice (beside and inside the `anyOf` it wraps the
// property in: @openai/agents-core utils/strictToolSchema.js, wrapNullableSchema), about a fifth of
// every list it sends. Served already in that form (each description once), the converter finds
// nothing to change and the model reads the same words. The portable form stays the default: this
// one uses `anyOf` and `null`, which Gemini's function declarations do not take (paths.md).
//
// A null a strict client sends for a property it leaves out means "left out", as the Agents SDK
// itself reads it for the schemas it converts: `withoutNulls` drops them before the call goes on (the
// portable schema, which the core's validation mirrors, never takes a null).

import type { JsonSchema } from '../../src/schemas/registry.js';

/** `schema` with every object's properties all required, the optional ones nullable, and no others allowed. */
export function strictForm(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...schema };
  if (schema.items && typeof schema.items === 'object' && !Array.isArray(schema.items)) out.items = strictForm(schema.items as JsonSchema);
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (!properties) return out;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  out.properties = Object.fromEntries(
    Object.entries(properties).map(([name, property]) => {
      const strict = strictForm(property);
      if (required.has(name)) return [name, strict];
      const { description, ...rest } = strict;
      return [name, { ...(description === undefined ? {} : { description }), anyOf: [rest, { type: 'null' }] }];
    }),
  );
  out.required = Object.keys(properties);
  out.additionalProperties = false;
  return out;
}

/** `args` without the properties a strict client set to null (left out), at every depth. */
export function withoutNulls(args: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!args) return args;
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (!value || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== null)
        .map(([k, v]) => [k, strip(v)]),
    );
  };
  return strip(args) as Record<string, unknown>;
}
