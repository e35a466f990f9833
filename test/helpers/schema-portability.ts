// The schema-portability rules a tool's input schema must pass to work in every mainstream client:
// what the MCP Inspector's schema check warns about, written from the subset its warnings name
// (Gemini's function-declaration Schema, https://ai.google.dev/api/caching#Schema: one `type`
// among the six, no references or combinators, `items` on every array, string `enum`s, formats
// `enum` and `date-time` only; "properties: should be non-empty for OBJECT type" is Gemini's own
// error for an object that lists none) plus the contract's own: every property described, every
// tool titled. Each broken rule is one warning naming the tool and the place.

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);
/** The fields of Gemini's Schema, without `anyOf` and `nullable`, which the contract rules out. */
const KEYWORDS = new Set([
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
const FORMATS = new Set(['date-time', 'enum']);

interface ListedTool {
  name: string;
  title?: string;
  inputSchema: Record<string, unknown>;
}

/** Every warning for one schema node and what it holds; `root` is the tool's inputSchema itself. */
function check(node: unknown, path: string, root: boolean, out: string[]): void {
  const where = path || 'inputSchema';
  if (!node || typeof node !== 'object' || Array.isArray(node)) {
    out.push(`${where}: not a schema object`);
    return;
  }
  const s = node as Record<string, unknown>;
  for (const key of Object.keys(s)) if (!KEYWORDS.has(key)) out.push(`${where}: keyword ${key} is outside the portable subset`);
  if (Array.isArray(s.type)) out.push(`${where}: type is an array (${JSON.stringify(s.type)})`);
  else if (typeof s.type !== 'string' || !TYPES.has(s.type)) out.push(`${where}: no single type`);
  if (s.format !== undefined && !FORMATS.has(s.format as string)) out.push(`${where}: format ${String(s.format)} is not portable`);
  if (s.enum !== undefined) {
    if (!Array.isArray(s.enum) || !s.enum.length || !s.enum.every((v) => typeof v === 'string')) out.push(`${where}: enum must be a non-empty list of strings`);
    if (s.type !== 'string') out.push(`${where}: an enum must be of type string`);
  }
  if (s.type === 'array') {
    if (!s.items) out.push(`${where}: array without items`);
    else check(s.items, `${path}[]`, false, out);
  }
  if (s.type === 'object') {
    const properties = (s.properties ?? {}) as Record<string, unknown>;
    if (!root && !Object.keys(properties).length) out.push(`${where}: object without properties`);
    for (const name of (s.required as string[] | undefined) ?? []) if (!(name in properties)) out.push(`${where}: required ${name} is not a property`);
    for (const [name, sub] of Object.entries(properties)) {
      const at = path ? `${path}.${name}` : name;
      const description = (sub as { description?: unknown } | null)?.description;
      if (typeof description !== 'string' || !description.trim()) out.push(`${at}: no description`);
      check(sub, at, false, out);
    }
  }
}

/** The portability warnings of a tools/list answer: none when every tool passes. */
export function portabilityWarnings(tools: ListedTool[]): string[] {
  const out: string[] = [];
  for (const tool of tools) {
    const mine: string[] = [];
    if (typeof tool.title !== 'string' || !tool.title.trim()) mine.push('no title');
    if (tool.inputSchema.type !== 'object') mine.push('inputSchema is not of type object');
    check(tool.inputSchema, '', true, mine);
    out.push(...mine.map((w) => `${tool.name}: ${w}`));
  }
  return out;
}

/** Keywords no portable schema carries, input or output: references, combinators, nullability. */
const NEVER = ['$ref', '$defs', 'anyOf', 'oneOf', 'allOf', 'not', 'nullable', 'const'];

/** The warnings for one output schema node: one `type` (when it names one), none of NEVER, string enums. */
function checkOutput(node: unknown, path: string, out: string[]): void {
  if (!node || typeof node !== 'object' || Array.isArray(node)) {
    out.push(`${path}: not a schema object`);
    return;
  }
  const s = node as Record<string, unknown>;
  for (const key of NEVER) if (key in s) out.push(`${path}: keyword ${key} is outside the portable subset`);
  if (Array.isArray(s.type)) out.push(`${path}: type is an array (${JSON.stringify(s.type)})`);
  else if (s.type !== undefined && (typeof s.type !== 'string' || !TYPES.has(s.type))) out.push(`${path}: type ${String(s.type)} is not one of the six`);
  if (s.enum !== undefined && (!Array.isArray(s.enum) || !s.enum.every((v) => typeof v === 'string'))) out.push(`${path}: enum must be a list of strings`);
  if (s.items !== undefined) checkOutput(s.items, `${path}[]`, out);
  for (const [name, sub] of Object.entries((s.properties ?? {}) as Record<string, unknown>)) checkOutput(sub, `${path}.${name}`, out);
  for (const name of (s.required as string[] | undefined) ?? [])
    if (s.properties && !(name in (s.properties as object))) out.push(`${path}: required ${name} is not a property`);
}

/**
 * The portability warnings of the output schemas of a tools/list answer (the Inspector checks them
 * too, and Gemini's mcpToTool hands them to the model): one type per field, never a type array (a
 * nullable field is left open), no references or combinators.
 */
export function outputPortabilityWarnings(tools: Array<{ name: string; outputSchema?: Record<string, unknown> }>): string[] {
  const out: string[] = [];
  for (const tool of tools) {
    if (!tool.outputSchema) continue;
    const mine: string[] = [];
    if (tool.outputSchema.type !== 'object') mine.push('outputSchema is not of type object');
    checkOutput(tool.outputSchema, 'outputSchema', mine);
    out.push(...mine.map((w) => `${tool.name}: ${w}`));
  }
  return out;
}
