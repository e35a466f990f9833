// MCP tool definitions generated from the operation catalogue: one tool per operation, its input
// and output schemas bundled from the same JSON Schemas REST validates with.

import type { OperationDefinition } from '../../src/catalogue/define.js';
import type { JsonSchema, SchemaRegistry } from '../../src/schemas/registry.js';

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

function describe(op: OperationDefinition): string {
  const parts = [op.summary];
  if (op.description) parts.push(op.description);
  parts.push(`Scope: ${op.scope}.`);
  if (op.annotations.readOnly) parts.push('Read-only: changes nothing.');
  else if (op.annotations.destructive) parts.push('Destructive: cannot be undone.');
  if (op.scope === 'publish') parts.push("Spends money: counts against the credential's publish ceiling.");
  if (op.idempotency === 'required') parts.push('Requires idempotencyKey: reuse the same key to retry safely; a new key acts again.');
  else if (op.idempotency === 'optional') parts.push('Pass idempotencyKey to make retries safe.');
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
  return {
    name: toolName(op.name),
    title,
    description: describe(op),
    inputSchema: input,
    outputSchema: schemas.bundle(op.output) as JsonSchema & { type: 'object' },
    annotations: {
      title,
      readOnlyHint: op.annotations.readOnly,
      destructiveHint: op.annotations.destructive,
      idempotentHint: op.annotations.idempotent,
      openWorldHint: op.annotations.openWorld,
    },
  };
}
