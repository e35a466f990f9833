// Every body that names another resource, saved over REST with the id of one that does not exist,
// of another brand, and of another organization: each answers the same 400 validation_failed on the
// field's path (word for word, but for the id); the id of the brand's own resource sent as a string
// of digits is accepted like the number. One table row per field, on every dialect.

import { expect } from 'chai';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World, type Reply } from '../../helpers/world.js';
import { brandApi, buildLaunch, createLaunch, uploadCreative, type Api } from '../../helpers/launch-builders.js';
import { seedLiveLaunch } from '../../../src/launches/live-launch.js';

const full = { scopes: ['read', 'write', 'publish'], surfaces: { api: true, mcp: true }, publishCeilingDollars: 500 };

const referencesWorld = {
  organizations: [
    {
      ref: 'acme',
      name: 'Acme Agency',
      plan: 'agency',
      subscriptionStatus: 'active',
      users: [{ ref: 'olive', email: 'olive@acme.test', name: 'Olive Owner', password: 'correct horse 1', role: 'owner' }],
      brands: [
        {
          ref: 'shoes',
          name: 'Shoes Co',
          adAccounts: [{ platform: 'meta', accountId: 'act_1001', pageId: 'pg_1001', name: 'Shoes US', timezone: 'UTC', currency: 'USD' }],
        },
        {
          ref: 'hats',
          name: 'Hats Co',
          adAccounts: [{ platform: 'meta', accountId: 'act_1002', pageId: 'pg_1002', name: 'Hats US', timezone: 'UTC', currency: 'USD' }],
        },
      ],
      apiKeys: [
        { ref: 'ci', name: 'CI key', createdBy: 'olive', ...full, brands: null },
        { ref: 'shoesOnly', name: 'Shoes only', createdBy: 'olive', ...full, brands: ['shoes'] },
      ],
    },
    {
      ref: 'other',
      name: 'Other Agency',
      plan: 'agency',
      subscriptionStatus: 'active',
      brands: [
        {
          ref: 'rival',
          name: 'Rival Co',
          adAccounts: [{ platform: 'meta', accountId: 'act_9001', pageId: 'pg_9001', name: 'Rival US', timezone: 'UTC', currency: 'USD' }],
        },
      ],
      apiKeys: [{ ref: 'otherKey', name: 'Other key', ...full, brands: null }],
    },
  ],
};

/** Everything a body may name, made in one brand. */
interface Resources {
  brandId: number;
  accountId: string;
  creativeId: number;
  copyId: number;
  templateId: number;
  launchId: number;
  campaignNodeId: string;
  adsetNodeId: string;
  adNodeId: string;
  automationId: number;
  columnId: number;
  workflowId: number;
  liveObjectId: string;
}

const MISSING = 2_147_000_001;
const review = { nodeId: 'r', kind: 'review', name: 'Review', settings: {} };
const workflowBody = (trigger: Record<string, unknown>, nodes: unknown[]) => ({ workflowName: 'Refs', type: 'custom', trigger, nodes, edges: [] });
const templateBody = (accountId: string, ad: Record<string, unknown>) => ({
  name: 'Refs',
  config: {
    campaign: { name: '{brand}', objective: 'OUTCOME_TRAFFIC' },
    adSets: [{ name: '{audience}', optimizationGoal: 'LINK_CLICKS', billingEvent: 'IMPRESSIONS', targeting: { countries: ['US'] } }],
    ads: [{ name: 'Hero', headline: 'Spring', primaryText: 'Sale', linkUrl: 'https://shop.example.com/', callToAction: 'SHOP_NOW', ...ad }],
  },
  audiences: [{ kind: 'targetingSet', name: 'Broad', targeting: { ageMin: 25, ageMax: 45 } }],
  settings: { budget: { dailyAmount: 5000 } },
  accounts: [accountId],
  scope: 'single',
});

function must(r: Reply, status: number, what: string): Reply {
  expect(r.status, `${what}: ${JSON.stringify(r.body)}`).to.equal(status);
  return r;
}

for (const dialect of dialects()) {
  describe(`references in bodies (${dialect})`, function () {
    this.timeout(180_000);
    let w: World;
    let own: Resources;
    let hats: Resources;
    let rival: Resources;
    let api: Api;

    async function resources(org: string, brandRef: string, keyRef: string, accountId: string): Promise<Resources> {
      const brandId = w.brandId(org, brandRef);
      const key = w.key(org, keyRef);
      const b = brandApi(w, key, brandId);
      const creativeId = await uploadCreative(w, key, brandId);
      const copyId = must(await b('POST', '/copies', { platform: 'meta' }), 201, 'copy').body.copyGenerationId;
      const launch = await buildLaunch(b, { creativeId });
      const templateId = must(await b('POST', '/structure-templates', templateBody(accountId, { creativeId })), 201, 'template').body.templateId;
      const automation = {
        automationName: 'Watch',
        accountId,
        level: 'campaign',
        action: 'notify',
        status: 'PAUSED',
        conditions: [{ metric: 'spend', window: 'today', operator: 'gt', value: 100 }],
      };
      const automationId = must(await b('POST', '/automations', automation), 201, 'automation').body.automationId;
      const columnId = must(await b('POST', '/pipeline/columns', { name: `Column ${brandRef}` }), 201, 'column').body.columnId;
      const workflowId = must(await b('POST', '/workflows', workflowBody({ kind: 'manual' }, [review])), 201, 'workflow').body.workflowId;
      const live = await seedLiveLaunch(w.service.knex, {
        organizationId: w.seed.organizations[org].id,
        brandId,
        accountId,
        platform: 'meta',
        title: 'Live',
        at: Date.now() - 86_400_000,
        campaigns: [{ name: 'Live', dailyBudget: 5000 }],
      });
      return {
        brandId,
        accountId,
        creativeId,
        copyId,
        templateId,
        launchId: Number(launch.launchId),
        campaignNodeId: launch.campaignId,
        adsetNodeId: launch.adsetId,
        adNodeId: launch.adIds[0],
        automationId,
        columnId,
        workflowId,
        liveObjectId: live.objects.find((o) => o.level === 'campaign')!.objectId,
      };
    }

    before(async () => {
      w = await startWorld({ dialect, bootstrap: referencesWorld, env: { AGENT_MODEL_URL: 'http://127.0.0.1:9999/v1' } });
      own = await resources('acme', 'shoes', 'ci', 'act_1001');
      hats = await resources('acme', 'hats', 'ci', 'act_1002');
      rival = await resources('other', 'rival', 'otherKey', 'act_9001');
      api = brandApi(w, w.key('acme', 'ci'), own.brandId);
    });
    after(async () => {
      await w?.close();
    });

    interface Row {
      /** The operation and the field, as the detail names it. */
      name: string;
      field: string;
      /** Which of a brand's resources the field names. */
      pick: (r: Resources) => number | string;
      /** Saves the body with `id` in the field (a fresh call each time: some bodies can be saved once). */
      send: (id: number | string) => Promise<Reply>;
      /** The answer of a successful save. */
      ok?: number;
      /** False for ids that are strings by nature (ad accounts, node and platform ids): no digit form to try. */
      digits?: boolean;
    }

    const rows: Row[] = [
      {
        name: 'create-workflow',
        field: 'trigger.columnId',
        pick: (r) => r.columnId,
        send: (id) => api('POST', '/workflows', workflowBody({ kind: 'pipeline_stage', columnId: id }, [review])),
        ok: 201,
      },
      {
        name: 'create-workflow',
        field: 'trigger.automationId',
        pick: (r) => r.automationId,
        send: (id) => api('POST', '/workflows', workflowBody({ kind: 'monitor', automationId: id }, [review])),
        ok: 201,
      },
      {
        name: 'create-workflow',
        field: 'nodes[t].settings.templateId',
        pick: (r) => r.templateId,
        ok: 201,
        send: (id) => api('POST', '/workflows', workflowBody({ kind: 'manual' }, [{ nodeId: 't', kind: 'apply_template', settings: { templateId: id } }])),
      },
      {
        name: 'create-workflow',
        field: 'nodes[go].settings.launchId',
        pick: (r) => r.launchId,
        ok: 201,
        send: (id) => api('POST', '/workflows', workflowBody({ kind: 'manual' }, [{ nodeId: 'go', kind: 'launch', settings: { launchId: id } }])),
      },
      {
        name: 'create-workflow',
        field: 'nodes[p].settings.nodeId',
        pick: (r) => r.campaignNodeId,
        ok: 201,
        digits: false,
        send: (id) =>
          api('POST', '/workflows', workflowBody({ kind: 'manual' }, [{ nodeId: 'p', kind: 'pause', settings: { launchId: own.launchId, nodeId: id } }])),
      },
      {
        name: 'save-workflow',
        field: 'nodes[go].settings.launchId',
        pick: (r) => r.launchId,
        ok: 200,
        send: async (id) => {
          const made = must(await api('POST', '/workflows', workflowBody({ kind: 'manual' }, [review])), 201, 'workflow');
          return api('PUT', `/workflows/${made.body.workflowId}`, {
            ...workflowBody({ kind: 'manual' }, [{ nodeId: 'go', kind: 'launch', settings: { launchId: id } }]),
            version: 1,
          });
        },
      },
      {
        name: 'run-workflow',
        field: 'launchId',
        pick: (r) => r.launchId,
        ok: 202,
        send: (id) => api('POST', `/workflows/${own.workflowId}/runs`, { launchId: id }),
      },
      {
        name: 'create-pipeline-column',
        field: 'workflowId',
        pick: (r) => r.workflowId,
        ok: 201,
        send: (id) => api('POST', '/pipeline/columns', { name: `Linked ${Math.random()}`, workflowId: id }),
      },
      {
        name: 'update-pipeline-column',
        field: 'workflowId',
        pick: (r) => r.workflowId,
        ok: 200,
        send: (id) => api('PATCH', `/pipeline/columns/${own.columnId}`, { workflowId: id }),
      },
      {
        name: 'create-pipeline-card',
        field: 'launchId',
        pick: (r) => r.launchId,
        ok: 201,
        // The brand's own launch can sit on the board once: the success case uses a fresh one.
        send: async (id) =>
          api('POST', '/pipeline/cards', { launchId: id === String(own.launchId) ? await createLaunch(api, 'Card') : id, columnId: own.columnId }),
      },
      {
        name: 'create-pipeline-card',
        field: 'columnId',
        pick: (r) => r.columnId,
        ok: 201,
        send: async (id) => api('POST', '/pipeline/cards', { launchId: await createLaunch(api, 'Card'), columnId: id }),
      },
      {
        name: 'move-pipeline-card',
        field: 'columnId',
        pick: (r) => r.columnId,
        ok: 200,
        send: async (id) => {
          const card = must(await api('POST', '/pipeline/cards', { launchId: await createLaunch(api, 'Moving'), columnId: own.columnId }), 201, 'card');
          return api('PATCH', `/pipeline/cards/${card.body.cardId}`, { columnId: id, version: card.body.version });
        },
      },
      {
        name: 'create-structure-template',
        field: 'accounts[0]',
        pick: (r) => r.accountId,
        ok: 201,
        digits: false,
        send: (id) => api('POST', '/structure-templates', templateBody(String(id), {})),
      },
      {
        name: 'create-structure-template',
        field: 'config.ads[0].creativeId',
        pick: (r) => r.creativeId,
        ok: 201,
        send: (id) => api('POST', '/structure-templates', templateBody(own.accountId, { creativeId: id })),
      },
      {
        name: 'create-structure-template',
        field: 'config.ads[0].copyGenerationId',
        pick: (r) => r.copyId,
        ok: 201,
        send: (id) => api('POST', '/structure-templates', templateBody(own.accountId, { copyGenerationId: id })),
      },
      {
        name: 'edit-structure-template',
        field: 'accounts[0]',
        pick: (r) => r.accountId,
        ok: 200,
        digits: false,
        send: (id) => api('PATCH', `/structure-templates/${own.templateId}`, { accounts: [id] }),
      },
      {
        name: 'create-node',
        field: 'properties.creativeId',
        pick: (r) => r.creativeId,
        ok: 201,
        send: (id) =>
          api('POST', `/launches/${own.launchId}/nodes`, { nodeType: 'ad', parentId: own.adsetNodeId, properties: { name: 'Another ad', creativeId: id } }),
      },
      {
        name: 'update-node',
        field: 'creativeId',
        pick: (r) => r.creativeId,
        ok: 200,
        send: (id) => api('PATCH', `/launches/${own.launchId}/nodes/${own.adNodeId}`, { creativeId: id }),
      },
      {
        name: 'update-node',
        field: 'copyGenerationId',
        pick: (r) => r.copyId,
        ok: 200,
        send: (id) => api('PATCH', `/launches/${own.launchId}/nodes/${own.adNodeId}`, { copyGenerationId: id }),
      },
      {
        name: 'update-node',
        field: 'properties.copyGenerationId',
        pick: (r) => r.copyId,
        ok: 200,
        send: (id) => api('PATCH', `/launches/${own.launchId}/nodes/${own.adNodeId}`, { properties: { copyGenerationId: id } }),
      },
      {
        name: 'create-automation',
        field: 'accountId',
        pick: (r) => r.accountId,
        ok: 201,
        digits: false,
        send: (id) =>
          api('POST', '/automations', {
            automationName: 'A',
            accountId: id,
            level: 'campaign',
            action: 'notify',
            status: 'PAUSED',
            conditions: [{ metric: 'spend', window: 'today', operator: 'gt', value: 1 }],
          }),
      },
      {
        name: 'create-automation',
        field: 'objectIds[0]',
        pick: (r) => r.liveObjectId,
        ok: 201,
        digits: false,
        send: (id) =>
          api('POST', '/automations', {
            automationName: 'B',
            accountId: own.accountId,
            level: 'campaign',
            objectIds: [id],
            action: 'notify',
            status: 'PAUSED',
            conditions: [{ metric: 'spend', window: 'today', operator: 'gt', value: 1 }],
          }),
      },
      {
        name: 'update-automation',
        field: 'objectIds[0]',
        pick: (r) => r.liveObjectId,
        ok: 200,
        digits: false,
        send: (id) => api('PATCH', `/automations/${own.automationId}`, { objectIds: [id] }),
      },
      {
        name: 'generate-copy',
        field: 'creativeIds[0]',
        pick: (r) => r.creativeId,
        ok: 201,
        send: (id) => api('POST', '/copies', { platform: 'meta', creativeIds: [id] }),
      },
      {
        name: 'create-workflow (brand-limited key)',
        field: 'nodes[go].settings.brandId',
        pick: (r) => r.brandId,
        ok: 201,
        send: (id) =>
          brandApi(w, w.key('acme', 'shoesOnly'), own.brandId)(
            'POST',
            '/workflows',
            workflowBody({ kind: 'manual' }, [{ nodeId: 'go', kind: 'launch', settings: { launchId: '$trigger.launchId', brandId: id } }]),
          ),
      },
      {
        name: 'create-workflow (brand-limited key)',
        field: 'nodes[ag].settings.brandIds[0]',
        pick: (r) => r.brandId,
        ok: 201,
        send: (id) =>
          brandApi(w, w.key('acme', 'shoesOnly'), own.brandId)(
            'POST',
            '/workflows',
            workflowBody({ kind: 'manual' }, [{ nodeId: 'ag', kind: 'agent', settings: { instruction: 'Pause the losers', brandIds: [id] } }]),
          ),
      },
    ];

    /** The details with every occurrence of `id` written as ID, so answers about different ids compare. */
    const shape = (r: Reply, id: number | string) => JSON.stringify(r.body?.error?.details).split(String(id)).join('ID');

    for (const row of rows) {
      it(`${row.name} ${row.field}: missing, another brand's and another organization's answer the same 400; the brand's own is accepted${row.digits === false ? '' : ' as digits'}`, async () => {
        const missing = typeof row.pick(own) === 'number' ? MISSING : `${String(row.pick(own)).slice(0, 4)}missing`;
        const refused = await row.send(missing);
        expect(refused.status, JSON.stringify(refused.body)).to.equal(400);
        expect(refused.body.error.code).to.equal('validation_failed');
        expect(refused.body.error.details).to.have.length(1);
        expect(refused.body.error.details[0]).to.include({ field: row.field, code: 'invalid_value' });
        expect(refused.body.error.details[0].message).to.include(String(missing));
        for (const [other, what] of [
          [hats, "another brand's"],
          [rival, "another organization's"],
        ] as const) {
          const id = row.pick(other);
          const foreign = await row.send(id);
          expect(foreign.status, `${what}: ${JSON.stringify(foreign.body)}`).to.equal(400);
          expect(shape(foreign, id), what).to.equal(shape(refused, missing));
        }
        const mine = row.pick(own);
        const accepted = await row.send(row.digits === false ? mine : String(mine));
        expect(accepted.status, `the brand's own: ${JSON.stringify(accepted.body)}`).to.equal(row.ok ?? 200);
      });
    }

    it('answers a saved id sent as digits as the number', async () => {
      const column = must(await api('POST', '/pipeline/columns', { name: 'Digits', workflowId: String(own.workflowId) }), 201, 'column');
      expect(column.body.workflowId).to.equal(own.workflowId);
      const wf = must(
        await api(
          'POST',
          '/workflows',
          workflowBody({ kind: 'monitor', automationId: String(own.automationId) }, [
            { nodeId: 'go', kind: 'launch', settings: { launchId: String(own.launchId) } },
          ]),
        ),
        201,
        'workflow',
      );
      expect(wf.body.trigger).to.deep.equal({ kind: 'monitor', automationId: own.automationId });
      expect(wf.body.nodes[0].settings).to.deep.equal({ launchId: own.launchId });
      const node = must(await api('PATCH', `/launches/${own.launchId}/nodes/${own.adNodeId}`, { creativeId: String(own.creativeId) }), 200, 'node');
      expect(node.body.properties.creativeId).to.equal(own.creativeId);
    });
  });
}
