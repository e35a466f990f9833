// Makes the tools' answer schemas cheap to load: clients check answers against them, models read
// the answers themselves. An answer's schema keeps its own fields and their types (nullability
// included), not what nested parts hold nor the value bounds that only guard our own answers; a
// part another tool of the toolset already answers or takes is reduced to its type. Parts repeated
// within one schema are written once under `$defs` (JSON Schema 2020-12, resolved in place).

import type { JsonSchema } from '../../src/schemas/registry.js';

/** Keywords whose value is data, not a schema. */
const LITERAL = new Set(['enum', 'const', 'required', 'default', 'examples']);
/** Keywords whose value is a map of names to schemas. */
const SCHEMA_MAPS = new Set(['properties', '$defs', 'patternProperties', 'dependentSchemas']);

/**
 * Keywords an answer's schema leaves out: bounds help a caller write valid input but say nothing
 * about the shape of an answer; our answers never carry unlisted fields (the core shapes them);
 * what the fields mean is the tool's description and the guide's business, not every schema's.
 */
const NOT_IN_ANSWERS = new Set([
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'pattern',
  'format',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'additionalProperties',
  'default',
  'title',
  'examples',
  '$comment',
  'description',
  // The agent reads the answer itself; which fields it always holds matters only to a validator.
  'required',
  // Which values a field takes is the input's business (where the agent writes them); an answer only
  // needs its type for a client's check, and the whole list must fit the budget with inputs written out.
  'enum',
]);

type Node = unknown;

/** Applies `fn` to every schema in `node`, innermost first. */
function mapSchema(node: Node, fn: (schema: JsonSchema) => JsonSchema): Node {
  if (Array.isArray(node)) return node.map((n) => mapSchema(n, fn));
  if (!node || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node as JsonSchema)) {
    if (SCHEMA_MAPS.has(key) && value && typeof value === 'object') {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, mapSchema(sub, fn)]));
    } else out[key] = LITERAL.has(key) ? value : mapSchema(value, fn);
  }
  return fn(out);
}

const without =
  (keys: Set<string>) =>
  (s: JsonSchema): JsonSchema =>
    Object.fromEntries(Object.entries(s).filter(([k]) => !keys.has(k)));

/** An answer's schema as the SDK client checks it: its fields and their types. */
export function answerShape(output: JsonSchema): JsonSchema {
  return topLevel(mapSchema(output, without(NOT_IN_ANSWERS)) as JsonSchema, output);
}

/**
 * The type of a field, whatever form its schema takes (a union gives the types of its variants; an
 * enum or const the type of its values); null left out, since a tool's answer leaves a null field out
 * (results.ts, asToolAnswer). None when it cannot be told or is more than one.
 */
function typeOf(field: JsonSchema): JsonSchema {
  const variants = (field.anyOf ?? field.oneOf) as JsonSchema[] | undefined;
  const valueType = (v: unknown) => (v === null ? 'null' : Number.isInteger(v) ? 'integer' : typeof v === 'number' ? 'number' : typeof v);
  const own = (s: JsonSchema): string[] =>
    s.type !== undefined
      ? [s.type as string | string[]].flat()
      : Array.isArray(s.enum)
        ? (s.enum as unknown[]).map(valueType)
        : s.const !== undefined
          ? [valueType(s.const)]
          : (s.anyOf ?? s.oneOf)
            ? ((s.anyOf ?? s.oneOf) as JsonSchema[]).flatMap(own)
            : ['?'];
  const types = [...new Set(variants ? variants.flatMap(own) : own(field))].filter((t) => t !== 'null');
  return types.length === 1 && types[0] !== '?' ? { type: types[0] } : {};
}

/**
 * The answer's own fields with their types, not what they hold: models read the answer, not its
 * schema (MCP 2025-06-18, Tools: Output Schema: it is for clients' validation), and the nested
 * shapes would cost a quarter of `all`'s list now that every input is written out in full. Every
 * field an answer carries is listed (`nextCursor` too) with its one type: a nullable one too, since
 * a tool's answer leaves a null out (results.ts). A union at the top stays as it is.
 */
function topLevel(schema: JsonSchema, whole: JsonSchema): JsonSchema {
  if (!schema.properties) return schema;
  // Types are told from the whole schema: an enum says its values' type before the answer's shape drops it.
  const fields = (whole.properties ?? schema.properties) as Record<string, JsonSchema>;
  const properties = Object.fromEntries(Object.keys(schema.properties as object).map((name) => [name, typeOf(fields[name] ?? {})] as const));
  return { ...schema, properties };
}

/** Two parts with the same skeleton carry the same data, whatever their bounds and words. */
function skeleton(part: Node): string {
  return JSON.stringify(mapSchema(part, without(NOT_IN_ANSWERS)));
}

/** One tool's schemas while the list is made lean. */
export interface DraftTool {
  name: string;
  readOnly: boolean;
  toolset: string;
  input: JsonSchema;
  output: JsonSchema;
}

/** A shape written out in one place: which tool, input or answer, and where in it. */
interface Place {
  tool: DraftTool;
  side: 'input' | 'output';
  path: string;
}

/** Parts smaller than this are written where they are: a reference to another place costs about as much. */
const MIN_SHARED_BYTES = 160;

/** Every part of a schema worth naming, with its path (`config`, `audiences[]`, `` for the root), outermost first. */
function partsOf(schema: JsonSchema, visit: (part: JsonSchema, path: string) => void, path = ''): void {
  visit(schema, path);
  for (const [name, sub] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) partsOf(sub, visit, path ? `${path}.${name}` : name);
  if (schema.items && typeof schema.items === 'object') partsOf(schema.items as JsonSchema, visit, `${path}[]`);
}

/** `schema` with each part found in `lookup` replaced by its type and where it is written out. */
function referring(schema: JsonSchema, lookup: (part: JsonSchema) => Place | null, from: DraftTool): JsonSchema {
  const visit = (part: JsonSchema, top: boolean): JsonSchema => {
    if (!top && JSON.stringify(part).length >= MIN_SHARED_BYTES) {
      const place = lookup(part);
      if (place) return part.type === undefined ? {} : { type: part.type };
    }
    const out: JsonSchema = { ...part };
    if (part.properties)
      out.properties = Object.fromEntries(Object.entries(part.properties as Record<string, JsonSchema>).map(([k, v]) => [k, visit(v, false)]));
    if (part.items && typeof part.items === 'object') out.items = visit(part.items as JsonSchema, false);
    return out;
  };
  // A whole answer may be another tool's answer (a status change answers the resource).
  if (JSON.stringify(schema).length >= MIN_SHARED_BYTES) {
    const place = lookup(schema);
    if (place && place.tool !== from) return { type: schema.type };
  }
  return visit(schema, true);
}

/**
 * Writes each shape of a toolset out once. An input part equal to another tool's input part
 * names it; an answer part names the same data in the tool's own input, a read tool's answer, or
 * another tool's input. A read tool names only read tools, so read-only mode never points at a
 * tool it hides.
 */
export function writtenOnce(tools: DraftTool[]): DraftTool[] {
  const byToolset = new Map<string, DraftTool[]>();
  for (const t of tools) byToolset.set(t.toolset, [...(byToolset.get(t.toolset) ?? []), t]);
  const out = new Map<DraftTool, DraftTool>();
  for (const members of byToolset.values()) {
    const exactInputs = new Map<string, Place>();
    const inputShapes = new Map<string, Place[]>();
    const answers = new Map<string, Place>();
    // Read tools first (a get before a list): their places are the ones every tool of the toolset may name.
    const rank = (t: DraftTool) => (t.readOnly ? (t.name.startsWith('get_') ? 0 : 1) : 2);
    const ordered = [...members].sort((a, b) => rank(a) - rank(b));
    for (const tool of ordered) {
      partsOf(tool.input, (part, path) => {
        if (!path) return;
        const exact = JSON.stringify(part);
        if (!exactInputs.has(exact)) exactInputs.set(exact, { tool, side: 'input', path });
        const shape = skeleton(part);
        inputShapes.set(shape, [...(inputShapes.get(shape) ?? []), { tool, side: 'input', path }]);
      });
      if (tool.readOnly) {
        partsOf(tool.output, (part, path) => {
          const shape = skeleton(part);
          if (!answers.has(shape)) answers.set(shape, { tool, side: 'output', path });
        });
      }
    }
    const visible = (from: DraftTool, place: Place) => !from.readOnly || place.tool.readOnly;
    for (const tool of members) {
      const input = referring(
        tool.input,
        (part) => {
          const place = exactInputs.get(JSON.stringify(part));
          return place && place.tool !== tool && visible(tool, place) ? place : null;
        },
        tool,
      );
      const output = referring(
        tool.output,
        (part) => {
          const shape = skeleton(part);
          const inputs = inputShapes.get(shape) ?? [];
          const own = inputs.find((p) => p.tool === tool);
          if (own) return own;
          const answer = answers.get(shape);
          if (answer && answer.tool !== tool && visible(tool, answer)) return answer;
          return inputs.find((p) => visible(tool, p)) ?? null;
        },
        tool,
      );
      out.set(tool, { ...tool, input, output });
    }
  }
  return tools.map((t) => out.get(t)!);
}

/** Parts smaller than this stay where they are: a `$ref` and its `$defs` entry cost about that much. */
const MIN_DEF_BYTES = 60;
const REF_BYTES = 24;

/**
 * Writes every part that occurs more than once in `schema` once under `$defs` and refers to it
 * with `$ref: "#/$defs/<name>"`, the largest saving first. Names come from where a part first appears.
 */
export function withSharedDefs(schema: JsonSchema): JsonSchema {
  let root = structuredClone(schema);
  const defs: Record<string, JsonSchema> = {};
  for (;;) {
    const seen = new Map<string, { count: number; name: string; schema: JsonSchema }>();
    const walk = (node: Node, name: string, top: boolean): void => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${name}${i}`, false));
      if (!node || typeof node !== 'object') return;
      const s = node as JsonSchema;
      if (!top && !('$ref' in s)) {
        const text = JSON.stringify(s);
        if (text.length >= MIN_DEF_BYTES) {
          const entry = seen.get(text);
          if (entry) entry.count++;
          else seen.set(text, { count: 1, name, schema: s });
        }
      }
      for (const [key, value] of Object.entries(s)) {
        if (LITERAL.has(key)) continue;
        if (SCHEMA_MAPS.has(key) && value && typeof value === 'object') {
          for (const [child, sub] of Object.entries(value)) walk(sub, child, false);
        } else if (key === 'items') walk(value, `${name}Item`, false);
        else if (value && typeof value === 'object') walk(value, name, false);
      }
    };
    walk(root, 'root', true);
    for (const [key, def] of Object.entries(defs)) walk(def, key, true);
    let best: { text: string; name: string; schema: JsonSchema; saving: number } | null = null;
    for (const [text, e] of seen) {
      const saving = e.count * (text.length - REF_BYTES) - text.length - e.name.length - 4;
      if (e.count > 1 && saving > 0 && (!best || saving > best.saving)) best = { text, name: e.name, schema: e.schema, saving };
    }
    if (!best) break;
    const base = best.name.replace(/[^A-Za-z0-9_]/g, '') || 'part';
    let name = base;
    for (let i = 2; name in defs; i++) name = `${base}${i}`;
    const ref = { $ref: `#/$defs/${name}` };
    const target = best.text;
    const replace = (node: Node): Node => {
      if (Array.isArray(node)) return node.map(replace);
      if (!node || typeof node !== 'object') return node;
      if (JSON.stringify(node) === target) return ref;
      const out: JsonSchema = {};
      for (const [key, value] of Object.entries(node as JsonSchema)) out[key] = LITERAL.has(key) ? value : replace(value);
      return out;
    };
    root = replace(root) as JsonSchema;
    for (const key of Object.keys(defs)) defs[key] = replace(defs[key]) as JsonSchema;
    defs[name] = best.schema;
  }
  return Object.keys(defs).length ? { ...root, $defs: defs } : root;
}
