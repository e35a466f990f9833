// Where `svc` finds the service and its key: SVC_BASE_URL and SVC_API_KEY, else the file written by
// `svc login` ($XDG_CONFIG_HOME/svc/config.json, default ~/.config/svc/config.json, mode 600).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CliError, EXIT, usageError } from './exit-codes.js';

export const DEFAULT_BASE_URL = 'http://localhost:8080';

export interface ClientConfig {
  baseUrl: string;
  apiKey: string | null;
  /** The config file consulted (it may not exist). */
  file: string;
}

interface StoredConfig {
  baseUrl?: string;
  apiKey?: string;
}

/** The config file path for this environment. */
export function configFile(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), '.config');
  return path.join(home, 'svc', 'config.json');
}

function readStored(file: string): StoredConfig {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw usageError(`Cannot read ${file}: ${(err as Error).message}`);
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as StoredConfig;
  } catch {
    // reported below
  }
  throw usageError(`${file} is not a JSON object; run "svc login" again.`);
}

/** A usable base URL: http(s), no trailing slash; a trailing /v1 is allowed and dropped. */
export function normaliseBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw usageError(`The base URL "${raw}" is not a URL; give e.g. http://localhost:8080.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`The base URL "${raw}" must start with http:// or https://.`);
  return url.href.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/** Environment variables win over the file, each on its own. */
export function loadClientConfig(env: NodeJS.ProcessEnv = process.env): ClientConfig {
  const file = configFile(env);
  const stored = env.SVC_BASE_URL && env.SVC_API_KEY ? {} : readStored(file);
  return {
    baseUrl: normaliseBaseUrl(env.SVC_BASE_URL || stored.baseUrl || DEFAULT_BASE_URL),
    apiKey: env.SVC_API_KEY || stored.apiKey || null,
    file,
  };
}

/** The API key, or exit 3 saying how to give one. */
export function requireApiKey(config: ClientConfig): string {
  if (config.apiKey) return config.apiKey;
  throw new CliError(EXIT.auth, `No API key: set SVC_API_KEY or run "svc login --base-url URL --api-key KEY" (writes ${config.file}).`);
}

/** Writes the config file readable by its owner only (the folder 700, the file 600), atomically. */
export function saveClientConfig(file: string, config: { baseUrl: string; apiKey: string }): void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = path.join(dir, `.config.${process.pid}.${Date.now()}.tmp`);
  try {
    fs.writeFileSync(temp, JSON.stringify(config, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
    // The umask may have narrowed the mode but never widened it; set it exactly.
    fs.chmodSync(temp, 0o600);
    fs.renameSync(temp, file);
  } catch (err) {
    fs.rmSync(temp, { force: true });
    throw new CliError(EXIT.invalid, `Cannot write ${file}: ${(err as Error).message}`);
  }
}
