// The `svc` commands, read off the operation catalogue: one command per operation, one flag per
// input property (camelCase property → kebab-case flag), typed by the bundled input schema.
// `npm run generate` writes them to surfaces/cli/commands.generated.json (scripts/write-cli-commands.ts,
// with a drift test), so that `svc` reads one file and loads no server code: no handlers, no Ajv.

import fs from 'node:fs';
import type { OperationDefinition } from '../../src/catalogue/define.js';
import type { JsonSchema, SchemaRegistry } from '../../src/schemas/registry.js';
import { projectPath } from '../../src/paths.js';

/** The generated command list (npm run generate). */
export const COMMANDS_FILE = projectPath('surfaces', 'cli', 'commands.generated.json');

/** What `svc` needs of an operation: its catalogue entry without the handler and the schema ids. */
export type CommandOperation = Pick<
  OperationDefinition,
  'name' | 'method' | 'path' | 'scope' | 'idempotency' | 'tag' | 'summary' | 'description' | 'upload' | 'follow'
>;

/**
 * How a property is given on the command line: `value` (one flag, coerced by `types`), `boolean`
 * (`--flag` / `--no-flag`), `array` (the flag repeated), `file` (a path read and uploaded) or `json`
 * (objects and arrays of objects: only through `--data`).
 */
export type ParamKind = 'value' | 'boolean' | 'array' | 'file' | 'json';

export interface Param {
  /** Input property name (camelCase). */
  name: string;
  /** Flag name without dashes (kebab-case). */
  flag: string;
  kind: ParamKind;
  /** JSON types of the value, or of each item of an array, without null. */
  types: string[];
  nullable: boolean;
  required: boolean;
  inPath: boolean;
  schema: JsonSchema;
}

export interface Command {
  name: string;
  op: CommandOperation;
  params: Param[];
  /** Path parameter names, in path order. */
  pathParams: string[];
  /** Array property of the output that `--all` concatenates; null when the output does not page. */
  listField: string | null;
}

/** brandId → brand-id */
export function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`).replace(/_/g, '-');
}

/** The schema's types without `null`; an enum without `type` takes its values' types. */
export function typesOf(schema: JsonSchema | undefined): string[] {
  if (!schema) return [];
  const t = schema.type;
  const listed = Array.isArray(t) ? (t as string[]) : typeof t === 'string' ? [t] : [];
  if (listed.length) return listed.filter((x) => x !== 'null');
  const values = (schema.enum as unknown[] | undefined) ?? ('const' in schema ? [schema.const] : []);
  const seen = new Set<string>();
  for (const v of values) if (v !== null) seen.add(Number.isInteger(v) ? 'integer' : typeof v);
  return [...seen];
}

const SCALARS = ['string', 'integer', 'number', 'boolean'];

function paramOf(op: CommandOperation, name: string, schema: JsonSchema, required: boolean, inPath: boolean): Param {
  const types = typesOf(schema);
  const t = schema.type;
  const nullable = (Array.isArray(t) && t.includes('null')) || (Array.isArray(schema.enum) && schema.enum.includes(null));
  const base = { name, flag: kebab(name), types, nullable, required, inPath, schema };
  if (op.upload?.field === name) return { ...base, kind: 'file' };
  if (types.length === 1 && types[0] === 'array') {
    const itemTypes = typesOf(schema.items as JsonSchema | undefined);
    const scalarItems = itemTypes.length > 0 && itemTypes.every((x) => SCALARS.includes(x));
    return { ...base, types: itemTypes, kind: scalarItems ? 'array' : 'json' };
  }
  if (types.length === 1 && types[0] === 'boolean') return { ...base, kind: 'boolean' };
  return { ...base, kind: types.every((x) => SCALARS.includes(x)) ? 'value' : 'json' };
}

function listFieldOf(output: JsonSchema): string | null {
  const props = (output.properties ?? {}) as Record<string, JsonSchema>;
  if (!('nextCursor' in props)) return null;
  return Object.keys(props).find((k) => k !== 'nextCursor' && typesOf(props[k]).includes('array')) ?? null;
}

/** The `{param}` names of a path template, in order (as the catalogue reads them). */
function pathParamsOf(path: string): string[] {
  return [...path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]);
}

function commandOf(schemas: SchemaRegistry, definition: OperationDefinition): Command {
  const { name, method, path, scope, idempotency, tag, summary, description, upload, follow } = definition;
  const op: CommandOperation = { name, method, path, scope, idempotency, tag, summary, description, upload, follow };
  const input = schemas.bundle(definition.input);
  const props = (input.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((input.required as string[] | undefined) ?? []);
  const inPath = pathParamsOf(op.path);
  const params = Object.entries(props).map(([prop, schema]) => paramOf(op, prop, schema, required.has(prop), inPath.includes(prop)));
  const listField = 'cursor' in props ? listFieldOf(schemas.bundle(definition.output)) : null;
  return { name, op, params, pathParams: inPath, listField };
}

/** Every command of `ops`, in catalogue order (the generator's side: it reads the schemas). */
export function buildCommands(ops: OperationDefinition[], schemas: SchemaRegistry): Command[] {
  return ops.map((op) => commandOf(schemas, op));
}

/** Every command, in catalogue order, from the generated file. */
export function loadCommands(file = COMMANDS_FILE): Command[] {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Command[];
}
