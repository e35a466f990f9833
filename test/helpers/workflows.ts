// Helpers for the workflow tests: a world with the keys the rules need (two full keys, a write-only
// key, brand-limited keys with and without publish, a small ceiling, a key to revoke), definition
// builders, and waiting for an execution to reach a state.

import { expect } from 'chai';
import type { World } from './world.js';
import { waitUntil } from './launches.js';

const full = { scopes: ['read', 'write', 'publish'], surfaces: { api: true, mcp: true }, brands: null, publishCeilingDollars: 500 };

export const workflowWorld = {
  organizations: [
    {
      ref: 'acme',
      name: 'Acme Agency',
      plan: 'agency',
      subscriptionStatus: 'active',
      users: [
        { ref: 'olive', email: 'olive@acme.test', name: 'Olive Owner', password: 'correct horse 1', role: 'owner' },
        { ref: 'mia', email: 'mia@acme.test', name: 'Mia Member', password: 'correct horse 2', role: 'member', brands: ['shoes'] },
        { ref: 'ada', email: 'ada@acme.test', name: 'Ada Admin', password: 'correct horse 3', role: 'admin' },
      ],
      brands: [
        {
          ref: 'shoes',
          name: 'Shoes Co',
          adAccounts: [
            { platform: 'meta', accountId: 'act_1001', pageId: 'pg_1001', name: 'Shoes US', timezone: 'America/New_York', currency: 'USD', active: true },
          ],
        },
        {
          ref: 'hats',
          name: 'Hats Co',
          adAccounts: [{ platform: 'meta', accountId: 'act_1002', pageId: 'pg_1002', name: 'Hats US', timezone: 'UTC', currency: 'USD', active: true }],
        },
      ],
      apiKeys: [
        { ref: 'ci', name: 'CI key', createdBy: 'olive', ...full },
        // Another person's keys: approvals compare persons, so the reviewer is not the key's creator.
        { ref: 'ci2', name: 'Reviewer key', createdBy: 'ada', ...full },
        { ref: 'doomed', name: 'Doomed key', createdBy: 'ada', ...full },
        { ref: 'small', name: 'Small ceiling', createdBy: 'olive', ...full, publishCeilingDollars: 40 },
        { ref: 'writer', name: 'Writer', createdBy: 'olive', scopes: ['read', 'write'], surfaces: { api: true, mcp: true }, brands: null },
        { ref: 'limited', name: 'Shoes only', createdBy: 'olive', scopes: ['read', 'write'], surfaces: { api: true, mcp: true }, brands: ['shoes'] },
        {
          ref: 'limitedPub',
          name: 'Shoes publisher',
          createdBy: 'olive',
          scopes: ['read', 'write', 'publish'],
          surfaces: { api: true, mcp: true },
          brands: ['shoes'],
          publishCeilingDollars: 500,
        },
      ],
    },
  ],
};

export type Def = {
  workflowName?: string;
  type?: string;
  trigger?: Record<string, unknown>;
  nodes: Array<Record<string, unknown>>;
  edges?: Array<Record<string, unknown>>;
};

export const reviewNode = (nodeId = 'review', settings: Record<string, unknown> = {}) => ({ nodeId, kind: 'review', name: 'Review', settings });
export const chatNode = (nodeId: string, webhookUrl: string, message = 'Run {{executionId}} of {{workflowName}}') => ({
  nodeId,
  kind: 'chat',
  name: 'Tell the team',
  settings: { message, webhookUrl },
});
export const launchNode = (nodeId: string, launchId: string | number, extra: Record<string, unknown> = {}) => ({
  nodeId,
  kind: 'launch',
  name: 'Publish',
  settings: { launchId, ...extra },
});

/** Edges chaining the nodes in order. */
export function chain(...ids: string[]) {
  return ids.slice(1).map((to, i) => ({ from: ids[i], to }));
}

/** Creates a pipeline column of the brand (for pipeline-stage triggers); answers its id. */
export async function newColumn(w: World, credential: string, brandId: number, name: string): Promise<number> {
  const r = await w.request('POST', `/v1/brands/${brandId}/pipeline/columns`, { key: credential, body: { name } });
  expect(r.status, JSON.stringify(r.body)).to.equal(201);
  return r.body.columnId;
}

/** Creates a paused automation on the brand's ad account (for monitor triggers); answers its id. */
export async function newAutomation(w: World, credential: string, brandId: number, accountId: string, name = 'Watch'): Promise<number> {
  const r = await w.request('POST', `/v1/brands/${brandId}/automations`, {
    key: credential,
    body: {
      automationName: name,
      accountId,
      level: 'campaign',
      action: 'notify',
      status: 'PAUSED',
      conditions: [{ metric: 'spend', window: 'today', operator: 'gt', value: 100 }],
    },
  });
  expect(r.status, JSON.stringify(r.body)).to.equal(201);
  return r.body.automationId;
}

export function definition(d: Def) {
  return {
    workflowName: d.workflowName ?? 'Test workflow',
    type: d.type ?? 'custom',
    trigger: d.trigger ?? { kind: 'manual' },
    nodes: d.nodes,
    edges: d.edges ?? chain(...d.nodes.map((n) => n.nodeId as string)),
  };
}

export async function createWorkflow(w: World, credential: string, brandId: number, d: Def): Promise<Record<string, any>> {
  const r = await w.request('POST', `/v1/brands/${brandId}/workflows`, { key: credential, body: definition(d) });
  expect(r.status, JSON.stringify(r.body)).to.equal(201);
  return r.body;
}

export async function runWorkflow(w: World, credential: string, brandId: number, workflowId: number, body: Record<string, unknown> = {}): Promise<number> {
  const r = await w.request('POST', `/v1/brands/${brandId}/workflows/${workflowId}/runs`, { key: credential, body });
  expect(r.status, JSON.stringify(r.body)).to.equal(202);
  return r.body.executionId;
}

/** Polls the execution until `ready` says so; answers the last read. */
export async function waitForExecution(
  w: World,
  credential: string,
  brandId: number,
  workflowId: number,
  executionId: number,
  ready: (e: Record<string, any>) => boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<Record<string, any>> {
  let last: Record<string, any> = {};
  await waitUntil(
    async () => {
      const r = await w.request('GET', `/v1/brands/${brandId}/workflows/${workflowId}/executions/${executionId}`, { key: credential });
      last = r.body;
      return r.status === 200 && ready(r.body);
    },
    `${what} (last: ${JSON.stringify(last).slice(0, 600)})`,
    timeoutMs,
    50,
  );
  return last;
}

export const finished = (e: Record<string, any>) => ['succeeded', 'failed', 'canceled'].includes(e.status);
export const nodeOf = (e: Record<string, any>, nodeId: string) => (e.nodes as Array<Record<string, any>>).find((n) => n.nodeId === nodeId)!;
