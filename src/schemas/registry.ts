// Loads every JSON Schema under `schemas/` once, compiles each with Ajv (2020-12) on its first use,
// and turns validation errors into the contract's `{field, message, code}` details.
//
// Compiling on first use, not at boot: compiling every schema of the catalogue took most of the
// start-up (bench/startup.ts), while a process uses few of them; code generated at build time
// (Ajv standalone) was measured too and costs more to load than the lazy boot (about 2.3 MB of
// code per side). test/unit/catalogue.test.ts compiles every schema, so a broken one still fails
// the build. Two Ajv instances stay: input fills defaults and turns digit ids into numbers, output
// strips what the schema does not allow (removeAdditional), options Ajv takes per instance.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type * as addFormatsModule from 'ajv-formats';
import { validationFailed, type FieldIssue } from '../errors.js';
import { projectPath } from '../paths.js';
import { patchInputSchema } from '../merge-patch.js';
import { kindProblem, storedLines, textIssues, type TextKind } from './text.js';
import { adUrlProblem } from './ad-addresses.js';

// Ajv is loaded, and given every schema, on the first validation, not at start-up (the first
// /healthz needs neither). Both packages are CommonJS.
const require = createRequire(import.meta.url);

function newAjv(options: ConstructorParameters<typeof Ajv2020>[0]): Ajv2020 {
  const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  return new Ajv(options);
}

function addFormats(...args: Parameters<typeof addFormatsModule.default.default>): void {
  (require('ajv-formats') as typeof addFormatsModule.default.default)(...args);
}

export type JsonSchema = Record<string, unknown>;

// No check of each schema against the 2020-12 meta-schema at start-up (compiling the meta-schema
// alone cost a sixth of the boot): test/unit/catalogue.test.ts checks every schema file against it.
const AJV_COMMON = { strict: true, allErrors: true, allowUnionTypes: true, validateSchema: false } as const;

/** Ids this service numbers: 1 to the largest 32-bit signed integer. */
const ID_MAX = 2_147_483_647;
const ID_DIGITS = /^[1-9][0-9]{0,9}$/;

/**
 * The `idDigits` keyword of the shared `id` schema (common#/$defs/id): an id sent as a string of
 * digits becomes the number, in place, so every operation sees one type whichever form arrived.
 * Only input validation changes data; answers are checked, never rewritten this way.
 */
interface IdCheck {
  (
    enabled: boolean,
    data: string,
    parentSchema?: unknown,
    cxt?: { parentData: Record<string | number, unknown>; parentDataProperty: string | number },
  ): boolean;
  errors?: Partial<ErrorObject>[];
}

function addIdKeyword(ajv: Ajv2020, normalize: boolean): void {
  const check: IdCheck = (enabled, data, _parentSchema, cxt) => {
    check.errors = [];
    if (!enabled || !ID_DIGITS.test(data)) return true;
    const n = Number(data);
    if (n > ID_MAX) {
      check.errors = [{ keyword: 'idDigits', message: `must be at most ${ID_MAX}`, params: { limit: ID_MAX } }];
      return false;
    }
    if (normalize && cxt) cxt.parentData[cxt.parentDataProperty] = n;
    return true;
  };
  ajv.addKeyword({ keyword: 'idDigits', type: 'string', schemaType: 'boolean', modifying: normalize, errors: true, validate: check });
}

/**
 * The `textKind` keyword of a string field: `line` (a name, a title, a URL) refuses control
 * characters, bidirectional overrides and isolates, line separators and a byte-order mark;
 * `multiline` (a description, an ad's primary text, a comment) allows line feeds and tabs of them,
 * and stores each CR LF pair as a line feed (input validation only; answers are never checked so).
 */
interface TextCheck {
  (kind: TextKind, data: string, parentSchema?: unknown, cxt?: { parentData: Record<string | number, unknown>; parentDataProperty: string | number }): boolean;
  errors?: Partial<ErrorObject>[];
}

function addTextKeyword(ajv: Ajv2020, check: boolean): void {
  const validate: TextCheck = (kind, data, _parentSchema, cxt) => {
    validate.errors = [];
    if (!check) return true;
    const text = kind === 'multiline' ? storedLines(data) : data;
    const problem = kindProblem(text, kind);
    if (problem) {
      validate.errors = [{ keyword: 'textKind', message: problem, params: { kind } }];
      return false;
    }
    if (text !== data && cxt) cxt.parentData[cxt.parentDataProperty] = text;
    return true;
  };
  ajv.addKeyword({
    keyword: 'textKind',
    type: 'string',
    schemaType: 'string',
    metaSchema: { enum: ['line', 'multiline'] },
    modifying: check,
    errors: true,
    validate,
  });
}

/** The `adUrl` keyword of an address an ad carries (ad-addresses.ts): checked on input only. */
interface AdUrlCheck {
  (enabled: boolean, data: string): boolean;
  errors?: Partial<ErrorObject>[];
}

function addAdUrlKeyword(ajv: Ajv2020, check: boolean): void {
  const validate: AdUrlCheck = (enabled, data) => {
    validate.errors = [];
    const problem = check && enabled ? adUrlProblem(data) : null;
    if (problem) validate.errors = [{ keyword: 'adUrl', message: problem, params: {} }];
    return problem === null;
  };
  ajv.addKeyword({ keyword: 'adUrl', type: 'string', schemaType: 'boolean', errors: true, validate });
}

/** Reads every `*.json` schema file below `schemas/` (not `schemas/examples/`, which holds example requests). */
export function loadSchemaFiles(dir = projectPath('schemas')): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && full === projectPath('schemas', 'examples')) continue;
    if (entry.isDirectory()) out.push(...loadSchemaFiles(full));
    else if (entry.name.endsWith('.json')) out.push(JSON.parse(fs.readFileSync(full, 'utf8')) as JsonSchema);
  }
  return out;
}

const COMPARISON: Record<string, string> = { '<=': 'at most', '>=': 'at least', '<': 'less than', '>': 'greater than' };

function fieldOf(instancePath: string, extra?: string): string {
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  let out = '';
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : out ? `.${p}` : p;
  return out;
}

function issueOf(e: ErrorObject): FieldIssue {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties':
      return {
        field: fieldOf(e.instancePath, String(p.additionalProperty)),
        code: 'unrecognized_key',
        message: `is not recognised; remove "${p.additionalProperty}"`,
      };
    case 'unevaluatedProperties':
      return {
        field: fieldOf(e.instancePath, String(p.unevaluatedProperty)),
        code: 'unrecognized_key',
        message: `is not recognised; remove "${p.unevaluatedProperty}"`,
      };
    case 'required':
      return { field: fieldOf(e.instancePath, String(p.missingProperty)), code: 'invalid_type', message: 'is required' };
    case 'type':
      return { field: fieldOf(e.instancePath), code: 'invalid_type', message: `must be ${String(p.type).replace(',', ' or ')}` };
    case 'maxLength':
      return { field: fieldOf(e.instancePath), code: 'too_big', message: `must be at most ${p.limit} characters` };
    case 'minLength':
      return {
        field: fieldOf(e.instancePath),
        code: 'too_small',
        message: Number(p.limit) === 1 ? 'must not be empty' : `must be at least ${p.limit} characters`,
      };
    case 'maxItems':
      return { field: fieldOf(e.instancePath), code: 'too_big', message: `must have at most ${p.limit} entries` };
    case 'minItems':
      return { field: fieldOf(e.instancePath), code: 'too_small', message: `must have at least ${p.limit} entries` };
    case 'maxProperties':
      return { field: fieldOf(e.instancePath), code: 'too_big', message: `must have at most ${p.limit} fields` };
    case 'minProperties':
      return { field: fieldOf(e.instancePath), code: 'too_small', message: `must have at least ${p.limit} fields` };
    case 'maximum':
    case 'exclusiveMaximum':
      return { field: fieldOf(e.instancePath), code: 'too_big', message: `must be ${COMPARISON[String(p.comparison)]} ${p.limit}` };
    case 'minimum':
    case 'exclusiveMinimum':
      return { field: fieldOf(e.instancePath), code: 'too_small', message: `must be ${COMPARISON[String(p.comparison)]} ${p.limit}` };
    case 'enum':
      return { field: fieldOf(e.instancePath), code: 'invalid_value', message: `must be one of: ${(p.allowedValues as unknown[]).join(', ')}` };
    case 'const':
      return { field: fieldOf(e.instancePath), code: 'invalid_value', message: `must be ${JSON.stringify(p.allowedValue)}` };
    case 'pattern':
      // An id that is neither a number nor digits is of the wrong kind, not a wrong value.
      if (p.pattern === ID_DIGITS.source)
        return { field: fieldOf(e.instancePath), code: 'invalid_type', message: 'must be an id: a whole number from 1, or its digits as a string' };
      return { field: fieldOf(e.instancePath), code: 'invalid_value', message: `must match ${p.pattern}` };
    case 'idDigits':
      return { field: fieldOf(e.instancePath), code: 'too_big', message: String(e.message) };
    case 'textKind':
    case 'adUrl':
      return { field: fieldOf(e.instancePath), code: 'invalid_value', message: String(e.message) };
    case 'format':
      return { field: fieldOf(e.instancePath), code: 'invalid_value', message: `must be a valid ${p.format}` };
    default:
      return { field: fieldOf(e.instancePath), code: 'invalid_value', message: e.message ?? 'is invalid' };
  }
}

/** One issue per field, in the order Ajv found them; combinator noise (anyOf/oneOf/if) is dropped. */
export function issuesOf(errors: ErrorObject[] | null | undefined): FieldIssue[] {
  const seen = new Set<string>();
  const out: FieldIssue[] = [];
  for (const e of errors ?? []) {
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === 'if') continue;
    const issue = issueOf(e);
    const key = `${issue.field}|${issue.code}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(issue);
  }
  return out;
}

export class SchemaRegistry {
  private ajvs: { input: Ajv2020; output: Ajv2020 } | null = null;
  private readonly byId = new Map<string, JsonSchema>();
  private readonly inputFns = new Map<string, ValidateFunction>();
  private readonly outputFns = new Map<string, ValidateFunction>();
  private readonly patchFns = new Map<string, ValidateFunction>();
  private readonly patchSchemas = new Map<string, JsonSchema>();
  private readonly bundles = new Map<string, JsonSchema>();

  constructor(schemas: JsonSchema[] = loadSchemaFiles()) {
    for (const s of schemas) this.add(s);
  }

  /** The two Ajv instances, made with every schema registered so far on first use. */
  private get ajv(): { input: Ajv2020; output: Ajv2020 } {
    if (!this.ajvs) {
      const input = newAjv({ ...AJV_COMMON, useDefaults: true, coerceTypes: false });
      const output = newAjv({ ...AJV_COMMON, removeAdditional: true });
      addFormats(input);
      addIdKeyword(input, true);
      addIdKeyword(output, false);
      addTextKeyword(input, true);
      addTextKeyword(output, false);
      addAdUrlKeyword(input, true);
      addAdUrlKeyword(output, false);
      // Our own answers need no strict format regexes: the fast ones catch a wrong type of value at a fraction of the cost.
      addFormats(output, { mode: 'fast' });
      for (const s of this.byId.values()) {
        input.addSchema(s);
        output.addSchema(s);
      }
      this.ajvs = { input, output };
    }
    return this.ajvs;
  }

  /** Registers a schema (tests register their own operations' schemas this way). */
  add(schema: JsonSchema): void {
    const id = schema.$id;
    if (typeof id !== 'string') throw new Error('every schema needs a string $id');
    if (this.byId.has(id)) throw new Error(`schema $id "${id}" is defined twice`);
    this.byId.set(id, schema);
    if (this.ajvs) {
      this.ajvs.input.addSchema(schema);
      this.ajvs.output.addSchema(schema);
    }
  }

  /** True when `id` (a schema $id, optionally with a `#/json/pointer`) names a schema. */
  has(id: string): boolean {
    try {
      this.get(id);
      return true;
    } catch {
      return false;
    }
  }

  get(id: string): JsonSchema {
    const [base, pointer] = id.split('#');
    let node: unknown = this.byId.get(base);
    for (const part of (pointer ?? '').split('/').filter(Boolean)) node = (node as Record<string, unknown> | undefined)?.[part];
    if (!node || typeof node !== 'object') throw new Error(`unknown schema "${id}"`);
    return node as JsonSchema;
  }

  /** Compiles a schema for both uses now (tests check that every schema compiles). */
  compile(id: string): void {
    this.inputFn(id);
    this.outputFn(id);
  }

  private inputFn(id: string): ValidateFunction {
    let fn = this.inputFns.get(id);
    if (!fn) {
      this.get(id);
      fn = this.ajv.input.getSchema(id)!;
      this.inputFns.set(id, fn);
    }
    return fn;
  }

  private outputFn(id: string): ValidateFunction {
    let fn = this.outputFns.get(id);
    if (!fn) {
      this.get(id);
      fn = this.ajv.output.getSchema(id)!;
      this.outputFns.set(id, fn);
    }
    return fn;
  }

  /** Validates input in place (defaults filled in); throws 400 `validation_failed` with details. Every string must be text (text.ts). */
  validateInput<T>(id: string, data: unknown, prefix?: string): T {
    const fn = this.inputFn(id);
    const notText = textIssues(data, prefix);
    if (notText.length) throw validationFailed(notText);
    if (!fn(data)) {
      const issues = issuesOf(fn.errors);
      throw validationFailed(prefix ? issues.map((i) => ({ ...i, field: i.field ? `${prefix}.${i.field}` : prefix })) : issues);
    }
    return data as T;
  }

  /**
   * Validates a PATCH body before it is merged: the input schema with each object-valued field
   * taking a merge patch (null removes a key, nothing inside is required; merge-patch.ts). The
   * merged result is checked against `id` itself afterwards.
   */
  validatePatchInput<T>(id: string, data: unknown): T {
    const fn = this.patchFn(id);
    const notText = textIssues(data);
    if (notText.length) throw validationFailed(notText);
    if (!fn(data)) throw validationFailed(issuesOf(fn.errors));
    return data as T;
  }

  /**
   * Makes the PATCH form of an input schema now, so a schema it cannot be made from fails at boot;
   * it is compiled on first use (`compile: true` compiles it now, as tests do).
   */
  preparePatch(id: string, options: { compile?: boolean } = {}): void {
    if (!this.patchSchemas.has(id)) this.patchSchemas.set(id, patchInputSchema(this.validationBundle(id)));
    if (options.compile) this.patchFn(id);
  }

  private patchFn(id: string): ValidateFunction {
    let fn = this.patchFns.get(id);
    if (!fn) {
      this.preparePatch(id);
      fn = this.ajv.input.compile(this.patchSchemas.get(id)!);
      this.patchFns.set(id, fn);
    }
    return fn;
  }

  /** Strips fields the output schema does not allow; returns the issues left, if any. */
  shapeOutput(id: string, data: unknown): FieldIssue[] {
    const fn = this.outputFn(id);
    return fn(data) ? [] : issuesOf(fn.errors);
  }

  /**
   * Turns path and query strings into the types the input schema declares (integer, number,
   * boolean, arrays of those). Only path and query input is coerced; JSON bodies never are.
   */
  coerceParams(id: string, params: Record<string, string | string[] | undefined>): Record<string, unknown> {
    const props = (this.bundleShared(id).properties ?? {}) as Record<string, JsonSchema>;
    const out: Record<string, unknown> = {};
    for (const [name, raw] of Object.entries(params)) {
      if (raw === undefined) continue;
      out[name] = coerceValue(props[name], raw);
    }
    return out;
  }

  /** The schema with every `$ref` inlined: for OpenAPI and MCP tool definitions. */
  bundle(id: string): JsonSchema {
    let b = this.bundles.get(id);
    if (!b) {
      b = this.inline(this.get(id), id.split('#')[0], [], false) as JsonSchema;
      this.bundles.set(id, b);
    }
    return structuredClone(b);
  }

  /**
   * The bundle as this service validates with it: the `idDigits` and `textKind` keywords kept, so ids
   * sent as digits still become numbers (the generated input types read it to type those ids as
   * numbers) and a merged PATCH body is checked for its text.
   */
  validationBundle(id: string): JsonSchema {
    return this.inline(this.get(id), id.split('#')[0], [], true) as JsonSchema;
  }

  private bundleShared(id: string): JsonSchema {
    if (!this.bundles.has(id)) this.bundle(id);
    return this.bundles.get(id)!;
  }

  private inline(node: unknown, baseId: string, trail: string[], keepIdDigits: boolean): unknown {
    if (Array.isArray(node)) return node.map((n) => this.inline(n, baseId, trail, keepIdDigits));
    if (!node || typeof node !== 'object') return node;
    const obj = node as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    let merged: Record<string, unknown> | null = null;
    for (const [k, v] of Object.entries(obj)) {
      if (k === '$ref' && typeof v === 'string') {
        const [refId, pointer] = v.split('#');
        const targetId = refId || baseId;
        if (trail.includes(v)) throw new Error(`schema ${baseId}: recursive $ref ${v} cannot be bundled`);
        let target: unknown = this.get(targetId);
        for (const part of (pointer ?? '').split('/').filter(Boolean)) target = (target as Record<string, unknown>)[part];
        if (target === undefined) throw new Error(`schema ${baseId}: $ref ${v} points at nothing`);
        merged = this.inline(target, targetId, [...trail, v], keepIdDigits) as Record<string, unknown>;
      } else if (
        k === '$id' ||
        k === '$schema' ||
        k === '$defs' ||
        ((k === 'idDigits' || k === 'textKind' || k === 'adUrl') && !keepIdDigits && typeof v !== 'object')
      ) {
        continue;
      } else {
        out[k] = this.inline(v, baseId, trail, keepIdDigits);
      }
    }
    return merged ? { ...merged, ...out } : out;
  }
}

function typesOf(schema: JsonSchema | undefined): string[] {
  const t = schema?.type;
  return Array.isArray(t) ? (t as string[]) : typeof t === 'string' ? [t] : [];
}

function coerceScalar(schema: JsonSchema | undefined, raw: string): unknown {
  const types = typesOf(schema);
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  if (types.includes('boolean') && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}

function coerceValue(schema: JsonSchema | undefined, raw: string | string[]): unknown {
  if (typesOf(schema).includes('array')) {
    const items = schema?.items as JsonSchema | undefined;
    return (Array.isArray(raw) ? raw : [raw]).map((r) => coerceScalar(items, r));
  }
  // A repeated parameter that is not an array stays an array, so validation names it.
  return Array.isArray(raw) ? raw : coerceScalar(schema, raw);
}
