// MCP tool definitions generated from the operation catalogue: one tool per operation, its input
// and output schemas bundled from the same JSON Schemas REST validates with.

import type { OperationDefinition } from '../../src/catalogue/define.js';
import type { JsonSchema, SchemaRegistry } from '../../src/schemas/registry.js';
import { failureCodes } from '../../src/catalogue/failures.js';

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  outputSchema: JsonSchema & { type: 'object' };
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
}

/** `launch-campaign` → `launch_campaign`. */
export function toolName(operation: string): string {
  return operation.replace(/-/g, '_');
}

function titleOf(op: OperationDefinition): string {
  const words = op.name.split('-');
  return words.map((w, i) => (i === 0 ? w[0].toUpperCase() + w.slice(1) : w)).join(' ');
}

/** Every property name anywhere in a bundled schema. */
function propertyNames(schema: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const s of schema) propertyNames(s, into);
  else if (schema && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties' && value && typeof value === 'object') for (const name of Object.keys(value)) into.add(name);
      propertyNames(value, into);
    }
  }
  return into;
}

const MONEY = /amount|minorunits|budget|spend|ceiling|cost|cpc|cpm/i;
const ZONED = /^(datePreset|days|window|timezone|dailyHour|cron|finalLocalHour)$/;

function describe(op: OperationDefinition, input: JsonSchema, output: JsonSchema): string {
  const parts = [op.summary];
  if (op.description) parts.push(op.description);
  const names = [...propertyNames(input), ...propertyNames(output)];
  if (names.some((n) => MONEY.test(n))) parts.push("Money is in integer minor units (cents) of the ad account's currency.");
  if (names.some((n) => ZONED.test(n))) parts.push("Days and date presets are resolved in the ad account's time zone; times are ISO 8601 UTC.");
  parts.push(`Scope: ${op.scope}.`);
  if (op.annotations.readOnly) parts.push('Read-only: changes nothing.');
  else if (op.annotations.destructive) parts.push('Destructive: cannot be undone.');
  if (op.scope === 'publish') parts.push("Spends money: counts against the credential's publish ceiling.");
  if (op.idempotency === 'required') parts.push('Requires idempotencyKey: reuse the same key to retry safely; a new key acts again.');
  else if (op.idempotency === 'optional') parts.push('Pass idempotencyKey to make retries safe.');
  parts.push(`Fails with (error.code in the isError result): ${failureCodes(op).join(', ')}.`);
  return parts.join(' ');
}

/** The tool of one operation. */
export function toolFor(op: OperationDefinition, schemas: SchemaRegistry): ToolDefinition {
  const input = schemas.bundle(op.input) as JsonSchema & { type: 'object' };
  if (op.idempotency !== 'none') {
    input.properties = {
      ...(input.properties as object),
      idempotencyKey: {
        type: 'string',
        minLength: 1,
        maxLength: 255,
        description: 'Idempotency key: a retry with the same key within 24 hours returns the first result without acting again.',
      },
    };
    if (op.idempotency === 'required') input.required = [...((input.required as string[]) ?? []), 'idempotencyKey'];
  }
  const title = titleOf(op);
  const output = schemas.bundle(op.output) as JsonSchema & { type: 'object' };
  return {
    name: toolName(op.name),
    title,
    description: describe(op, input, output),
    inputSchema: input,
    outputSchema: output,
    annotations: {
      title,
      readOnlyHint: op.annotations.readOnly,
      destructiveHint: op.annotations.destructive,
      idempotentHint: op.annotations.idempotent,
      openWorldHint: op.annotations.openWorld,
    },
  };
}
