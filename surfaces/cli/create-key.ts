// `svc-server create-key`: an operator makes an API key for an existing organization from the
// command line, as an owner or admin of it would on the account page (a lost demo key is not a dead end).

import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import { createKey, keyActorFor, type KeySettingsInput } from '../../src/account/keys.js';
import { ServiceError } from '../../src/errors.js';
import { EXIT } from './exit-codes.js';
import { CREATE_KEY_OPTIONS, CREATE_KEY_USAGE } from './create-key-usage.js';

const list = (value: string | undefined): string[] | undefined =>
  value === undefined
    ? undefined
    : value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);

// The core names the settings as the account page does; the operator typed flags.
const FLAG_OF: Record<string, string> = {
  name: '--name',
  scopes: '--scopes',
  'surfaces.api': '--surfaces',
  brandIds: '--brands',
  expiresAt: '--expires-at',
  publishCeilingDollars: '--publish-ceiling-dollars',
};

/** Exit code of a refusal, as `svc` uses them: 2 invalid, 3 permission, 4 not found or conflict. */
function exitCodeOf(err: ServiceError): number {
  if (err.code === 'forbidden') return EXIT.auth;
  if (err.code === 'not_found' || err.code === 'conflict') return EXIT.notFound;
  return EXIT.invalid;
}

/** Runs the command against an open, migrated database; returns the exit code. */
export async function createKeyCommand(knex: Knex, argv: string[]): Promise<number> {
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: CREATE_KEY_OPTIONS,
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${CREATE_KEY_USAGE}\n`);
    return EXIT.invalid;
  }
  if (values.help) {
    process.stdout.write(CREATE_KEY_USAGE + '\n');
    return EXIT.ok;
  }
  const missing = (['org', 'created-by', 'name'] as const).filter((k) => typeof values[k] !== 'string' || !(values[k] as string).trim());
  if (missing.length) {
    process.stderr.write(`create-key needs ${missing.map((k) => `--${k}`).join(', ')}.\n\n${CREATE_KEY_USAGE}\n`);
    return EXIT.invalid;
  }
  const str = (k: string) => values[k] as string | undefined;
  const surfaces = list(str('surfaces')) ?? ['mcp'];
  const unknownSurface = surfaces.filter((s) => s !== 'api' && s !== 'mcp');
  if (unknownSurface.length) {
    process.stderr.write(`--surfaces: unknown surface ${unknownSurface.join(', ')}; use api and mcp.\n`);
    return EXIT.invalid;
  }
  const brands = list(str('brands'));
  const ceiling = str('publish-ceiling-dollars');
  const input: KeySettingsInput = {
    name: str('name')!,
    scopes: list(str('scopes')) ?? ['read'],
    surfaces: { api: surfaces.includes('api'), mcp: surfaces.includes('mcp') },
    // A brand id that is not a number is passed on as is, so the core names it in its answer.
    brandIds: brands ? (brands.map((b) => (/^\d+$/.test(b) ? Number(b) : b)) as number[]) : null,
    expiresAt: str('expires-at') ?? null,
    publishCeilingDollars: ceiling === undefined ? null : /^\d+(\.\d+)?$/.test(ceiling) ? Number(ceiling) : (ceiling as unknown as number),
  };
  try {
    const actor = await keyActorFor(knex, str('org')!, str('created-by')!);
    const { key, secret } = await createKey(knex, actor, input);
    process.stdout.write(secret + '\n');
    const ceilingText = key.publishCeilingCents === null ? 'no publish ceiling' : `publish ceiling $${(key.publishCeilingCents / 100).toFixed(2)}`;
    const where = [key.surfaces.api && 'api', key.surfaces.mcp && 'mcp'].filter(Boolean).join(', ') || 'no surface';
    const brandText = key.brands === null ? 'every brand' : `brands ${key.brands.map((b) => b.id).join(', ')}`;
    process.stderr.write(
      `Created API key ${key.id} "${key.name}" (${key.scopes.join(', ')}; ${where}; ${brandText}; ${ceilingText}). The secret above is shown only now.\n`,
    );
    for (const warning of key.warnings) process.stderr.write(`Warning: ${warning}\n`);
    return EXIT.ok;
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    process.stderr.write(`${err.message}\n`);
    for (const d of Array.isArray(err.details) ? (err.details as Array<{ field: string; message: string }>) : [])
      process.stderr.write(`  ${FLAG_OF[d.field] ?? d.field}: ${d.message}\n`);
    return exitCodeOf(err);
  }
}
