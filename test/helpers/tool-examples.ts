// A successful call of every MCP tool, in an order that works on one fresh fixture: the
// catalogue-wide MCP test runs them on each transport. A tool without an example written here gets
// one made from its operation's REST example (schemas/examples/<operation>.json, see
// `derivedExamples`), so a new operation needs no change here unless that one cannot succeed on the
// fixture; then it adds its example here (or the reason the sandbox cannot make it succeed).

import { makePng } from './png.js';
import { brandApi, buildLaunch, idem, publish, uploadCreative, type BuiltLaunch } from './launch-builders.js';
import type { World } from './world.js';
import { waitUntil } from './launches.js';
import { loadOperationExamples, type OperationExample } from '../../src/schemas/examples.js';

export interface ToolFixture {
  brandId: number;
  accountId: string;
  creativeId: number;
  /** A draft launch with one campaign, ad set and ad. */
  draft: BuiltLaunch;
  /** A published launch (its campaign carries a daily budget). */
  live: BuiltLaunch;
  /** A draft launch the examples may delete. */
  spareLaunchId: string;
  /** A local receiver for webhook examples. */
  receiverUrl: string;
  /** A workflow run waiting at its review gate, started by another key (its author may not review it). */
  gate: { workflowId: number; executionId: string };
}

/** What earlier steps answered, by tool name. */
export type Answers = Map<string, any>;

export interface ToolExample {
  tool: string;
  args(fx: ToolFixture, answers: Answers): Record<string, unknown>;
}

let seq = 0;
const key = (tool: string) => `${tool}-${process.pid}-${Date.now()}-${seq++}`;

/** Builds the objects the examples act on, through REST with `secret` (which needs read, write and publish). */
export async function prepareToolFixture(w: World, secret: string, brandId: number, accountId: string, receiverUrl: string): Promise<ToolFixture> {
  const api = brandApi(w, secret, brandId);
  const creativeId = await uploadCreative(w, secret, brandId);
  const draft = await buildLaunch(api, { title: 'Tool examples: draft', creativeId });
  const live = await buildLaunch(api, { title: 'Tool examples: live', creativeId });
  await publish(api, live.launchId);
  const spare = await api('POST', '/launches', { title: 'Tool examples: spare' }, idem('spare'));
  return { brandId, accountId, creativeId, draft, live, spareLaunchId: spare.body.id, receiverUrl, gate: await waitingGate(w, api, brandId) };
}

/** A review-only workflow run by the standard world's writer key, once it waits at its gate (read with `api`). */
async function waitingGate(w: World, api: ReturnType<typeof brandApi>, brandId: number): Promise<ToolFixture['gate']> {
  const other = brandApi(w, w.key('acme', 'writer'), brandId);
  const made = await other('POST', '/workflows', {
    workflowName: 'Tool examples: gate',
    trigger: { kind: 'manual' },
    nodes: [{ nodeId: 'review', kind: 'review', settings: {} }],
  });
  const run = await other('POST', `/workflows/${made.body.workflowId}/runs`, {});
  await waitUntil(
    async () => (await api('GET', `/workflows/${made.body.workflowId}/executions/${run.body.executionId}`)).body.status === 'waiting_review',
    'the example run to wait at its gate',
  );
  return { workflowId: made.body.workflowId, executionId: run.body.executionId };
}

/** A READY single-account template of the example launch's settings. */
const structureTemplate = (fx: ToolFixture) => ({
  name: 'Prospecting',
  config: {
    campaign: { name: '{brand} | {objective}', objective: 'OUTCOME_TRAFFIC' },
    adSets: [{ name: '{audience}', optimizationGoal: 'LINK_CLICKS', billingEvent: 'IMPRESSIONS', targeting: { countries: ['US'], ageMin: 18, ageMax: 65 } }],
    ads: [
      {
        name: 'Hero',
        creativeId: fx.creativeId,
        headline: 'Spring sale',
        primaryText: 'Up to 40% off',
        linkUrl: 'https://shop.example.com/spring',
        callToAction: 'SHOP_NOW',
      },
    ],
  },
  audiences: [{ kind: 'targetingSet', name: 'Broad 25-45', targeting: { ageMin: 25, ageMax: 45 } }],
  settings: { budget: { dailyAmount: 5000 } },
  accounts: [fx.accountId],
  scope: 'single',
  status: 'READY',
});

const png = () => makePng(600, 600).toString('base64');

/** One successful call per tool, in order: later steps may use what earlier ones answered. */
const writtenExamples: ToolExample[] = [
  { tool: 'list_brands', args: () => ({ limit: 10 }) },
  { tool: 'list_activity', args: (fx) => ({ brandId: fx.brandId, days: 7 }) },
  { tool: 'list_campaigns', args: (fx) => ({ brandId: fx.brandId, accountId: fx.accountId, statusFilter: ['ACTIVE'] }) },
  { tool: 'list_lead_forms', args: (fx) => ({ brandId: fx.brandId, accountId: fx.accountId, pageId: 'pg_1' }) },
  { tool: 'list_options', args: (fx) => ({ brandId: fx.brandId, accountId: fx.accountId, optionType: 'pixels' }) },
  { tool: 'get_overview', args: (fx) => ({ brandId: fx.brandId, accountId: fx.accountId, datePreset: 'last_7d' }) },
  { tool: 'get_naming_convention', args: (fx) => ({ brandId: fx.brandId, accountId: fx.accountId }) },
  { tool: 'set_naming_convention', args: (fx) => ({ brandId: fx.brandId, accountId: fx.accountId, campaign: '{{objective}} - {{name}}' }) },
  { tool: 'upload_creative', args: (fx) => ({ brandId: fx.brandId, name: 'Tool upload', dataBase64: png() }) },
  { tool: 'list_creatives', args: (fx) => ({ brandId: fx.brandId }) },
  { tool: 'get_creative', args: (fx) => ({ brandId: fx.brandId, creativeId: fx.creativeId }) },
  { tool: 'create_launch', args: (fx) => ({ brandId: fx.brandId, title: 'Made by a tool', idempotencyKey: key('create_launch') }) },
  { tool: 'list_launches', args: (fx) => ({ brandId: fx.brandId, limit: 5 }) },
  { tool: 'get_launch', args: (fx) => ({ brandId: fx.brandId, launchId: fx.draft.launchId }) },
  { tool: 'update_launch', args: (fx) => ({ brandId: fx.brandId, launchId: fx.draft.launchId, description: 'Changed by a tool' }) },
  {
    tool: 'create_node',
    args: (fx) => ({
      brandId: fx.brandId,
      launchId: fx.draft.launchId,
      nodeType: 'ad',
      parentId: fx.draft.adsetId,
      properties: { name: 'Tool ad', headline: 'Hello' },
    }),
  },
  { tool: 'update_node', args: (fx) => ({ brandId: fx.brandId, launchId: fx.draft.launchId, nodeId: fx.draft.adIds[0], properties: { status: 'PAUSED' } }) },
  { tool: 'get_ad_set', args: (fx) => ({ brandId: fx.brandId, launchId: fx.draft.launchId, adsetId: fx.draft.adsetId }) },
  {
    tool: 'duplicate_node',
    args: (fx) => ({ brandId: fx.brandId, launchId: fx.draft.launchId, nodeId: fx.draft.adIds[0], nodeType: 'ad', count: 1, idempotencyKey: key('duplicate') }),
  },
  {
    tool: 'remove_nodes',
    args: (fx, answers) => ({
      brandId: fx.brandId,
      launchId: fx.draft.launchId,
      nodes: [{ nodeId: answers.get('create_node').id, nodeType: 'ad' }],
      idempotencyKey: key('remove'),
    }),
  },
  { tool: 'launch_campaign', args: (fx) => ({ brandId: fx.brandId, launchId: fx.draft.launchId, idempotencyKey: key('preview') }) },
  {
    tool: 'edit_live_campaign',
    args: (fx) => ({
      brandId: fx.brandId,
      launchId: fx.live.launchId,
      nodeId: fx.live.campaignId,
      level: 'CAMPAIGN',
      budgetType: 'daily',
      amount: 6000,
      idempotencyKey: key('budget'),
    }),
  },
  {
    tool: 'create_snapshot_template',
    args: (fx) => ({ brandId: fx.brandId, launchId: fx.draft.launchId, name: `Snapshot ${seq++}`, idempotencyKey: key('snapshot') }),
  },
  { tool: 'list_snapshot_templates', args: (fx) => ({ brandId: fx.brandId }) },
  {
    tool: 'create_launch_from_snapshot',
    args: (fx, answers) => ({ brandId: fx.brandId, templateId: answers.get('create_snapshot_template').id, title: 'From a snapshot' }),
  },
  { tool: 'delete_launch', args: (fx) => ({ brandId: fx.brandId, launchId: fx.spareLaunchId }) },
  { tool: 'get_brand_profile', args: (fx) => ({ brandId: fx.brandId }) },
  {
    tool: 'set_brand_profile',
    args: (fx) => ({
      brandId: fx.brandId,
      voice: ['bold', 'friendly'],
      productDescription: 'Running shoes for city runners',
      website: 'https://shoes.example.com',
      wordsToAvoid: ['cheap'],
    }),
  },
  {
    tool: 'generate_copy',
    args: (fx) => ({ brandId: fx.brandId, platform: 'meta', angle: 'spring sale', creativeIds: [fx.creativeId], idempotencyKey: key('copy') }),
  },
  { tool: 'list_copies', args: (fx) => ({ brandId: fx.brandId, platform: 'meta' }) },
  { tool: 'get_copy', args: (fx, answers) => ({ brandId: fx.brandId, copyGenerationId: answers.get('generate_copy').copyGenerationId }) },
  { tool: 'create_structure_template', args: (fx) => ({ brandId: fx.brandId, ...structureTemplate(fx) }) },
  { tool: 'list_structure_templates', args: (fx) => ({ brandId: fx.brandId, limit: 5 }) },
  { tool: 'get_structure_template', args: (fx, answers) => ({ brandId: fx.brandId, templateId: String(answers.get('create_structure_template').templateId) }) },
  {
    tool: 'edit_structure_template',
    args: (fx, answers) => ({ brandId: fx.brandId, templateId: answers.get('create_structure_template').templateId, name: 'Prospecting v2' }),
  },
  {
    tool: 'apply_structure_template',
    args: (fx, answers) => ({ brandId: fx.brandId, templateId: String(answers.get('create_structure_template').templateId), idempotencyKey: key('apply') }),
  },
  {
    tool: 'delete_structure_template',
    args: (fx, answers) => ({ brandId: fx.brandId, templateId: String(answers.get('create_structure_template').templateId) }),
  },
  {
    tool: 'create_automation',
    args: (fx) => ({
      brandId: fx.brandId,
      automationName: 'Spend without results',
      accountId: fx.accountId,
      level: 'campaign',
      conditions: [
        { metric: 'spend', window: 'yesterday', operator: 'gt', value: 100 },
        { metric: 'results', window: 'yesterday', operator: 'lt', value: 1 },
      ],
      action: 'pause',
      frequency: 'hourly',
      mode: 'shadow',
      idempotencyKey: key('automation'),
    }),
  },
  { tool: 'list_automations', args: (fx) => ({ brandId: fx.brandId, status: 'ACTIVE' }) },
  { tool: 'get_automation', args: (fx, answers) => ({ brandId: fx.brandId, automationId: String(answers.get('create_automation').automationId) }) },
  {
    tool: 'update_automation',
    args: (fx, answers) => ({ brandId: fx.brandId, automationId: answers.get('create_automation').automationId, cooldownMinutes: 120 }),
  },
  { tool: 'preview_automation', args: (fx, answers) => ({ brandId: fx.brandId, automationId: answers.get('create_automation').automationId }) },
  {
    tool: 'run_automation',
    args: (fx, answers) => ({ brandId: fx.brandId, automationId: answers.get('create_automation').automationId, idempotencyKey: key('run') }),
  },
  { tool: 'list_automation_runs', args: (fx, answers) => ({ brandId: fx.brandId, automationId: answers.get('create_automation').automationId }) },
  {
    tool: 'set_automation_status',
    args: (fx, answers) => ({ brandId: fx.brandId, automationId: answers.get('create_automation').automationId, status: 'PAUSED' }),
  },
  { tool: 'delete_automation', args: (fx, answers) => ({ brandId: fx.brandId, automationId: answers.get('create_automation').automationId }) },
  { tool: 'create_pipeline_column', args: (fx) => ({ brandId: fx.brandId, name: `Review ${seq++}`, publishes: false }) },
  { tool: 'update_pipeline_column', args: (fx, answers) => ({ brandId: fx.brandId, columnId: answers.get('create_pipeline_column').columnId, position: 0 }) },
  {
    tool: 'create_pipeline_card',
    args: (fx, answers) => ({
      brandId: fx.brandId,
      launchId: fx.draft.launchId,
      columnId: answers.get('create_pipeline_column').columnId,
      idempotencyKey: key('card'),
    }),
  },
  { tool: 'get_pipeline', args: (fx) => ({ brandId: fx.brandId }) },
  {
    tool: 'move_pipeline_card',
    args: (fx, answers) => ({
      brandId: fx.brandId,
      cardId: answers.get('create_pipeline_card').cardId,
      title: 'Spring sale, reviewed',
      version: answers.get('create_pipeline_card').version,
    }),
  },
  { tool: 'delete_pipeline_card', args: (fx, answers) => ({ brandId: fx.brandId, cardId: answers.get('create_pipeline_card').cardId }) },
  { tool: 'delete_pipeline_column', args: (fx, answers) => ({ brandId: fx.brandId, columnId: answers.get('create_pipeline_column').columnId }) },
  { tool: 'get_tracker_connection', args: (fx) => ({ brandId: fx.brandId }) },
  { tool: 'connect_tracker', args: (fx) => ({ brandId: fx.brandId, baseUrl: 'sandbox:', apiKey: 'tracker-key-0001' }) },
  { tool: 'list_tracker_mappings', args: (fx) => ({ brandId: fx.brandId }) },
  {
    tool: 'update_tracker_mapping',
    args: (fx, answers) => {
      const list = answers.get('list_tracker_mappings');
      const campaign = list.mappings?.[0]?.providerCampaignId ?? list.unmatched?.[0]?.providerCampaignId ?? '0';
      return { brandId: fx.brandId, providerCampaignId: campaign, trackerCampaignId: list.trackerCampaigns?.[0]?.id ?? null };
    },
  },
  { tool: 'get_tracker_push', args: (fx) => ({ brandId: fx.brandId }) },
  { tool: 'set_tracker_push', args: (fx) => ({ brandId: fx.brandId, enabled: true }) },
  { tool: 'run_tracker_push', args: (fx) => ({ brandId: fx.brandId, idempotencyKey: key('push') }) },
  { tool: 'get_tracker_push_run', args: (fx, answers) => ({ brandId: fx.brandId, runId: answers.get('run_tracker_push').runId }) },
  { tool: 'disconnect_tracker', args: (fx) => ({ brandId: fx.brandId }) },
  { tool: 'create_webhook_endpoint', args: (fx) => ({ url: fx.receiverUrl, events: ['webhook.test', 'launch.published'], brandIds: [fx.brandId] }) },
  { tool: 'list_webhook_endpoints', args: () => ({}) },
  { tool: 'get_webhook_endpoint', args: (_fx, answers) => ({ endpointId: answers.get('create_webhook_endpoint').endpointId }) },
  {
    tool: 'update_webhook_endpoint',
    args: (_fx, answers) => ({ endpointId: answers.get('create_webhook_endpoint').endpointId, description: 'Tool receiver' }),
  },
  { tool: 'test_webhook_endpoint', args: (_fx, answers) => ({ endpointId: answers.get('create_webhook_endpoint').endpointId }) },
  { tool: 'list_webhook_deliveries', args: (_fx, answers) => ({ endpointId: answers.get('create_webhook_endpoint').endpointId }) },
  {
    tool: 'redeliver_webhook',
    args: (_fx, answers) => ({ endpointId: answers.get('create_webhook_endpoint').endpointId, deliveryId: answers.get('test_webhook_endpoint').deliveryId }),
  },
  { tool: 'rotate_webhook_secret', args: (_fx, answers) => ({ endpointId: answers.get('create_webhook_endpoint').endpointId }) },
  { tool: 'delete_webhook_endpoint', args: (_fx, answers) => ({ endpointId: answers.get('create_webhook_endpoint').endpointId }) },
  {
    tool: 'create_workflow',
    args: (fx) => ({
      brandId: fx.brandId,
      workflowName: 'Tool workflow',
      trigger: { kind: 'manual' },
      nodes: [{ nodeId: 'review', kind: 'review', name: 'Review', settings: {} }],
      edges: [],
    }),
  },
  { tool: 'list_workflows', args: (fx) => ({ brandId: fx.brandId }) },
  { tool: 'get_workflow', args: (fx, answers) => ({ brandId: fx.brandId, workflowId: String(answers.get('create_workflow').workflowId) }) },
  {
    tool: 'save_workflow',
    args: (fx, answers) => ({
      brandId: fx.brandId,
      workflowId: String(answers.get('create_workflow').workflowId),
      workflowName: 'Tool workflow, saved',
      trigger: { kind: 'manual' },
      nodes: [{ nodeId: 'review', kind: 'review', name: 'Review', settings: { timeoutHours: 24 } }],
      edges: [],
      version: 1,
    }),
  },
  { tool: 'activate_workflow', args: (fx, answers) => ({ brandId: fx.brandId, workflowId: String(answers.get('create_workflow').workflowId) }) },
  { tool: 'deactivate_workflow', args: (fx, answers) => ({ brandId: fx.brandId, workflowId: String(answers.get('create_workflow').workflowId) }) },
  {
    tool: 'run_workflow',
    args: (fx, answers) => ({ brandId: fx.brandId, workflowId: String(answers.get('create_workflow').workflowId), idempotencyKey: key('run') }),
  },
  { tool: 'list_workflow_executions', args: (fx, answers) => ({ brandId: fx.brandId, workflowId: String(answers.get('create_workflow').workflowId) }) },
  {
    tool: 'get_workflow_execution',
    args: (fx, answers) => ({
      brandId: fx.brandId,
      workflowId: String(answers.get('create_workflow').workflowId),
      executionId: String(answers.get('run_workflow').executionId),
    }),
  },
  {
    tool: 'review_workflow_step',
    args: (fx) => ({
      brandId: fx.brandId,
      workflowId: String(fx.gate.workflowId),
      executionId: fx.gate.executionId,
      nodeId: 'review',
      decision: 'approve',
      comment: 'Approved by a tool',
    }),
  },
  { tool: 'delete_workflow', args: (fx, answers) => ({ brandId: fx.brandId, workflowId: String(answers.get('create_workflow').workflowId) }) },
];

/** Tools the sandbox cannot make succeed, with the reason. */
export const noSandboxSuccess: Record<string, string> = {
  get_approval:
    "the fixture's organization publishes directly (agentPublishes direct), so no approval exists to read; test/e2e/console/approvals.test.ts reads them",
  update_organization_settings: "only an owner or admin, as a person, changes the settings; the fixture's credential is an API key",
};

/** Arguments of the tools above that cannot succeed here, for the tests that only need a call's shape (bad values of each argument). */
export const argsOnlyExamples: ToolExample[] = [
  { tool: 'get_approval', args: (fx) => ({ brandId: fx.brandId, approvalId: '1' }) },
  { tool: 'update_organization_settings', args: () => ({ agentPublishes: 'person' }) },
];

const ID_KEY = /^(id|.*Id)$/;
/** The address the REST examples send webhooks to; the tool examples use the fixture's receiver. */
const EXAMPLE_HOOK = 'https://hooks.example.com/svc';

/** The first value of `key` in `value`, depth first (a list's first item first), or undefined. */
function findKey(value: unknown, key: string): unknown {
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = findKey(item, key);
      if (found !== undefined) return found;
    }
  } else if (value && typeof value === 'object') {
    if (key in value) return (value as Record<string, unknown>)[key];
    for (const v of Object.values(value)) {
      const found = findKey(v, key);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/**
 * A tool example made from its operation's REST example: the request's path, query and body as the
 * arguments; each id (`id`, `...Id`) at the top is the fixture's (`brandId`, `accountId`,
 * `creativeId`) or the latest an earlier answer gave under that name (the example's own value when
 * none did); the example webhook address is the fixture's receiver, and a request that sends an
 * Idempotency-Key gets a fresh `idempotencyKey`.
 */
export function derivedExample(tool: string, example: OperationExample): ToolExample {
  return {
    tool,
    args(fx, answers) {
      const r = example.request;
      const args: Record<string, unknown> = { ...r.path, ...r.query, ...(r.body && typeof r.body === 'object' ? (r.body as object) : {}) };
      const fixture: Record<string, unknown> = { brandId: fx.brandId, accountId: fx.accountId, creativeId: fx.creativeId };
      const latest = [...answers.values()].reverse();
      for (const [name, value] of Object.entries(args)) {
        if (typeof value === 'string' && value === EXAMPLE_HOOK) args[name] = fx.receiverUrl;
        if (!ID_KEY.test(name)) continue;
        const found = name in fixture ? fixture[name] : latest.map((a) => findKey(a, name)).find((v) => v !== undefined);
        // An id the earlier answers hold as null (an unset instagramUserId) is no id to send.
        if (found !== undefined && found !== null) args[name] = found;
      }
      const headers = Object.keys(r.headers ?? {}).map((h) => h.toLowerCase());
      if (headers.includes('idempotency-key')) args.idempotencyKey = key(tool);
      return args;
    },
  };
}

/**
 * The written examples, and one made from the REST example of every other operation: placed right
 * after the tool of the operation its example names in `after`, or else at the end in name order.
 */
function withDerived(written: ToolExample[]): ToolExample[] {
  const out = [...written];
  const covered = new Set([...written.map((e) => e.tool), ...Object.keys(noSandboxSuccess)]);
  const toolOf = (operation: string) => operation.replace(/-/g, '_');
  const missing = [...loadOperationExamples()].filter(([name]) => !covered.has(toolOf(name))).sort(([a], [b]) => a.localeCompare(b));
  const derived = new Set<ToolExample>();
  for (const [name, example] of missing) {
    let at = example.after ? out.findIndex((e) => e.tool === toolOf(example.after!)) + 1 : 0;
    if (at === 0) at = out.length;
    // After the named tool and the examples made earlier that follow it (they keep name order).
    while (at < out.length && derived.has(out[at])) at++;
    const made = derivedExample(toolOf(name), example);
    derived.add(made);
    out.splice(at, 0, made);
  }
  return out;
}

export const toolExamples: ToolExample[] = withDerived(writtenExamples);
