#!/usr/bin/env node
// svc: the command-line client. One command per catalogue operation; it only translates flags to an
// HTTP request and the answer to JSON output and an exit code (docs/operations.md).

import crypto from 'node:crypto';
import { parseArgs } from 'node:util';
import { parseCommandArgs, readData } from './args.js';
import { loadCommands, type Command } from './commands.js';
import { loadClientConfig, requireApiKey } from './config.js';
import { CliError, EXIT, exitCodeOf, usageError } from './exit-codes.js';
import { commandHelp, mainHelp } from './help.js';
import { MAX_ATTEMPTS, maxWaitFromEnv, send, type Reply, type SendOptions } from './http.js';
import { LOGIN_USAGE, login } from './login.js';
import { buildRequest } from './request.js';
import { followToEnd } from './follow.js';
import { didYouMean } from './suggest.js';

const OTHER_COMMANDS: Array<[string, string]> = [
  ['login --base-url URL --api-key KEY', 'store the service address and API key (mode 600).'],
  ['mcp [--toolsets NAMES] [--read-only]', "an MCP server on standard input and output, forwarding to the service's /mcp endpoint with the API key."],
  [
    'mcp --print-config [--client claude-desktop|claude-code|cursor|vscode] [--toolsets NAMES] [--read-only]',
    "the entry that starts this installation's MCP bridge, for an agent app's configuration.",
  ],
];

const MCP_USAGE = `Usage: svc mcp [--toolsets NAMES] [--read-only]
       svc mcp --print-config [--client claude-desktop|claude-code|cursor|vscode] [--toolsets NAMES] [--read-only]

  Speaks MCP over standard input and output and forwards every message to <base URL>/mcp with the
  configured API key (SVC_BASE_URL, SVC_API_KEY or "svc login"), for agent apps that start tools as
  local processes.

  --toolsets NAMES  the toolsets to load, comma-separated (e.g. launch,automate; all for every tool);
                    default: the server's (MCP_TOOLSETS)
  --read-only       only tools that change nothing

  --print-config prints the entry for the app's MCP configuration (default: Claude Desktop): it runs
  this installation's svc by absolute path, with the configured base URL and key.`;

async function mcp(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(MCP_USAGE + '\n');
    return EXIT.ok;
  }
  if (argv.includes('--print-config')) return (await import('./mcp-config.js')).printMcpConfig(argv.filter((a) => a !== '--print-config'));
  let flags: { toolsets?: string; 'read-only'?: boolean; help?: boolean };
  try {
    flags = parseArgs({
      args: argv,
      options: { toolsets: { type: 'string' }, 'read-only': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (err) {
    throw usageError(`${(err as Error).message.split('\n')[0]}\n\n${MCP_USAGE}`);
  }
  if (flags.help) {
    process.stdout.write(MCP_USAGE + '\n');
    return EXIT.ok;
  }
  const config = loadClientConfig();
  const apiKey = requireApiKey(config);
  // Loaded only here: the MCP SDK is not needed by any other command.
  const { runMcpBridge } = await import('./mcp-bridge.js');
  await runMcpBridge({ baseUrl: config.baseUrl, apiKey, toolsets: flags.toolsets, readOnly: flags['read-only'] === true });
  return EXIT.ok;
}

/** JSON for people on a terminal, one line for programs. */
function writeJson(stream: NodeJS.WriteStream, value: unknown): void {
  stream.write(JSON.stringify(value, null, stream.isTTY ? 2 : undefined) + '\n');
}

const FALLBACK_CODE: Record<number, string> = {
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  429: 'rate_limited',
  503: 'unavailable',
  504: 'timeout',
};

/** The service's error envelope, or one built from the status when something else answered. */
function errorEnvelope(reply: Reply): unknown {
  const body = reply.body as { error?: unknown } | null;
  if (body && typeof body === 'object' && body.error) return body;
  const code = FALLBACK_CODE[reply.status] ?? (reply.status >= 500 ? 'internal_error' : 'validation_failed');
  const text = typeof reply.body === 'string' ? reply.body.slice(0, 500) : reply.body;
  return {
    error: {
      code,
      message: `The server answered HTTP ${reply.status} without an error envelope.`,
      details: text ? { body: text } : null,
      requestId: reply.headers.get('service-request-id'),
    },
  };
}

/** Follows nextCursor from `first` and returns one document whose list field holds every page's entries. */
async function allPages(
  cmd: Command,
  input: Record<string, unknown>,
  file: Parameters<typeof buildRequest>[2],
  options: SendOptions,
  first: Reply,
): Promise<Reply> {
  const field = cmd.listField!;
  const items: unknown[] = [];
  const seen = new Set<string>();
  let reply = first;
  for (;;) {
    const body = reply.body as Record<string, unknown> | null;
    if (!body || !Array.isArray(body[field])) return reply;
    items.push(...(body[field] as unknown[]));
    const next = body.nextCursor;
    if (typeof next !== 'string' || !next) return { ...reply, body: { ...body, [field]: items } };
    if (seen.has(next)) throw new CliError(EXIT.unavailable, 'The service returned the same nextCursor twice; stopping.');
    seen.add(next);
    reply = await send(buildRequest(cmd, { ...input, cursor: next }, file), options);
    if (reply.status >= 300) return reply;
  }
}

async function runOperation(cmd: Command, argv: string[], commands: Map<string, Command>): Promise<number> {
  const args = parseCommandArgs(cmd, argv);
  if (args.help) {
    process.stdout.write(commandHelp(cmd) + '\n');
    return EXIT.ok;
  }
  const input = { ...readData(args.data), ...args.flags };
  const request = buildRequest(cmd, input, args.file);
  const config = loadClientConfig();
  let idempotencyKey = args.idempotencyKey;
  if (idempotencyKey === undefined && cmd.op.idempotency === 'required') {
    idempotencyKey = crypto.randomUUID();
    // Printed before sending, so the key is known even if the process dies mid-request.
    process.stderr.write(`Idempotency-Key: ${idempotencyKey}\n`);
  }
  const options: SendOptions = {
    baseUrl: config.baseUrl,
    apiKey: requireApiKey(config),
    idempotencyKey,
    maxWaitSeconds: maxWaitFromEnv(),
    onRetry: (status, wait, attempt) => process.stderr.write(`svc: HTTP ${status}; retrying in ${wait} s (attempt ${attempt + 1} of ${MAX_ATTEMPTS})\n`),
  };
  let reply = await send(request, options);
  if (args.all && reply.status < 300) reply = await allPages(cmd, input, args.file, options, reply);
  if (cmd.op.follow && reply.status < 300) reply = await followToEnd(cmd, commands, input, reply, options, (line) => process.stderr.write(`svc: ${line}\n`));
  if (reply.status < 300) {
    if (reply.body !== null) writeJson(process.stdout, reply.body);
    return EXIT.ok;
  }
  writeJson(process.stderr, errorEnvelope(reply));
  return exitCodeOf(reply.status);
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'login') return login(rest);
  if (command === 'mcp') return mcp(rest);
  // The generated command list (no server code), read after login and mcp, which do not need it.
  const commands = loadCommands();
  const byName = new Map(commands.map((c) => [c.name, c]));
  switch (command) {
    case undefined:
      process.stderr.write(mainHelp(commands, OTHER_COMMANDS) + '\n');
      return EXIT.invalid;
    case 'help':
    case '--help':
    case '-h': {
      const topic = command === 'help' ? rest[0] : undefined;
      if (topic === 'login') process.stdout.write(LOGIN_USAGE + '\n');
      else if (topic === 'mcp') process.stdout.write(MCP_USAGE + '\n');
      else if (topic && byName.has(topic)) process.stdout.write(commandHelp(byName.get(topic)!) + '\n');
      else if (topic) throw usageError(`Unknown command "${topic}".${didYouMean(topic, [...byName.keys(), 'login', 'mcp'])} Run "svc --help" for the list.`);
      else process.stdout.write(mainHelp(commands, OTHER_COMMANDS) + '\n');
      return EXIT.ok;
    }
    default: {
      const cmd = byName.get(command);
      if (!cmd) throw usageError(`Unknown command "${command}".${didYouMean(command, [...byName.keys(), 'login', 'mcp'])} Run "svc --help" for the list.`);
      return runOperation(cmd, rest, byName);
    }
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    if (err instanceof CliError) {
      process.stderr.write(`svc: ${err.message}\n`);
      process.exitCode = err.exitCode;
      return;
    }
    process.stderr.write(`svc: ${(err as Error).stack ?? err}\n`);
    process.exitCode = 1;
  },
);
