// Help text of `svc`: the commands grouped by area, and per command its parameters with their
// types, limits and defaults, the method and path, the scope and the idempotency rule.

import type { JsonSchema } from '../../src/schemas/registry.js';
import type { Command, Param } from './commands.js';

const WIDTH = 100;

function wrap(text: string, indent: string, width = WIDTH): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && indent.length + line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(indent + line);
  return lines.join('\n');
}

function table(rows: Array<[string, string]>, indent = '  ', widest = Math.max(...rows.map(([l]) => l.length))): string {
  const left = Math.min(widest + 2, 34);
  return rows
    .map(([l, r]) => {
      const head = indent + l.padEnd(left);
      if (!r) return head.trimEnd();
      const body = wrap(r, ' '.repeat(indent.length + left)).trimStart();
      return l.length + 2 > left ? `${indent}${l}\n${' '.repeat(indent.length + left)}${body}` : head + body;
    })
    .join('\n');
}

function range(min: unknown, max: unknown, unit = ''): string | null {
  if (min !== undefined && max !== undefined) return `${min} to ${max}${unit}`;
  if (min !== undefined) return `at least ${min}${unit}`;
  if (max !== undefined) return `at most ${max}${unit}`;
  return null;
}

/** The limits a schema puts on a value, in words. */
export function limitsOf(s: JsonSchema): string[] {
  const out: string[] = [];
  const values = range(s.minimum, s.maximum);
  if (values) out.push(values);
  if (s.exclusiveMinimum !== undefined) out.push(`greater than ${s.exclusiveMinimum}`);
  if (s.exclusiveMaximum !== undefined) out.push(`less than ${s.exclusiveMaximum}`);
  const length = range(s.minLength, s.maxLength, ' characters');
  if (length) out.push(`length ${length}`);
  const items = range(s.minItems, s.maxItems, ' values');
  if (items) out.push(items);
  if (s.uniqueItems) out.push('no repeats');
  if (Array.isArray(s.enum)) out.push(`one of: ${s.enum.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ')}`);
  if (typeof s.pattern === 'string') out.push(`matching ${s.pattern}`);
  if (typeof s.format === 'string') out.push(`format ${s.format}`);
  return out;
}

function typeLabel(p: Param): string {
  const base = p.types.length ? p.types.join('|') : 'value';
  switch (p.kind) {
    case 'array':
      return `<${base}>...`;
    case 'file':
      return '<path>';
    case 'json':
      return p.types.length === 1 && p.types[0] === 'object' ? 'object' : p.schema.type === 'array' ? `${base}[]` : base;
    default:
      return `<${base}${p.nullable && !p.types.includes('string') ? '|null' : ''}>`;
  }
}

function paramRow(p: Param): [string, string] {
  const notes: string[] = [];
  if (p.required) notes.push(p.inPath ? 'required, in the path' : 'required');
  let left: string;
  if (p.kind === 'boolean') left = `--${p.flag}, --no-${p.flag}`;
  else if (p.kind === 'json') {
    left = `${p.name} (${typeLabel(p)})`;
    notes.push('JSON, only through --data');
  } else left = `--${p.flag} ${typeLabel(p)}`;
  if (p.kind === 'boolean') notes.push('boolean');
  if (p.kind === 'array') notes.push('repeat the flag for several values');
  if (p.kind === 'file') notes.push('a file to upload (sent as multipart/form-data)');
  notes.push(...limitsOf(p.schema));
  if (p.kind === 'array' && p.schema.items) notes.push(...limitsOf(p.schema.items as JsonSchema).map((l) => `each ${l}`));
  if (p.schema.default !== undefined) notes.push(`default ${JSON.stringify(p.schema.default)}`);
  const description = typeof p.schema.description === 'string' ? ` ${p.schema.description}` : '';
  return [left, `${notes.join('; ')}.${description}`];
}

function idempotencyNote(cmd: Command): string {
  switch (cmd.op.idempotency) {
    case 'required':
      return 'required: generated and printed on standard error ("Idempotency-Key: ...") when --idempotency-key is not given';
    case 'optional':
      return 'optional: --idempotency-key KEY makes a retry within 24 hours return the first answer';
    default:
      return 'none';
  }
}

/** `svc <command> --help`. */
export function commandHelp(cmd: Command): string {
  const { op } = cmd;
  const parts = [`Usage: svc ${cmd.name} [flags]`, '', wrap(op.summary, '  ')];
  if (op.description) parts.push('', wrap(op.description, '  '));
  parts.push(
    '',
    `  ${op.method} /v1${op.path}`,
    `  scope: ${op.scope}`,
    `  idempotency: ${idempotencyNote(cmd)}`,
    `  area: ${op.tag}`,
    '',
    'Parameters:',
    cmd.params.length ? table(cmd.params.map(paramRow)) : '  (none)',
    '',
    'Flags of every command:',
  );
  const general: Array<[string, string]> = [
    ['--data, -d @FILE|-|JSON', 'the input as one JSON object: @file.json, - for standard input, or the JSON itself; flags win over its fields.'],
  ];
  if (cmd.listField) general.push(['--all', `follow nextCursor to the last page and print one document with every "${cmd.listField}" entry.`]);
  if (op.idempotency !== 'none') general.push(['--idempotency-key KEY', 'sent as the Idempotency-Key header (at most 255 characters).']);
  general.push(['--help, -h', 'this text.']);
  parts.push(table(general));
  return parts.join('\n');
}

/** `svc --help`: the commands grouped by area, in catalogue order. */
export function mainHelp(commands: Command[], extra: Array<[string, string]>): string {
  const areas = new Map<string, Command[]>();
  for (const c of commands) areas.set(c.op.tag, [...(areas.get(c.op.tag) ?? []), c]);
  const parts = [
    'Usage: svc <command> [flags]       call one operation of the service; JSON answer on standard output',
    '       svc <command> --help        its parameters, types, limits and scope',
    '',
    'Commands by area:',
  ];
  const widest = Math.max(...commands.map((c) => c.name.length));
  for (const [area, list] of areas)
    parts.push(
      '',
      `${area}:`,
      table(
        list.map((c) => [c.name, c.op.summary]),
        '  ',
        widest,
      ),
    );
  parts.push(
    '',
    'Other commands:',
    table([...extra, ['help [COMMAND]', 'this text, or the help of one command.']]),
    '',
    'Flags of every command: --data @FILE|-|JSON (the input as one JSON object; flags win over it),',
    '--idempotency-key KEY (operations that take one), --all (lists: follow nextCursor), --help.',
    '',
    'Configuration: SVC_BASE_URL (default http://localhost:8080) and SVC_API_KEY, which win over the',
    'file written by "svc login" ($XDG_CONFIG_HOME/svc/config.json, default ~/.config/svc/config.json).',
    'Retries: 429, 503 and 504 (504 only when repeating is safe), up to 3 attempts, honouring Retry-After',
    '(at most 30 s, or SVC_MAX_RETRY_WAIT seconds).',
    'Exit codes: 0 success, 2 invalid request, 3 authentication or permission, 4 not found or conflict,',
    "5 service unavailable or internal error. Errors go to standard error as the service's error envelope.",
  );
  return parts.join('\n');
}
