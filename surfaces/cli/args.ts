// Command-line flags of one command → the operation's input: one flag per input property, typed by
// the schema the way REST coerces query strings; objects only through --data.

import fs from 'node:fs';
import { parseArgs } from 'node:util';
import type { Command, Param } from './commands.js';
import { usageError } from './exit-codes.js';

type OptionSpec = { type: 'string' | 'boolean'; multiple?: boolean; short?: string };

export interface CommandArgs {
  /** Input from the flags (without --data), typed per the schema. */
  flags: Record<string, unknown>;
  /** The upload field and the path of the file to send, when given. */
  file: { field: string; path: string } | null;
  /** The raw --data argument: @FILE, - (standard input) or inline JSON. */
  data: string | undefined;
  all: boolean;
  idempotencyKey: string | undefined;
  help: boolean;
}

/** Turns a flag's text into the schema's type, as REST does for query strings; anything else stays text for the service to judge. */
function coerce(param: Param, raw: string): unknown {
  const t = param.types;
  if (param.nullable && raw === 'null' && !t.includes('string')) return null;
  if ((t.includes('integer') || t.includes('number')) && /^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  if (t.includes('boolean') && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}

/** The flags reserved by `svc` itself for this command; a property with the same name is reached through --data. */
function reservedFlags(cmd: Command): Record<string, OptionSpec> {
  const out: Record<string, OptionSpec> = { data: { type: 'string', short: 'd' }, help: { type: 'boolean', short: 'h' } };
  if (cmd.listField) out.all = { type: 'boolean' };
  if (cmd.op.idempotency !== 'none') out['idempotency-key'] = { type: 'string' };
  return out;
}

function optionsOf(cmd: Command): { options: Record<string, OptionSpec>; byFlag: Map<string, Param> } {
  const options = reservedFlags(cmd);
  const byFlag = new Map<string, Param>();
  for (const p of cmd.params) {
    if (p.kind === 'json' || p.flag in options) continue;
    byFlag.set(p.flag, p);
    if (p.kind === 'boolean') {
      options[p.flag] = { type: 'boolean' };
      options[`no-${p.flag}`] = { type: 'boolean' };
    } else {
      options[p.flag] = p.kind === 'array' ? { type: 'string', multiple: true } : { type: 'string' };
    }
  }
  return { options, byFlag };
}

function parseError(cmd: Command, err: Error & { code?: string }): Error {
  const see = `See "svc ${cmd.name} --help".`;
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const flag = /'([^']+)'/.exec(err.message)?.[1] ?? err.message;
    const name = flag.replace(/^-+/, '').split('=')[0];
    const viaData = cmd.params.find((p) => p.kind === 'json' && p.flag === name);
    if (viaData) return usageError(`${flag} takes JSON: give "${viaData.name}" in --data, e.g. --data '{"${viaData.name}": ...}'. ${see}`);
    return usageError(`Unknown flag ${flag} for "svc ${cmd.name}". ${see}`);
  }
  if (err.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    const arg = /'([^']*)'/.exec(err.message)?.[1] ?? '';
    return usageError(`Unexpected argument "${arg}": every value goes after its flag (--name value). ${see}`);
  }
  return usageError(`${err.message.split('\n')[0]} ${see}`);
}

/** Parses the flags of `svc <command> ...`; an unknown or repeated flag is a usage error (exit 2). */
export function parseCommandArgs(cmd: Command, argv: string[]): CommandArgs {
  const { options, byFlag } = optionsOf(cmd);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: false, tokens: true });
  } catch (err) {
    throw parseError(cmd, err as Error & { code?: string });
  }
  const values = parsed.values as Record<string, string | boolean | string[] | undefined>;
  const counts = new Map<string, number>();
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== 'option' || options[token.name].multiple) continue;
    counts.set(token.name, (counts.get(token.name) ?? 0) + 1);
    if (counts.get(token.name) === 2) throw usageError(`--${token.name} is given twice; only array parameters take a repeated flag.`);
  }

  const flags: Record<string, unknown> = {};
  let file: CommandArgs['file'] = null;
  for (const [flag, p] of byFlag) {
    if (p.kind === 'boolean') {
      const yes = values[flag] === true;
      const no = values[`no-${flag}`] === true;
      if (yes && no) throw usageError(`Give either --${flag} or --no-${flag}, not both.`);
      if (yes || no) flags[p.name] = yes;
      continue;
    }
    const raw = values[flag];
    if (raw === undefined) continue;
    if (p.kind === 'file') file = { field: p.name, path: raw as string };
    else if (p.kind === 'array') flags[p.name] = (raw as string[]).map((r) => coerce(p, r));
    else flags[p.name] = coerce(p, raw as string);
  }
  return {
    flags,
    file,
    data: values.data as string | undefined,
    all: values.all === true,
    idempotencyKey: values['idempotency-key'] as string | undefined,
    help: values.help === true,
  };
}

/** Reads --data: `@FILE`, `-` for standard input, or the JSON text itself; it must be one JSON object. */
export function readData(arg: string | undefined): Record<string, unknown> {
  if (arg === undefined) return {};
  const where = arg === '-' ? 'standard input' : arg.startsWith('@') ? arg.slice(1) : '--data';
  let text: string;
  try {
    text = arg === '-' ? fs.readFileSync(0, 'utf8') : arg.startsWith('@') ? fs.readFileSync(arg.slice(1), 'utf8') : arg;
  } catch (err) {
    throw usageError(`Cannot read ${where}: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw usageError(`${where} is not valid JSON: ${(err as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw usageError(`${where} must hold one JSON object (the operation's input).`);
  return parsed as Record<string, unknown>;
}
