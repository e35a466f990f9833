// What `svc-server create-key` takes: its usage and its flags, read by svc-server to answer --help
// and refuse an unknown flag before it opens the database.

import type { ParseArgsConfig } from 'node:util';

export type ParseArgsOptions = NonNullable<ParseArgsConfig['options']>;

export const CREATE_KEY_USAGE = `Usage: svc-server create-key --org ORG --created-by EMAIL --name NAME [options]

  Creates an API key for an existing organization and prints its secret, alone, on standard output
  (shown only now; a summary goes to standard error). Only the organization's owner and admins
  create keys: the key is recorded as made by that person.

  --org ORG                       the organization's id or exact name
  --created-by EMAIL              an owner or admin of that organization
  --name NAME                     what the key is for
  --scopes LIST                   read, write, publish, comma-separated (default: read)
  --surfaces LIST                 api, mcp, comma-separated (default: mcp; api needs the agency plan)
  --brands LIST                   brand ids the key is limited to (default: every brand, present and future)
  --expires-at TIME               ISO 8601 time with a zone (default: never)
  --publish-ceiling-dollars N     what the key's publishes may commit in total (needed to publish)`;

export const CREATE_KEY_OPTIONS: ParseArgsOptions = {
  org: { type: 'string' },
  'created-by': { type: 'string' },
  name: { type: 'string' },
  scopes: { type: 'string' },
  surfaces: { type: 'string' },
  brands: { type: 'string' },
  'expires-at': { type: 'string' },
  'publish-ceiling-dollars': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};
