// Writes test/fakes/meta-spec/graph-spec.json, what the fake Graph API (test/fakes/meta-server.ts)
// checks every request against, from Meta's published specification (facebook/facebook-business-sdk-codegen
// api_specs). Usage: npx tsc -p . && node dist/scripts/meta-spec.js <codegen git dir or checkout> [commit]

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPOSITORY = 'facebook/facebook-business-sdk-codegen';
const OUT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test/fakes/meta-spec/graph-spec.json');

/** One endpoint of the fake: the node spec it comes from, the method, and its edge ('' for the node itself). */
const ENDPOINTS: Array<{ key: string; node: string; method: 'GET' | 'POST' | 'DELETE'; edge: string }> = [
  ...['campaigns', 'adsets', 'ads', 'adcreatives', 'adimages', 'advideos', 'adlabels'].flatMap((edge) => [
    { key: `POST act/${edge}`, node: 'AdAccount', method: 'POST' as const, edge },
    { key: `GET act/${edge}`, node: 'AdAccount', method: 'GET' as const, edge },
  ]),
  ...['insights', 'campaignsbylabels', 'adsetsbylabels', 'adsbylabels', 'adspixels', 'promote_pages', 'instagram_accounts', 'customaudiences'].map((edge) => ({
    key: `GET act/${edge}`,
    node: 'AdAccount',
    method: 'GET' as const,
    edge,
  })),
  ...(
    [
      ['campaign', 'Campaign'],
      ['adset', 'AdSet'],
      ['ad', 'Ad'],
      ['creative', 'AdCreative'],
    ] as const
  ).flatMap(([level, node]) => [
    { key: `POST ${level}`, node, method: 'POST' as const, edge: '' },
    { key: `GET ${level}`, node, method: 'GET' as const, edge: '' },
    { key: `DELETE ${level}`, node, method: 'DELETE' as const, edge: '' },
  ]),
  { key: 'GET video', node: 'AdVideo', method: 'GET', edge: '' },
  { key: 'GET page/leadgen_forms', node: 'Page', method: 'GET', edge: 'leadgen_forms' },
];

/** Object types whose fields the fake checks inside a parameter (others are taken as any object). */
const CHECKED_TYPES = [
  'AdCreative',
  'AdCreativeObjectStorySpec',
  'AdCreativeLinkData',
  'AdCreativeVideoData',
  'AdCreativeLinkDataCallToAction',
  'AdCreativeLinkDataCallToActionValue',
  'Targeting',
  'TargetingGeoLocation',
  'TargetingGeoLocationRegion',
  'TargetingGeoLocationCity',
  'FlexibleTargeting',
  'IDName',
  'VideoStatus',
];

interface Param {
  name: string;
  type: string;
  required?: boolean;
}

function main(): void {
  const [gitDir, commitArg] = process.argv.slice(2);
  if (!gitDir) throw new Error('usage: node dist/scripts/meta-spec.js <codegen git dir> [commit]');
  const git = (...args: string[]) => execFileSync('git', ['-C', gitDir, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const commit = (commitArg ?? git('rev-parse', 'HEAD')).trim();
  const read = (file: string) => git('show', `${commit}:${file}`);
  const specOf = (node: string) => JSON.parse(read(`api_specs/specs/${node}.json`)) as { apis: any[]; fields: Param[] };
  const enumList = JSON.parse(read('api_specs/specs/enum_types.json')) as Array<{ name: string; values: string[] }>;
  const enumValues = new Map(enumList.map((e) => [e.name, e.values]));
  const graphVersion = read('api_specs/specs/version.txt').trim();

  const usedEnums = new Set<string>();
  const usedTypes = new Set<string>();
  const note = (type: string) => {
    for (const name of type.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []) {
      if (enumValues.has(name)) usedEnums.add(name);
      else if (CHECKED_TYPES.includes(name)) usedTypes.add(name);
    }
  };

  const endpoints: Record<string, { source: string; params: Record<string, { type: string; required?: true }> }> = {};
  for (const e of ENDPOINTS) {
    const api = specOf(e.node).apis.find((a) => a.method === e.method && (a.endpoint ?? '') === e.edge);
    if (!api) throw new Error(`${e.node} has no ${e.method} ${e.edge || '(node)'}`);
    const params: Record<string, { type: string; required?: true }> = {};
    for (const p of (api.params ?? []) as Param[]) {
      params[p.name] = { type: p.type, ...(p.required ? { required: true as const } : {}) };
      note(p.type);
    }
    endpoints[e.key] = { source: `api_specs/specs/${e.node}.json ${e.method} ${e.edge || '(node)'}`, params };
  }

  const types: Record<string, Record<string, string>> = {};
  const queue = [...usedTypes];
  while (queue.length) {
    const name = queue.shift()!;
    if (types[name]) continue;
    types[name] = Object.fromEntries(specOf(name).fields.map((f) => [f.name, f.type]));
    for (const type of Object.values(types[name])) {
      const before = usedTypes.size;
      note(type);
      if (usedTypes.size !== before) queue.push(...[...usedTypes].filter((t) => !types[t]));
    }
  }

  const out = {
    source: {
      repository: REPOSITORY,
      commit,
      committed: git('log', '-1', '--format=%cI', commit).trim(),
      paths: [
        'api_specs/specs/version.txt',
        'api_specs/specs/enum_types.json',
        ...new Set([...ENDPOINTS.map((e) => e.node), ...Object.keys(types)].map((n) => `api_specs/specs/${n}.json`)),
      ],
      generator: 'scripts/meta-spec.ts',
    },
    graphVersion,
    endpoints,
    types,
    enums: Object.fromEntries([...usedEnums].sort().map((name) => [name, enumValues.get(name)!])),
  };
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, `${JSON.stringify(out, null, 1)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), OUT)} (${graphVersion}, ${Object.keys(endpoints).length} endpoints, commit ${commit})`);
}

main();
