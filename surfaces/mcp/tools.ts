// MCP tool definitions generated from the operation catalogue: one tool per operation, its input
// and output schemas bundled from the same JSON Schemas REST validates with, made lean for agents
// for agents: inputs in the portable subset every client's model reads, each field described in the
// tool itself (portable-schema.ts); answers lean, each shape written out once (lean-schema.ts).

import { pathParams, type OperationDefinition } from '../../src/catalogue/define.js';
import type { JsonSchema, SchemaRegistry } from '../../src/schemas/registry.js';
import { failureCodes } from '../../src/catalogue/failures.js';
import { answerShape, withSharedDefs, writtenOnce, type DraftTool } from './lean-schema.js';
import { NULL_MEANS_ALL } from './results.js';
import { portableInput, unitedVariants } from './portable-schema.js';

/**
 * The page an MCP list tool answers when the agent names no `limit`: small enough to read whole.
 * REST keeps the contract's default of 50; this is the one place MCP differs.
 */
export const MCP_PAGE_SIZE = 10;

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  outputSchema: JsonSchema & { type: 'object' };
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
}

/** `launch-campaign` → `launch_campaign`. */
export function toolName(operation: string): string {
  return operation.replace(/-/g, '_');
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

/** The parameters many tools share say what they are in few words; the server instructions say the rest once. */
const SHARED_PARAMETERS: Record<string, string | null> = {
  brandId: null,
  cursor: 'From nextCursor.',
  limit: 'Page size.',
};

/**
 * Input fields a tool leaves out because another field of the same operation says it better to a
 * model: the bytes of a creative go as one flat `dataBase64` string (or a `url`), not REST's
 * `file: {fileName, contentBase64}` object built for multipart forms. The core still takes both.
 */
const LEFT_TO_REST: Record<string, string[]> = { 'upload-creative': ['file'] };

/**
 * Where REST takes `null` to mean "all" or "none", the tool takes a flag the portable subset can
 * say (no nullable types): `flag: true` is sent to the core as `field: null` (server.ts).
 */
export const NULL_ALTERNATIVES: Record<string, { field: string; flag: string; field_description: string; flag_description: string }> = {
  'update-webhook-endpoint': {
    field: 'brandIds',
    flag: 'allBrands',
    field_description: 'Brands whose events the endpoint receives (or allBrands). A brand-limited key must name only its own brands.',
    flag_description: 'true: every brand of the organization, present and future, instead of brandIds.',
  },
  'update-automation': {
    field: 'objectIds',
    flag: 'allObjects',
    field_description: 'Ad-platform ids of live objects of `level` launched by this service on the account (or allObjects).',
    flag_description: 'true: watch every such object, including ones launched later, instead of objectIds.',
  },
  'update-pipeline-column': {
    field: 'workflowId',
    flag: 'unlinkWorkflow',
    field_description: 'Workflow whose pipeline-stage trigger a card entering this column starts (or unlinkWorkflow).',
    flag_description: 'true: the column starts no workflow, instead of workflowId.',
  },
  'update-tracker-mapping': {
    field: 'trackerCampaignId',
    flag: 'removeMapping',
    field_description: "Tracker campaign that receives the campaign's spend; this or removeMapping.",
    flag_description: 'true: remove the manual mapping (the automatic one applies again), instead of trackerCampaignId.',
  },
};

/** A path parameter's description that only says what its name says (REST documents where it goes). */
const PATH_ID = /^[\w ]+ id \(path parameter\)(: digits)?\.$/i;

/** Codes every tool can answer; the server instructions name them once. */
export const EVERY_TOOL_FAILS_WITH = ['validation_failed', 'insufficient_scope'];

/**
 * Codes that follow from what a tool takes (an id: not_found; brandId: brand_not_allowed; an
 * idempotencyKey: idempotency_conflict and, when required, idempotency_key_required; publishing:
 * the ceiling codes): the server instructions state the rule once, so a description names only
 * the codes of the tool's own rules and the list fits its budget with every input written out.
 */
export const CODES_BY_RULE = [
  'not_found',
  'brand_not_allowed',
  'idempotency_conflict',
  'idempotency_key_required',
  'spend_ceiling_required',
  'spend_ceiling_exceeded',
  'unavailable',
];

/** What the tool does, its money unit and the codes it fails with, in a sentence or three (days and time zones: the server instructions). */
function describe(op: OperationDefinition, input: JsonSchema, output: JsonSchema): string {
  const parts = [op.summary];
  const names = [...propertyNames(input), ...propertyNames(output)];
  if (names.some((n) => MONEY.test(n))) parts.push('Money in minor units.');
  const byRule = (c: string) => CODES_BY_RULE.includes(c) && (c !== 'unavailable' || op.scope === 'publish');
  const own = failureCodes(op).filter((c) => !EVERY_TOOL_FAILS_WITH.includes(c) && !byRule(c));
  if (own.length) parts.push(`Fails with: ${own.join(', ')}.`);
  return parts.join(' ');
}

/** The input schema as the agent fills it: idempotencyKey and the MCP page size where they apply. */
function inputOf(op: OperationDefinition, schemas: SchemaRegistry): JsonSchema & { type: 'object' } {
  const input = schemas.bundle(op.input) as JsonSchema & { type: 'object' };
  const properties = { ...(input.properties as Record<string, JsonSchema>) };
  for (const [name, description] of Object.entries(SHARED_PARAMETERS)) {
    if (!properties[name]) continue;
    const { description: _said, ...rest } = properties[name];
    properties[name] = description === null ? rest : { ...rest, description };
  }
  for (const name of pathParams(op.path)) {
    const { description, ...rest } = properties[name];
    if (typeof description === 'string' && PATH_ID.test(description)) properties[name] = rest;
  }
  for (const name of LEFT_TO_REST[op.name] ?? []) delete properties[name];
  const alternative = NULL_ALTERNATIVES[op.name];
  if (alternative) {
    properties[alternative.field] = { ...properties[alternative.field], description: alternative.field_description };
    properties[alternative.flag] = { type: 'boolean', description: alternative.flag_description };
    if (Array.isArray(input.required)) input.required = (input.required as string[]).filter((name) => name !== alternative.field);
  }
  if (properties.limit) properties.limit = { ...properties.limit, default: MCP_PAGE_SIZE };
  if (op.idempotency !== 'none') {
    properties.idempotencyKey = { type: 'string', minLength: 1, maxLength: 255, description: 'Safe-retry key (24 h).' };
    if (op.idempotency === 'required') input.required = [...((input.required as string[]) ?? []), 'idempotencyKey'];
  }
  return withoutIdCeiling({ ...input, properties }) as JsonSchema & { type: 'object' };
}

/**
 * Fields the REST schema leaves an open object because the core checks them per kind (a node's
 * settings per level, against node-properties): the tool shows every property of every kind.
 */
const NODE_LEVELS = [
  { label: 'Campaign', schema: 'node-properties#/$defs/campaign' },
  { label: 'Ad set', schema: 'node-properties#/$defs/adset' },
  { label: 'Ad', schema: 'node-properties#/$defs/ad' },
];
const NODE_SETTINGS = 'Settings of the level (nodeType); a setting names the levels that take it. Completeness is checked at publish.';
const STEP_SETTINGS = 'Settings of the step kind; a setting names the kinds that take it.';
/** Each step kind's settings: workflow-node-settings#/$defs/<kind>, labelled by the kind. */
const stepKinds = (schemas: SchemaRegistry) =>
  Object.keys(schemas.get('workflow-node-settings').$defs as object).map((kind) => ({ label: kind, schema: `workflow-node-settings#/$defs/${kind}` }));

/** Where an operation's input holds such a field (`nodes[].settings`), what to say of it, and its kinds. */
const SETTINGS_PER_KIND: Record<string, { path: string[]; description: string; kinds: (s: SchemaRegistry) => Array<{ label: string; schema: string }> }> = {
  'create-node': { path: ['properties'], description: NODE_SETTINGS, kinds: () => NODE_LEVELS },
  'update-node': { path: ['properties'], description: `${NODE_SETTINGS} Merged as a JSON merge patch.`, kinds: () => NODE_LEVELS },
  'create-workflow': { path: ['nodes', '[]', 'settings'], description: STEP_SETTINGS, kinds: stepKinds },
  'save-workflow': { path: ['nodes', '[]', 'settings'], description: STEP_SETTINGS, kinds: stepKinds },
};

/** `schema` with the part at `path` (property names, `[]` for an array's items) replaced by `part`. */
function replacedAt(schema: JsonSchema, path: string[], part: JsonSchema): JsonSchema {
  if (!path.length) return part;
  const [step, ...rest] = path;
  if (step === '[]') return { ...schema, items: replacedAt(schema.items as JsonSchema, rest, part) };
  const properties = schema.properties as Record<string, JsonSchema>;
  return { ...schema, properties: { ...properties, [step]: replacedAt(properties[step], rest, part) } };
}

/** The input as the model reads it: portable, every field described here, open per-kind settings shown whole. */
function portableInputOf(op: OperationDefinition, input: JsonSchema, schemas: SchemaRegistry, operations: RegExp): JsonSchema & { type: 'object' } {
  const perKind = SETTINGS_PER_KIND[op.name];
  if (!perKind) return inToolWords(portableInput(input), operations);
  const kinds = perKind.kinds(schemas).map((k) => ({ label: k.label, schema: schemas.bundle(k.schema) }));
  return inToolWords(portableInput(replacedAt(input, perKind.path, unitedVariants(perKind.description, kinds))), operations);
}

/**
 * Words REST needs to say that an id may be a number or its digits: every id argument of every
 * tool takes both (server.ts; the server instructions say it once), so a tool's description does not.
 */
const ID_FORMS: Array<[RegExp, string]> = [
  [/^Brand id in a body: the number, or its digits as a string\.$/, 'Brand id.'],
  [/ \((?:digits, or a number|a number, or digits|a number or digits|an id, number or digits)\)/g, ''],
  [/; null for none\.$/, '; omitted: none.'],
];

/** A tool's input schema in its own words: ids as the tool takes them (ID_FORMS, namedId, asAnswered) and operations named as tools (`update-node` is `update_node`). */
function inToolWords(node: unknown, operations: RegExp): any {
  if (Array.isArray(node)) return node.map((n) => inToolWords(n, operations));
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'description' && typeof v === 'string')
      out[k] = ID_FORMS.reduce((text, [from, to]) => text.replace(from, to), v).replace(operations, (name) => toolName(name));
    else if (k === 'properties' && v && typeof v === 'object')
      out[k] = Object.fromEntries(Object.entries(v).map(([name, sub]) => [name, asAnswered(name, namedId(name, inToolWords(sub, operations)))]));
    else out[k] = k === 'enum' || k === 'default' ? v : inToolWords(v, operations);
  }
  return out;
}

/**
 * Ids the answers carry as strings of digits (the spec shows a launch's `id` and every `launchId` as
 * a string): the argument takes the same type, so an id copied from an answer passes a client that
 * checks arguments against the schema before sending (LangChain's adapters refuse a string where the
 * schema says integer). The core's id schema (common#/$defs/id) takes the number and the digits alike.
 */
const IDS_ANSWERED_AS_STRINGS = new Set(['launchId']);

function asAnswered(name: string, schema: Record<string, unknown>): Record<string, unknown> {
  if (!IDS_ANSWERED_AS_STRINGS.has(name) || schema.type !== 'integer') return schema;
  const { minimum: _min, maximum: _max, ...rest } = schema;
  return { ...rest, type: 'string' };
}

/** REST's general wording for a numbered id (`Id of a resource this service numbers: ...`) as the argument's name says it: `Template id.` */
function namedId(name: string, schema: Record<string, unknown>): Record<string, unknown> {
  if (typeof schema.description !== 'string' || !schema.description.startsWith('Id of a resource this service numbers')) return schema;
  const words = name
    .replace(/Id$/, '')
    .replace(/([A-Z])/g, ' $1')
    .toLowerCase();
  return { ...schema, description: `${words.charAt(0).toUpperCase()}${words.slice(1)} id.` };
}

/** A person's name for the tool: its schema's title, else its summary. */
function titleOf(op: OperationDefinition, schemas: SchemaRegistry): string {
  const title = schemas.has(op.input.split('#')[0]) ? schemas.get(op.input.split('#')[0]).title : undefined;
  return typeof title === 'string' && title ? title : op.summary.replace(/\.$/, '');
}

/** Integer ids are bounded by the database column (2^31 - 1): true, but of no use to an agent. */
function withoutIdCeiling(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutIdCeiling);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node))
    if (!(k === 'maximum' && v === ID_CEILING)) out[k] = k === 'enum' || k === 'const' || k === 'default' ? v : withoutIdCeiling(v);
  return out;
}

const ID_CEILING = 2147483647;

/**
 * Tools whose answer, when the person declines or the plan is not named (surfaces/mcp/confirm.ts),
 * says that nothing started instead of naming what did: the field both answers hold (run_workflow's
 * declined answer has no executionId, but names its workflowId as a run does).
 */
const MAY_NOT_START = new Map([
  ['run-workflow', 'workflowId'],
  // A card a client that cannot ask would put where money moves is not placed until the plan is named: no cardId yet.
  ['create-pipeline-card', 'launchId'],
]);

/** The catalogue's operation names as words in a sentence (not inside a path or another name), longest first. */
export function operationWords(ops: OperationDefinition[]): RegExp {
  const names = ops
    .map((op) => op.name)
    .filter((n) => n.includes('-'))
    .sort((a, b) => b.length - a.length);
  return new RegExp(`(?<![\\w/.-])(?:${names.join('|')})(?![\\w/-])`, 'g');
}

/** An answer's fields with the flag a null of them becomes in a tool's answer (`allBrands` beside `brandIds`). */
function withAllFlags(fields: Record<string, JsonSchema> | undefined): Record<string, JsonSchema> {
  const out = { ...fields };
  for (const [field, flag] of Object.entries(NULL_MEANS_ALL)) if (field in out) out[flag] = { type: 'boolean' };
  return out;
}

/** The tools of a catalogue's operations, in its order. */
export function toolsFor(ops: OperationDefinition[], schemas: SchemaRegistry): ToolDefinition[] {
  const drafts: DraftTool[] = ops.map((op) => ({
    name: toolName(op.name),
    readOnly: op.annotations.readOnly,
    toolset: op.toolset,
    input: inputOf(op, schemas),
    output: answerShape(schemas.bundle(op.output)),
  }));
  const operations = operationWords(ops);
  return writtenOnce(drafts).map((draft, i) => {
    const op = ops[i];
    const bundledOutput = schemas.bundle(op.output);
    // Every answer names the first field it always holds (with its type), so an answer of another
    // shape (an error envelope) fails the client's check instead of passing unseen. A read tool's
    // answer lists every field's type as made lean above; a tool that acts lists its answer's own
    // fields with their types too (what they hold is a read tool's to describe), so a client knows
    // every field an answer may carry (nextCursor, planFingerprint, boundPlans...).
    const required = bundledOutput.required as string[] | undefined;
    const fields = withAllFlags((answerShape(bundledOutput).properties ?? {}) as Record<string, JsonSchema>);
    const first = MAY_NOT_START.get(op.name) ?? required?.find((name) => fields[name]?.type !== undefined);
    const own = { type: 'object', properties: fields, ...(first ? { required: [first] } : {}) };
    const output = op.annotations.readOnly
      ? first
        ? {
            ...draft.output,
            properties: { ...fields, ...withAllFlags(draft.output.properties as Record<string, JsonSchema>), [first]: fields[first] },
            required: [first],
          }
        : { ...draft.output, properties: { ...fields, ...withAllFlags(draft.output.properties as Record<string, JsonSchema>) } }
      : own;
    const inputSchema = portableInputOf(op, drafts[i].input, schemas, operations);
    return {
      name: draft.name,
      title: titleOf(op, schemas),
      description: describe(op, inputSchema, bundledOutput).replace(operations, (name) => toolName(name)),
      inputSchema,
      outputSchema: withSharedDefs(output) as JsonSchema & { type: 'object' },
      annotations: {
        readOnlyHint: op.annotations.readOnly,
        destructiveHint: op.annotations.destructive,
        idempotentHint: op.annotations.idempotent,
        openWorldHint: op.annotations.openWorld,
      },
    };
  });
}
