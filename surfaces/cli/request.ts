// One operation input → one HTTP request, the way REST reads it back: path parameters fill the
// path, the rest is the query (GET, DELETE) or the JSON body; an upload goes as multipart.

import fs from 'node:fs';
import path from 'node:path';
import type { Command } from './commands.js';
import { usageError } from './exit-codes.js';

export interface OutgoingRequest {
  method: string;
  /** Path and query below the base URL, starting with /v1. */
  target: string;
  body?: string | FormData;
  contentType?: string;
}

function flagName(cmd: Command, name: string): string {
  return `--${cmd.params.find((p) => p.name === name)?.flag ?? name}`;
}

function queryText(cmd: Command, name: string, value: unknown): string {
  if (value === null || typeof value === 'object') {
    throw usageError(`${flagName(cmd, name)}: ${JSON.stringify(value)} cannot be sent in a ${cmd.op.method} query; give a text or number value.`);
  }
  return String(value);
}

function fillPath(cmd: Command, input: Record<string, unknown>): string {
  return cmd.op.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => {
    const value = input[name];
    if (value === undefined || value === null || value === '') throw usageError(`${flagName(cmd, name)} is required (it is part of the path ${cmd.op.path}).`);
    if (typeof value === 'object') throw usageError(`${flagName(cmd, name)} must be a single value.`);
    return encodeURIComponent(String(value));
  });
}

function multipart(cmd: Command, rest: Record<string, unknown>, file: { field: string; path: string }): FormData {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file.path);
  } catch (err) {
    throw usageError(`Cannot read ${file.path}: ${(err as Error).message}`);
  }
  const form = new FormData();
  for (const [name, value] of Object.entries(rest)) {
    if (name === file.field || value === undefined) continue;
    form.append(name, queryText(cmd, name, value));
  }
  form.append(file.field, new Blob([new Uint8Array(bytes)]), path.basename(file.path));
  return form;
}

/** The HTTP request for `input` (flags merged over --data); `file` turns an upload into multipart. */
export function buildRequest(cmd: Command, input: Record<string, unknown>, file: { field: string; path: string } | null): OutgoingRequest {
  const target = '/v1' + fillPath(cmd, input);
  const rest = Object.fromEntries(Object.entries(input).filter(([k, v]) => !cmd.pathParams.includes(k) && v !== undefined));
  const { method } = cmd.op;
  if (method === 'GET' || method === 'DELETE') {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(rest)) {
      for (const item of Array.isArray(value) ? value : [value]) query.append(name, queryText(cmd, name, item));
    }
    const qs = query.toString();
    return { method, target: qs ? `${target}?${qs}` : target };
  }
  if (file) return { method, target, body: multipart(cmd, rest, file) };
  return { method, target, body: JSON.stringify(rest), contentType: 'application/json' };
}
