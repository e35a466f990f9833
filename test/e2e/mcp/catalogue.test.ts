// Every tool of the catalogue, called through the SDK's real Client over Streamable HTTP and over
// the stdio bridge (`svc mcp`), as an agent would after listTools(): each success's
// structuredContent validates against the listed outputSchema, each failure is an isError result
// whose text is the contract's envelope with the right code (named in the tool's description), and
// the client never throws. Tools added later are covered by the same loop.

import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { dialects } from '../../helpers/databases.js';
import { asIntegers, clientAccepts, mcpClient, toolError, type ToolResult } from '../../helpers/mcp.js';
import { CODES_BY_RULE, EVERY_TOOL_FAILS_WITH } from '../../../surfaces/mcp/tools.js';
import { projectPath } from '../../../src/paths.js';
import { startWorld, type World } from '../../helpers/world.js';
import { failureCodes } from '../../../src/catalogue/failures.js';
import { WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { noSandboxSuccess, prepareToolFixture, toolExamples, type Answers } from '../../helpers/tool-examples.js';

type Tool = Awaited<ReturnType<Client['listTools']>>['tools'][number];

const SVC_BIN = projectPath('dist', 'surfaces', 'cli', 'svc.js');
const MISSING_ID = 987654;

async function stdioClient(baseUrl: string, key: string): Promise<Client> {
  const client = new Client({ name: 'svc-catalogue-tests', version: '1.0.0' });
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: '/nonexistent', SVC_BASE_URL: baseUrl, SVC_API_KEY: key };
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [SVC_BIN, 'mcp', '--toolsets', 'all'], env, stderr: 'pipe' }));
  return client;
}

/** Calls a tool as an agent would; a thrown client error fails the test with the tool's name. */
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  try {
    return (await client.callTool({ name, arguments: args })) as ToolResult;
  } catch (err) {
    throw new Error(`the MCP client threw on ${name}(${JSON.stringify(args).slice(0, 200)}): ${(err as Error).message}`, { cause: err });
  }
}

const transports = [
  { name: 'Streamable HTTP', connect: (w: World, key: string) => mcpClient(w.url, key) },
  { name: 'stdio bridge (svc mcp)', connect: (w: World, key: string) => stdioClient(w.url, key) },
];

for (const dialect of dialects()) {
  for (const transport of transports) {
    describe(`every MCP tool through the SDK Client, ${transport.name} (${dialect})`, function () {
      this.timeout(120_000);
      let w: World;
      let client: Client;
      let tools: Tool[];
      const receiver = new WebhookReceiver();
      const ajv = addFormats.default(new Ajv2020({ strict: false, allErrors: true }));

      before(async () => {
        await receiver.start();
        w = await startWorld({ dialect, env: { WEBHOOK_ALLOW_PRIVATE: 'true', RATE_LIMIT_PER_MINUTE: '100000' } });
        client = await transport.connect(w, w.key('acme', 'ci'));
        tools = (await client.listTools()).tools;
      });
      after(async () => {
        await client?.close();
        await w?.close();
        await receiver.close();
      });

      it('has a success example, or a stated reason, for every listed tool', () => {
        const covered = new Set([...toolExamples.map((e) => e.tool), ...Object.keys(noSandboxSuccess)]);
        const missing = tools.map((t) => t.name).filter((n) => !covered.has(n));
        expect(missing, 'add these tools to test/helpers/tool-examples.ts').to.deep.equal([]);
      });

      it('describes every tool: what it does, its units and the codes it fails with', () => {
        // Keys whose value is a schema object: property names (and a few keywords, which match nothing below).
        const names = (schema: unknown): string[] => [...JSON.stringify(schema).matchAll(/"([A-Za-z]+)":\{/g)].map((m) => m[1]);
        for (const tool of tools) {
          const text = tool.description ?? '';
          expect(text.length, tool.name).to.be.greaterThan(20);
          // Codes every tool shares, and those that follow from what a tool takes, are named once in the
          // server instructions; each description names the codes of the tool's own rules.
          const op = w.service.catalogue.get(tool.name.replace(/_/g, '-'))!;
          const own = failureCodes(op).filter(
            (c) => !EVERY_TOOL_FAILS_WITH.includes(c) && !(CODES_BY_RULE.includes(c) && (c !== 'unavailable' || op.scope === 'publish')),
          );
          if (own.length) expect(text, tool.name).to.contain(`Fails with: ${own.join(', ')}.`);
          const props = [...names(tool.inputSchema), ...names(tool.outputSchema)];
          if (props.some((n) => /amount|minorunits|budget|spend|ceiling|cost/i.test(n))) expect(text, `${tool.name} handles money`).to.contain('minor units');
        }
        const money = tools.find((t) => t.name === 'edit_live_campaign')!;
        expect(money.description).to.contain('minor units');
        // Days and date presets: said once, in the server instructions, for every tool that takes them.
        expect(client.getInstructions()).to.contain("Days and date presets are in the ad account's time zone");
        expect(client.getInstructions(), 'the codes every tool shares').to.contain('validation_failed or insufficient_scope');
      });

      it('answers each example with structuredContent that validates against the listed outputSchema', async () => {
        const shoes = w.brandId('acme', 'shoes');
        const fx = await prepareToolFixture(w, w.key('acme', 'ci'), shoes, 'act_1001', receiver.url);
        const answers: Answers = new Map();
        for (const example of toolExamples) {
          const tool = tools.find((t) => t.name === example.tool);
          expect(tool, `${example.tool} is not listed`).to.not.equal(undefined);
          // Ids as the portable schema asks for them (integers), as a model following it sends them.
          const args = asIntegers(example.args(fx, answers), tool!.inputSchema);
          expect(ajv.validate(tool!.inputSchema, args), `${example.tool} arguments refused by its inputSchema: ${ajv.errorsText()}`).to.equal(true);
          const result = await call(client, example.tool, args);
          expect(result.isError, `${example.tool}: ${result.content[0]?.text}`).to.not.equal(true);
          const validate = ajv.compile(tool!.outputSchema!);
          expect(validate(result.structuredContent), `${example.tool}: ${JSON.stringify(validate.errors)}`).to.equal(true);
          expect(JSON.parse(result.content[0].text!), example.tool).to.deep.equal(result.structuredContent);
          expect(clientAccepts(tool!, result), example.tool).to.deep.equal({ ok: true });
          answers.set(example.tool, result.structuredContent);
        }
      });

      it('answers an unknown argument of every tool with an isError validation_failed naming it', async () => {
        for (const tool of tools) {
          const args: Record<string, unknown> = { notAField: true };
          if (tool.inputSchema.required?.includes('idempotencyKey')) args.idempotencyKey = `bad-${tool.name}`;
          const error = toolError(await call(client, tool.name, args));
          expect(error.code, tool.name).to.equal('validation_failed');
          expect(error.details, tool.name).to.deep.include({ field: 'notAField', code: 'unrecognized_key', message: 'is not recognised; remove "notAField"' });
          expect(error.requestId, tool.name).to.be.a('string').and.not.equal('');
        }
      });

      it('answers a missing brand or resource of every tool that names one with not_found', async () => {
        const shoes = w.brandId('acme', 'shoes');
        const fx = await prepareToolFixture(w, w.key('acme', 'ci'), shoes, 'act_1001', receiver.url);
        const answers: Answers = new Map();
        let probed = 0;
        for (const example of toolExamples) {
          const tool = tools.find((t) => t.name === example.tool)!;
          const good = example.args(fx, answers);
          const result = await call(client, example.tool, good);
          answers.set(example.tool, result.structuredContent);
          // The first id of the path (the brand, or the endpoint) made one that does not exist.
          const idName = ['brandId', 'endpointId'].find((n) => n in good);
          if (!idName) continue;
          const missing = { ...good, [idName]: MISSING_ID };
          if (typeof missing.idempotencyKey === 'string') missing.idempotencyKey += '-missing';
          if (!ajv.validate(tool.inputSchema, missing)) continue;
          const error = toolError(await call(client, example.tool, missing));
          expect(error.code, example.tool).to.equal('not_found');
          expect(error.details, example.tool).to.equal(null);
          // The rule (a tool that takes an id can answer not_found) is said once, in the instructions.
          expect(client.getInstructions(), `${tool.name} must be covered by the not_found rule`).to.contain('a tool that takes an id with not_found');
          probed++;
        }
        expect(probed).to.be.greaterThan(30);
      });

      it('answers a missing Idempotency-Key of every tool that requires one with idempotency_key_required', async () => {
        const shoes = w.brandId('acme', 'shoes');
        const requiring = tools.filter((t) => t.inputSchema.required?.includes('idempotencyKey'));
        expect(requiring.map((t) => t.name)).to.include.members(['launch_campaign', 'edit_live_campaign']);
        for (const tool of requiring) {
          const error = toolError(await call(client, tool.name, { brandId: shoes }));
          expect(error.code, tool.name).to.equal('idempotency_key_required');
          expect(client.getInstructions(), tool.name).to.contain('idempotency_key_required when it is required');
        }
      });
    });
  }
}
