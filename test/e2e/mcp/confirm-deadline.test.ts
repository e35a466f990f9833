// Confirmation that cannot be outrun, through the SDK's real Client over Streamable HTTP with a
// one-second MCP_CONFIRM_TIMEOUT_S: a question nobody answers ends the call with nothing published
// (progress reaching the client meanwhile); a call cancelled while its question is open and then
// answered "accept" publishes nothing (the late answer is refused as unknown); and every tool that
// moves money or can start a publish says so in its annotations.

import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, type ElicitResult, type JSONRPCMessage, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { mcpClient, type ToolResult } from '../../helpers/mcp.js';
import { brandApi, buildLaunch, uploadCreative } from '../../helpers/launch-builders.js';
import { templatesWorld } from '../../helpers/structure-templates.js';
import { startWorld, type World } from '../../helpers/world.js';

let seq = 0;
const key = (what: string) => `${what}-${process.pid}-${seq++}`;

describe('MCP confirmation: a deadline, and no answer after a cancel', function () {
  this.timeout(60_000);
  let w: World;
  let shoes: number;
  let creativeId: number;
  before(async () => {
    const world = templatesWorld();
    world.organizations[0].apiKeys.find((k: { ref: string }) => k.ref === 'ci').publishCeilingDollars = 5000;
    w = await startWorld({ dialect: 'sqlite', bootstrap: world, env: { MCP_CONFIRM_TIMEOUT_S: '1' } });
    shoes = w.brandId('acme', 'shoes');
    creativeId = await uploadCreative(w, w.key('acme', 'ci'), shoes);
  });
  after(async () => w?.close());

  const api = () => brandApi(w, w.key('acme', 'ci'), shoes);
  const committed = async () => (await w.service.knex('api_keys').where({ id: w.seed.organizations.acme.apiKeys.ci.id }).first()).committed_cents as number;
  const launchStatus = async (launchId: string) => (await api()('GET', `/launches/${launchId}`)).body.status as string;

  it('a question nobody answers ends after MCP_CONFIRM_TIMEOUT_S with nothing published, progress reaching the client meanwhile', async () => {
    const built = await buildLaunch(api(), { creativeId });
    const before = await committed();
    const client = await mcpClient(w.url, w.key('acme', 'ci'), { capabilities: { elicitation: {} } });
    let asked = 0;
    let withdrawn = false;
    // The person never answers; the server withdraws the question when its time is up.
    client.setRequestHandler(ElicitRequestSchema, (_request, extra) => {
      asked++;
      return new Promise<ElicitResult>(() => extra.signal.addEventListener('abort', () => (withdrawn = true)));
    });
    const updates: Progress[] = [];
    let result: ToolResult;
    try {
      result = (await client.callTool(
        { name: 'launch_campaign', arguments: { brandId: shoes, launchId: built.launchId, confirm: true, idempotencyKey: key('unanswered') } },
        undefined,
        { onprogress: (p) => updates.push(p) },
      )) as ToolResult;
    } finally {
      await client.close();
    }
    expect(asked).to.equal(1);
    expect(withdrawn, 'the server cancels its question').to.equal(true);
    expect(result.isError).to.not.equal(true);
    expect(result.structuredContent).to.include({ confirmed: false, status: 'draft' });
    expect(result.structuredContent.warnings.at(-1).message).to.match(/^Nothing was published: the question got no answer \(.*timed out.*\)\.$/i);
    expect(updates.length, 'progress while the person is asked').to.be.at.least(1);
    expect(updates[0]).to.deep.include({ progress: 1, message: 'Waiting for the person to confirm (at most 1 s)' });
    for (let i = 1; i < updates.length; i++) expect(updates[i].progress).to.be.greaterThan(updates[i - 1].progress);
    expect(await launchStatus(built.launchId)).to.equal('draft');
    expect(await committed()).to.equal(before);
  });

  it('a call cancelled while its question is open, then answered "accept", publishes nothing; the late answer is refused', async () => {
    const built = await buildLaunch(api(), { creativeId });
    const before = await committed();
    const client: Client = await mcpClient(w.url, w.key('acme', 'ci'), { capabilities: { elicitation: {} } });
    // Watch what the client sends: the tools/call's id, and the fate of its answer to the question.
    const transport = client.transport!;
    const send = transport.send.bind(transport);
    let callId: string | number | undefined;
    let lateAnswer: Promise<unknown> | undefined;
    transport.send = (message: JSONRPCMessage, options) => {
      const m = message as { id?: string | number; method?: string; result?: unknown };
      if (m.method === 'tools/call') callId = m.id;
      const sent = send(message, options);
      if (m.result !== undefined && m.method === undefined)
        lateAnswer = sent.then(
          () => 'accepted',
          (err: Error) => err.message,
        );
      return sent;
    };
    const controller = new AbortController();
    client.setRequestHandler(ElicitRequestSchema, async (): Promise<ElicitResult> => {
      // The cancel reaches the server (the POST that carries it is answered) before the person's "accept" is sent.
      await client.notification({ method: 'notifications/cancelled', params: { requestId: callId!, reason: 'the agent gave up' } });
      controller.abort();
      return { action: 'accept', content: { publish: true } };
    });
    let failure: unknown;
    try {
      await client.callTool(
        { name: 'launch_campaign', arguments: { brandId: shoes, launchId: built.launchId, confirm: true, idempotencyKey: key('cancelled') } },
        undefined,
        { signal: controller.signal },
      );
    } catch (err) {
      failure = err;
    }
    expect(failure, 'the client gave up on the call').to.be.instanceOf(Error);
    // Wait until the answer has been delivered and judged by the server.
    const fate = await new Promise<unknown>((resolve) => {
      const poll = () => (lateAnswer ? resolve(lateAnswer) : setTimeout(poll, 10));
      poll();
    });
    await client.close();
    expect(String(fate)).to.match(/404|No question .* is waiting here/);
    expect(await launchStatus(built.launchId)).to.equal('draft');
    expect(await committed()).to.equal(before);
  });

  it('marks every tool that moves money or can start a publish destructive and open-world', async () => {
    const client = await mcpClient(w.url, w.key('acme', 'ci'));
    try {
      const { tools } = await client.listTools();
      const byName = new Map(tools.map((t) => [t.name, t]));
      for (const name of ['launch_campaign', 'edit_live_campaign', 'create_pipeline_card', 'move_pipeline_card', 'run_workflow']) {
        expect(byName.get(name)?.annotations, name).to.deep.include({ destructiveHint: true, openWorldHint: true, readOnlyHint: false });
      }
    } finally {
      await client.close();
    }
  });
});
