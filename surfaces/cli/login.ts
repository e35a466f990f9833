// `svc login --base-url URL --api-key KEY`: stores both in the user's config folder, mode 600.

import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { configFile, normaliseBaseUrl, saveClientConfig } from './config.js';
import { usageError } from './exit-codes.js';

export const LOGIN_USAGE = `Usage: svc login --base-url URL --api-key KEY

  Stores the service address and an API key in $XDG_CONFIG_HOME/svc/config.json
  (default ~/.config/svc/config.json), readable by you only (mode 600).
  --api-key - reads the key from standard input, keeping it out of the shell history.
  SVC_BASE_URL and SVC_API_KEY, when set, win over the stored values.`;

/** Runs `svc login`; returns the exit code. */
export function login(argv: string[], env: NodeJS.ProcessEnv = process.env): number {
  let values: { 'base-url'?: string; 'api-key'?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { 'base-url': { type: 'string' }, 'api-key': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw usageError(`${(err as Error).message.split('\n')[0]}\n\n${LOGIN_USAGE}`);
  }
  if (values.help) {
    process.stdout.write(LOGIN_USAGE + '\n');
    return 0;
  }
  if (!values['base-url'] || !values['api-key']) throw usageError(`svc login needs both --base-url and --api-key.\n\n${LOGIN_USAGE}`);
  const baseUrl = normaliseBaseUrl(values['base-url']);
  const apiKey = values['api-key'] === '-' ? fs.readFileSync(0, 'utf8').trim() : values['api-key'];
  if (!apiKey) throw usageError('The API key is empty.');
  const file = configFile(env);
  saveClientConfig(file, { baseUrl, apiKey });
  process.stdout.write(`Saved the base URL and API key to ${file} (mode 600).\n`);
  return 0;
}
