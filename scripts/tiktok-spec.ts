// Writes test/fakes/tiktok-spec/endpoints.json, what the fake TikTok Business API checks requests
// against, from TikTok's published SDK (github.com/tiktok/tiktok-business-api-sdk): per endpoint the
// method, each parameter's name, type, whether it is required, enums and page-size caps.
//
// Run: npx tsc -p . && node dist/scripts/tiktok-spec.js [<bare or working git repository of the SDK>] [<commit>]
// (defaults: /work/.mirror/tiktok+tiktok-business-api-sdk/repo at HEAD). Sources read, all at one commit:
// - python_sdk/docs/*Api.md: each operation's method, path, portal page and parameter table;
// - python_sdk/docs/<Model>.md: the body models (CampaignCreateBody, AdcreateCreatives, ...), one
//   nested level expanded (a creative of ad/create, the filtering of campaign/get);
// - yml_files/<operation>.yml where the SDK ships one (pixel/list, report/integrated/get, tool/url_validate): enums
//   (x-open-enum keys) and numeric bounds (page_size maximum);
// - yml_files/smart_plus_adgroup_create.yml: the ad group's `optimization_event` enum (ExternalAction, its
//   valid keys), which the Adgroup Create docs leave untyped.
// Only the endpoints the TikTok adapter calls are written; keep the file to what the fake uses.
//
// Beside it, test/fakes/tiktok-spec/smart-plus.json: the Upgraded Smart+ endpoints (/smart_plus/campaign/,
// /smart_plus/adgroup/ and /smart_plus/ad/ create, update, status/update and get), which the SDK describes
// only in yml_files/smart_plus_*.yml (OpenAPI 3.0 documents, no python_sdk model): per parameter its type,
// whether the request schema lists it as required, the valid keys of its x-open-enum (`is_valid: true`),
// its bounds (minimum, maximum, maxItems) and its fields, at every depth.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';

const REPOSITORY = 'tiktok/tiktok-business-api-sdk';
const repo = process.argv[2] ?? '/work/.mirror/tiktok+tiktok-business-api-sdk/repo';
const commit = execFileSync('git', ['-C', repo, 'rev-parse', process.argv[3] ?? 'HEAD'], { encoding: 'utf8' }).trim();
const OUT = path.join(process.cwd(), 'test/fakes/tiktok-spec/endpoints.json');
const SMART_PLUS_OUT = path.join(process.cwd(), 'test/fakes/tiktok-spec/smart-plus.json');

/** The endpoints the adapter calls, as `METHOD /path/` below /open_api/v1.3, with the yml file when the SDK has one. */
const WANTED: Record<string, string | null> = {
  'POST /campaign/create/': null,
  'POST /campaign/update/': null,
  'GET /campaign/get/': null,
  'POST /campaign/status/update/': null,
  'POST /adgroup/create/': null,
  'POST /adgroup/update/': null,
  'GET /adgroup/get/': null,
  'POST /adgroup/status/update/': null,
  'POST /ad/create/': null,
  'POST /ad/update/': null,
  'GET /ad/get/': null,
  'POST /ad/status/update/': null,
  'POST /file/image/ad/upload/': null,
  'POST /file/video/ad/upload/': null,
  'GET /file/video/ad/info/': null,
  'GET /file/image/ad/info/': null,
  'GET /tool/region/': null,
  'GET /tool/interest_category/': null,
  'GET /tool/url_validate/': 'yml_files/tool_url_validate.yml',
  'GET /identity/get/': null,
  'GET /dmp/custom_audience/list/': null,
  'GET /pixel/list/': 'yml_files/pixel_list.yml',
  'GET /report/integrated/get/': 'yml_files/report_integrated_get.yml',
};

export interface SpecParam {
  /** string, number, integer, boolean, object, or an array of one of them ("string[]", "object[]"). */
  type: string;
  required: boolean;
  enum?: string[];
  minimum?: number;
  maximum?: number;
  /** Longest array (Smart+ yml files: maxItems). */
  maxItems?: number;
  /**
   * What the API converts a value to before it reads it (Smart+ yml files: x-open-convert): `int64` and
   * `int32` (a string or number of digits: ids, request_id), `datetime` ("YYYY-MM-DD HH:MM:SS" times).
   */
  convert?: 'int64' | 'int32' | 'datetime';
  /** The fields of an object (or of each object of an array) when the SDK models them. */
  fields?: Record<string, SpecParam>;
}

export interface SpecEndpoint {
  /** The SDK file the parameters come from, and the portal page the SDK links for the endpoint. */
  source: string[];
  portal: string | null;
  /** Where the parameters travel: the query string (GET), a JSON body or a multipart form. */
  encoding: 'query' | 'json' | 'multipart';
  params: Record<string, SpecParam>;
}

function show(file: string): string {
  return execFileSync('git', ['-C', repo, 'show', `${commit}:${file}`], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

function files(dir: string): string[] {
  return execFileSync('git', ['-C', repo, 'ls-tree', '--name-only', `${commit}`, `${dir}/`], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
}

const SCALARS: Record<string, string> = { str: 'string', float: 'number', int: 'integer', bool: 'boolean', object: 'object' };

/** A type cell (`**str**`, `[**list[str]**](str.md)`, `[**FilteringCampaignGet**](FilteringCampaignGet.md)`) as a type and a model to expand. */
function typeOf(cell: string): { type: string; model: string | null } {
  const raw = /\*\*([^*]+)\*\*/.exec(cell)?.[1]?.trim() ?? 'object';
  const list = /^list\[(.+)\]$/.exec(raw);
  const inner = list ? list[1] : raw;
  const scalar = SCALARS[inner];
  return { type: `${scalar ?? 'object'}${list ? '[]' : ''}`, model: scalar ? null : inner };
}

/** The property table of a model page (python_sdk/docs/<Model>.md), nested models expanded `depth` levels. */
function model(name: string, depth: number, used: Set<string>): Record<string, SpecParam> {
  const file = `python_sdk/docs/${name}.md`;
  used.add(file);
  const params: Record<string, SpecParam> = {};
  for (const line of show(file).split('\n')) {
    const row = /^\*\*(\w+)\*\* \| (.+?) \| .*?\| (\[required\]|\[optional\])/.exec(line);
    if (!row) continue;
    const { type, model: inner } = typeOf(row[2]);
    params[row[1]] = { type, required: row[3] === '[required]', ...(inner && depth > 0 ? { fields: model(inner, depth - 1, used) } : {}) };
  }
  return params;
}

interface Operation {
  name: string;
  apiFile: string;
  method: string;
  path: string;
  portal: string | null;
}

function operations(): Operation[] {
  const out: Operation[] = [];
  for (const file of files('python_sdk/docs').filter((f) => f.endsWith('Api.md'))) {
    for (const line of show(file).split('\n')) {
      const m = /^\[\*\*(\w+)\*\*\]\(\w+\.md#\w+\) \| \*\*(GET|POST)\*\* \/open_api\/v1\.3(\/\S+) \| (.*)$/.exec(line);
      if (!m) continue;
      const portal = /\((https:\/\/[^)]+)\)/.exec(m[4])?.[1]?.replace(/&#x3D;/g, '=') ?? null;
      out.push({ name: m[1], apiFile: file, method: m[2], path: m[3], portal });
    }
  }
  return out;
}

/** An operation's parameter table (its `### Parameters` section), the body model expanded. */
function endpoint(op: Operation): SpecEndpoint {
  const text = show(op.apiFile);
  const section = text.slice(text.indexOf(`# **${op.name}**`));
  const table = section.slice(section.indexOf('### Parameters'), section.indexOf('### Return type'));
  const headers = section.slice(section.indexOf('### HTTP request headers'), section.indexOf('[[Back to top]]'));
  const used = new Set([op.apiFile]);
  const params: Record<string, SpecParam> = {};
  for (const line of table.split('\n')) {
    const row = /^ \*\*(\w+)\*\* \| (.+?)\| .*\| (\[required\]|\[optional\])/.exec(line);
    if (!row || row[1] === 'access_token') continue;
    const { type, model: inner } = typeOf(row[2]);
    if (row[1] === 'body' && inner) Object.assign(params, model(inner, 1, used));
    else params[row[1]] = { type, required: row[3] === '[required]', ...(inner ? { fields: model(inner, 0, used) } : {}) };
  }
  const encoding = op.method === 'GET' ? 'query' : /multipart\/form-data/.test(headers) ? 'multipart' : 'json';
  return { source: [...used], portal: op.portal, encoding, params };
}

/** Enums and bounds of the top-level parameters of an OpenAPI-like yml file of the SDK (read line by line: the files are regular). */
function ymlBounds(file: string): Record<string, Pick<SpecParam, 'enum' | 'minimum' | 'maximum'>> {
  const out: Record<string, Pick<SpecParam, 'enum' | 'minimum' | 'maximum'>> = {};
  const lines = show(file).split('\n');
  let entry: { name?: string; bounds: Pick<SpecParam, 'enum' | 'minimum' | 'maximum'> } | null = null;
  let valid = true;
  const close = () => {
    if (entry?.name) out[entry.name] = entry.bounds;
  };
  for (const line of lines.slice(lines.findIndex((l) => /^ {6}parameters:/.test(l)) + 1)) {
    if (/^ {0,6}\S/.test(line) && !/^ {6}- /.test(line)) break;
    if (/^ {6}- /.test(line)) {
      close();
      entry = { bounds: {} };
    }
    if (!entry) continue;
    const name = /^ {8}name: (\S+)/.exec(line);
    if (name) entry.name = name[1];
    const bound = /^ {10}(maximum|minimum): (\d+)/.exec(line);
    if (bound) entry.bounds[bound[1] as 'maximum' | 'minimum'] = Number(bound[2]);
    const validity = /^ {14}is_valid: (true|false)/.exec(line);
    if (validity) valid = validity[1] === 'true';
    const key = /^ {14}key: (\S+)/.exec(line);
    if (key && valid) (entry.bounds.enum ??= []).push(key[1]);
  }
  close();
  return out;
}

/** The valid keys of the x-open-enum of body field `field` in a yml file (the first field of that name). */
function bodyEnum(file: string, field: string): string[] {
  const lines = show(file).split('\n');
  const at = lines.findIndex((l) => new RegExp(`^ +${field}:$`).test(l));
  if (at < 0) throw new Error(`${file} has no body field ${field}.`);
  const values: string[] = [];
  let valid = true;
  for (const line of lines.slice(at + 1)) {
    if (/x-open-field-id:/.test(line)) break;
    const validity = /is_valid: (true|false)/.exec(line);
    if (validity) valid = validity[1] === 'true';
    const key = /^ +key: (\S+)/.exec(line);
    if (key && valid) values.push(key[1]);
  }
  return values;
}

/** Enums of body fields the docs leave untyped, with the file they come from. */
const BODY_ENUMS = { optimization_event: 'yml_files/smart_plus_adgroup_create.yml' };

const all = operations();
const endpoints: Record<string, SpecEndpoint> = {};
for (const [key, yml] of Object.entries(WANTED)) {
  const [method, route] = key.split(' ');
  const op = all.find((o) => o.method === method && o.path === route);
  if (!op) throw new Error(`The SDK at ${commit} has no ${key}.`);
  const spec = endpoint(op);
  if (yml) {
    spec.source.push(yml);
    for (const [name, bounds] of Object.entries(ymlBounds(yml))) if (spec.params[name]) Object.assign(spec.params[name], bounds);
  }
  endpoints[key] = spec;
}

mkdirSync(path.dirname(OUT), { recursive: true });
writeFileSync(
  OUT,
  `${JSON.stringify(
    {
      generatedBy: 'scripts/tiktok-spec.ts',
      repository: `https://github.com/${REPOSITORY}`,
      commit,
      base: '/open_api/v1.3',
      endpoints,
      enums: Object.fromEntries(Object.entries(BODY_ENUMS).map(([field, file]) => [field, { source: file, values: bodyEnum(file, field) }])),
    },
    null,
    1,
  )}\n`,
);
console.log(`wrote ${Object.keys(endpoints).length} endpoints from ${REPOSITORY}@${commit} to ${path.relative(process.cwd(), OUT)}`);

// ---- Smart+ (yml_files/smart_plus_*.yml) -------------------------------------------------------------

/** The Smart+ endpoints the adapter calls, and the yml file of each. */
const SMART_PLUS: Record<string, string> = {
  'POST /smart_plus/campaign/create/': 'yml_files/smart_plus_campaign_create.yml',
  'POST /smart_plus/campaign/update/': 'yml_files/smart_plus_campaign_update.yml',
  'POST /smart_plus/campaign/status/update/': 'yml_files/smart_plus_campaign_status_update.yml',
  'GET /smart_plus/campaign/get/': 'yml_files/smart_plus_campaign_get.yml',
  'POST /smart_plus/adgroup/create/': 'yml_files/smart_plus_adgroup_create.yml',
  'POST /smart_plus/adgroup/update/': 'yml_files/smart_plus_adgroup_update.yml',
  'POST /smart_plus/adgroup/status/update/': 'yml_files/smart_plus_adgroup_status_update.yml',
  'GET /smart_plus/adgroup/get/': 'yml_files/smart_plus_adgroup_get.yml',
  'POST /smart_plus/ad/create/': 'yml_files/smart_plus_ad_create.yml',
  'POST /smart_plus/ad/update/': 'yml_files/smart_plus_ad_update.yml',
  'POST /smart_plus/ad/status/update/': 'yml_files/smart_plus_ad_status_update.yml',
  'GET /smart_plus/ad/get/': 'yml_files/smart_plus_ad_get.yml',
};

/** A schema node of the yml files, as far as the spec reads it. */
interface YmlSchema {
  type?: string;
  properties?: Record<string, YmlSchema>;
  items?: YmlSchema;
  required?: string[];
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  'x-open-enum'?: { enums: Array<{ key: string; is_valid: boolean }> };
  'x-open-convert'?: string[];
}

/** The conversion an x-open-convert entry names (`int64(%s)`, `datetime_to_timestamp(%s, ...)`). */
function convertOf(schema: YmlSchema): SpecParam['convert'] | undefined {
  const rule = schema['x-open-convert']?.[0] ?? '';
  return rule.startsWith('int64(') ? 'int64' : rule.startsWith('int32(') ? 'int32' : rule.startsWith('datetime_to_timestamp(') ? 'datetime' : undefined;
}

const YML_SCALARS: Record<string, string> = { string: 'string', number: 'number', integer: 'integer', boolean: 'boolean', object: 'object' };

/** One yml schema as a SpecParam: an array takes its items' type, enum and fields; enums keep their valid keys only. */
function ymlParam(schema: YmlSchema, required: boolean): SpecParam {
  const inner = schema.type === 'array' ? (schema.items ?? {}) : schema;
  const type = `${YML_SCALARS[inner.type ?? 'object'] ?? 'object'}${schema.type === 'array' ? '[]' : ''}`;
  const values = inner['x-open-enum']?.enums.filter((e) => e.is_valid).map((e) => e.key);
  const fields = inner.properties ? ymlFields(inner) : undefined;
  const convert = convertOf(inner);
  return {
    type,
    required,
    ...(values?.length ? { enum: values } : {}),
    ...(convert ? { convert } : {}),
    ...(inner.minimum !== undefined ? { minimum: inner.minimum } : {}),
    ...(inner.maximum !== undefined ? { maximum: inner.maximum } : {}),
    ...(schema.maxItems !== undefined ? { maxItems: schema.maxItems } : {}),
    ...(fields ? { fields } : {}),
  };
}

function ymlFields(schema: YmlSchema): Record<string, SpecParam> {
  const required = new Set(schema.required ?? []);
  return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([name, p]) => [name, ymlParam(p, required.has(name))]));
}

/** One Smart+ endpoint from its yml file: the JSON body of a POST, the query of a GET (less the Access-Token header). */
async function smartPlusEndpoint(key: string, file: string, dir: string): Promise<SpecEndpoint> {
  const [method, route] = key.split(' ');
  const local = path.join(dir, path.basename(file));
  writeFileSync(local, show(file));
  const doc = (await SwaggerParser.parse(local)) as unknown as {
    paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string; required?: boolean; schema?: YmlSchema }>; requestBody?: any }>>;
  };
  const op = doc.paths[route]?.[method.toLowerCase()];
  if (!op) throw new Error(`${file} at ${commit} has no ${key}.`);
  const params: Record<string, SpecParam> =
    method === 'GET'
      ? Object.fromEntries(
          (op.parameters ?? [])
            .filter((q) => q.in === 'query' && q.name !== 'Access-Token')
            .map((q) => [q.name, ymlParam(q.schema ?? {}, q.required === true)]),
        )
      : ymlFields(op.requestBody?.content?.['application/json']?.schema ?? {});
  return { source: [file], portal: null, encoding: method === 'GET' ? 'query' : 'json', params };
}

const scratch = mkdtempSync(path.join(os.tmpdir(), 'tiktok-spec-'));
try {
  const smartPlus: Record<string, SpecEndpoint> = {};
  for (const [key, file] of Object.entries(SMART_PLUS)) smartPlus[key] = await smartPlusEndpoint(key, file, scratch);
  writeFileSync(
    SMART_PLUS_OUT,
    `${JSON.stringify({ generatedBy: 'scripts/tiktok-spec.ts', repository: `https://github.com/${REPOSITORY}`, commit, base: '/open_api/v1.3', endpoints: smartPlus }, null, 1)}\n`,
  );
  console.log(`wrote ${Object.keys(smartPlus).length} Smart+ endpoints from ${REPOSITORY}@${commit} to ${path.relative(process.cwd(), SMART_PLUS_OUT)}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
