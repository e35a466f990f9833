// The contract's workflow list, execution read and delete through the SDK's real MCP Client (the
// same operations as REST): the answers match REST's, a brand-limited key gets 404 for a workflow
// reaching another brand, and the publish rule holds on this surface too.

import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { dialects } from '../../helpers/databases.js';
import { asToolAnswer, mcpClient } from '../../helpers/mcp.js';
import { startWorld, type World } from '../../helpers/world.js';
import { WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { chatNode, createWorkflow, finished, launchNode, reviewNode, runWorkflow, waitForExecution, workflowWorld } from '../../helpers/workflows.js';

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, any> };

async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const result = (await client.callTool({ name, arguments: args })) as ToolResult;
  expect(result.isError ?? false, `${name}: ${result.content[0]?.text}`).to.equal(false);
  return result.structuredContent!;
}

async function toolError(client: Client, name: string, args: Record<string, unknown>): Promise<{ code: string; details: any }> {
  const result = (await client.callTool({ name, arguments: args })) as ToolResult;
  expect(result.isError, `${name} should fail`).to.equal(true);
  return JSON.parse(result.content[0].text!).error;
}

for (const dialect of dialects()) {
  describe(`workflows over MCP (${dialect})`, function () {
    this.timeout(60_000);
    let w: World;
    let ci: Client;
    let limited: Client;
    let writer: Client;
    let chat: WebhookReceiver;
    let shoes: number;
    let hats: number;

    before(async () => {
      w = await startWorld({ dialect, bootstrap: workflowWorld, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
      shoes = w.brandId('acme', 'shoes');
      hats = w.brandId('acme', 'hats');
      ci = await mcpClient(w.url, w.key('acme', 'ci'));
      limited = await mcpClient(w.url, w.key('acme', 'limited'));
      writer = await mcpClient(w.url, w.key('acme', 'writer'));
      chat = await new WebhookReceiver().start('/chat');
    });
    after(async () => {
      for (const c of [ci, limited, writer]) await c?.close();
      await chat?.close();
      await w?.close();
    });

    it('list_workflows answers what GET /workflows answers', async () => {
      await createWorkflow(w, w.key('acme', 'ci'), shoes, { workflowName: 'Over MCP', nodes: [reviewNode()] });
      const viaTool = await tool(ci, 'list_workflows', { brandId: shoes });
      const viaRest = await w.request('GET', `/v1/brands/${shoes}/workflows`, { key: w.key('acme', 'ci') });
      expect(viaTool).to.deep.equal(asToolAnswer(viaRest.body));
      expect(viaTool.workflows[0]).to.include({ workflowName: 'Over MCP', status: 'inactive', runCount: 0, isRunning: false });
    });

    it("get_workflow_execution reads a run with each node's result; create and run work as tools too", async () => {
      const created = await tool(ci, 'create_workflow', {
        brandId: shoes,
        workflowName: 'Tool made',
        trigger: { kind: 'manual' },
        nodes: [chatNode('tell', chat.url, 'From MCP')],
        edges: [],
      });
      const started = await tool(ci, 'run_workflow', { brandId: shoes, workflowId: String(created.workflowId) });
      expect(started.status).to.equal('queued');
      await waitForExecution(w, w.key('acme', 'ci'), shoes, created.workflowId, started.executionId, finished, 'the run');
      const read = await tool(ci, 'get_workflow_execution', { brandId: shoes, workflowId: String(created.workflowId), executionId: started.executionId });
      expect(read).to.include({ executionId: started.executionId, workflowId: created.workflowId, status: 'succeeded' });
      expect(read.nodes[0]).to.deep.include({ nodeId: 'tell', kind: 'chat', status: 'succeeded', error: null });
      expect(read.nodes[0].result.text).to.equal('From MCP');
    });

    it('delete_workflow deletes permanently and answers {workflowId} as a string', async () => {
      const wf = await createWorkflow(w, w.key('acme', 'ci'), shoes, { nodes: [reviewNode()] });
      const exec = await runWorkflow(w, w.key('acme', 'ci'), shoes, wf.workflowId);
      await waitForExecution(w, w.key('acme', 'ci'), shoes, wf.workflowId, exec, (e) => e.status === 'waiting_review', 'the gate');
      const gone = await tool(ci, 'delete_workflow', { brandId: shoes, workflowId: String(wf.workflowId) });
      expect(gone).to.deep.equal({ workflowId: String(wf.workflowId), deleted: true, executionsDeleted: 1 });
      expect((await toolError(ci, 'get_workflow', { brandId: shoes, workflowId: String(wf.workflowId) })).code).to.equal('not_found');
    });

    it('a brand-limited key gets not_found for a workflow reaching another brand, and the publish rule holds', async () => {
      const cross = await createWorkflow(w, w.key('acme', 'ci'), shoes, { nodes: [launchNode('go', '$trigger.launchId', { brandId: hats })] });
      expect((await toolError(limited, 'get_workflow', { brandId: shoes, workflowId: String(cross.workflowId) })).code).to.equal('not_found');
      expect((await toolError(limited, 'delete_workflow', { brandId: shoes, workflowId: String(cross.workflowId) })).code).to.equal('not_found');
      const listed = await tool(limited, 'list_workflows', { brandId: shoes, limit: 100 });
      expect(listed.workflows.map((x: any) => x.workflowId)).not.to.include(cross.workflowId);
      const refused = await toolError(writer, 'run_workflow', { brandId: shoes, workflowId: String(cross.workflowId) });
      expect(refused).to.deep.include({ code: 'insufficient_scope', details: { requiredScope: 'publish' } });
    });
  });
}
