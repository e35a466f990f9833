// Writes test/fakes/meta-spec/java-sdk.json from Meta's generated Java SDK (facebook/facebook-java-business-sdk):
// the Graph version its generated classes describe (APIConfig.DEFAULT_API_VERSION) and the AdSet enums
// the fake Graph API checks at that version. Usage: npx tsc -p . && node dist/scripts/meta-java-sdk.js <sdk git dir> [commit]

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPOSITORY = 'facebook/facebook-java-business-sdk';
const OUT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test/fakes/meta-spec/java-sdk.json');
const CONFIG = 'src/main/java/com/facebook/ads/sdk/APIConfig.java';
const ADSET = 'src/main/java/com/facebook/ads/sdk/AdSet.java';
/** The AdSet enums read, by the name of their Java enum. */
const ADSET_ENUMS = ['EnumOptimizationGoal', 'EnumBillingEvent', 'EnumBidStrategy', 'EnumDestinationType'];

/** The string values of `enum <name>` in a generated class (`VALUE_X("X")` entries). */
function enumValues(source: string, name: string): string[] {
  const start = source.indexOf(`enum ${name} `);
  if (start < 0) throw new Error(`AdSet.java has no enum ${name}`);
  const body = source.slice(start, source.indexOf(';', start));
  return [...body.matchAll(/VALUE_\w+\("([^"]*)"\)/g)].map((m) => m[1]);
}

function main(): void {
  const [gitDir, commitArg] = process.argv.slice(2);
  if (!gitDir) throw new Error('usage: node dist/scripts/meta-java-sdk.js <facebook-java-business-sdk git dir> [commit]');
  const git = (...args: string[]) => execFileSync('git', ['-C', gitDir, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const commit = (commitArg ?? git('rev-parse', 'HEAD')).trim();
  const read = (file: string) => git('show', `${commit}:${file}`);
  const version = /DEFAULT_API_VERSION\s*=\s*"(v\d+\.\d+)"/.exec(read(CONFIG))?.[1];
  if (!version) throw new Error(`${CONFIG} names no DEFAULT_API_VERSION`);
  const adset = read(ADSET);
  const out = {
    source: {
      repository: REPOSITORY,
      commit,
      committed: git('log', '-1', '--format=%cI', commit).trim(),
      paths: [CONFIG, ADSET],
      generator: 'scripts/meta-java-sdk.ts',
    },
    apiVersion: version,
    adSetEnums: Object.fromEntries(ADSET_ENUMS.map((name) => [name, enumValues(adset, name)])),
  };
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, `${JSON.stringify(out, null, 1)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), OUT)} (${version}, commit ${commit})`);
}

main();
