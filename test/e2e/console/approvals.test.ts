// Issue 60, item 4, in headless Chromium on both dialects: an organization whose agentPublishes is
// `person`. An MCP launch_campaign with confirm by a publish key (the admin's agent) publishes
// nothing and answers the approval and its console address; the key's own person (the admin) sees
// no Approve button there; the owner approves (Approve, then Confirm naming the amount) and the
// launch is published exactly as planned, as the key, naming her; a launch changed before the
// decision makes its approval stale (nothing published); an expired approval moves nothing; the
// approval.requested and approval.decided events reach a webhook receiver.

import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { dialects } from '../../helpers/databases.js';
import { startWorld, type World } from '../../helpers/world.js';
import { launchBrowser } from '../../helpers/browser.js';
import { consoleEnv, consoleWorld, persona, signIn, texts, waitFor, type Persona } from '../../helpers/console.js';
import { mcpClient, type ToolResult } from '../../helpers/mcp.js';
import { brandApi, buildLaunch, idem as idemHeader, planFingerprintOf, uploadCreative } from '../../helpers/launch-builders.js';
import { WebhookReceiver } from '../../helpers/webhook-receiver.js';

let seq = 0;
const idem = (what: string) => `${what}-${process.pid}-${seq++}`;

describe('approvals by a person in the console', function () {
  this.timeout(240_000);
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  for (const dialect of dialects()) {
    describe(`agentPublishes person (${dialect})`, () => {
      let w: World;
      let shoes: number;
      let creativeId: number;
      let hooks: WebhookReceiver;
      const personas: Persona[] = [];
      const agent = () => w.key('acme', 'agent');
      const api = () => brandApi(w, agent(), shoes);
      const launch = async (launchId: string) => (await api()('GET', `/launches/${launchId}`)).body;

      before(async () => {
        const world = structuredClone(consoleWorld) as typeof consoleWorld & { organizations: Array<Record<string, unknown>> };
        world.organizations[0].settings = { agentPublishes: 'person' };
        w = await startWorld({ dialect, bootstrap: world, env: { ...consoleEnv, WEBHOOK_ALLOW_PRIVATE: 'true', APPROVAL_TTL_HOURS: '1' } });
        shoes = w.brandId('acme', 'shoes');
        creativeId = await uploadCreative(w, agent(), shoes);
        hooks = await new WebhookReceiver().start();
        const endpoint = await w.request('POST', '/v1/webhook-endpoints', {
          key: w.key('acme', 'ci'),
          body: { url: hooks.url, events: ['approval.requested', 'approval.decided'] },
        });
        expect(endpoint.status, JSON.stringify(endpoint.body)).to.equal(201);
        hooks.secrets.push(endpoint.body.secret);
      });
      after(async () => {
        for (const p of personas) await p.context.close();
        await hooks?.close();
        await w?.close();
      });

      async function signedIn(who: 'owner' | 'admin', path: string): Promise<Persona> {
        const p = await persona(browser, w.url);
        personas.push(p);
        await signIn(p, w.url, who, path);
        return p;
      }

      /** A fresh $50 a day draft and the agent's MCP launch_campaign of it (confirmed with its plan): answers the approval. */
      async function asked(title: string) {
        const built = await buildLaunch(api(), { creativeId, title });
        const client = await mcpClient(w.url, agent());
        try {
          const planFingerprint = await planFingerprintOf(api(), built.launchId);
          const r = (await client.callTool({
            name: 'launch_campaign',
            arguments: { brandId: shoes, launchId: built.launchId, confirm: true, planFingerprint, idempotencyKey: idem('publish') },
          })) as ToolResult;
          expect(r.isError, JSON.stringify(r)).to.not.equal(true);
          return { built, planFingerprint, approval: r.structuredContent, text: r.content.map((c) => c.text).join('\n') };
        } finally {
          await client.close();
        }
      }

      it('the agent publishes nothing: it is answered the approval and its console address', async () => {
        const { built, planFingerprint, approval, text } = await asked('Waits for a person');
        expect(approval).to.deep.include({
          kind: 'publish',
          brandId: shoes,
          launchId: built.launchId,
          planFingerprint,
          status: 'waiting',
          requestedBy: 'API key: Ada agent',
        });
        expect(approval.consoleUrl).to.match(new RegExp(`^https?://[^/]+/console/brands/${shoes}/approvals/${approval.approvalId}$`));
        expect(approval.amounts).to.deep.equal([{ accountId: 'act_1101', currency: 'USD', amountMinorUnits: 5000, countedUsdCents: 5000 }]);
        expect(text).to.contain(
          `this organization wants a person to decide. Approval ${approval.approvalId} waits for an owner or admin at ${approval.consoleUrl}`,
        );
        expect((await launch(built.launchId)).status, 'nothing published').to.equal('draft');
        // Over REST the same call answers 202 with an approval.
        const rest = await api()('POST', `/launches/${built.launchId}/publish`, { confirm: true, planFingerprint }, idemHeader('rest'));
        expect(rest.status, JSON.stringify(rest.body)).to.equal(202);
        expect(rest.body.status).to.equal('waiting');
        await waitFor(
          async () => hooks.received.some((r) => r.body.type === 'approval.requested' && r.body.data.approvalId === approval.approvalId),
          'approval.requested delivered',
        );
        const requested = hooks.received.find((r) => r.body.data.approvalId === approval.approvalId)!;
        expect(requested.verifiedWith).to.deep.equal([0]);
        expect(requested.body.data).to.deep.include({ launchId: built.launchId, planFingerprint, consoleUrl: approval.consoleUrl });
      });

      it("the key's own person sees no Approve button; the owner approves (Approve, Confirm naming the amount) and the launch is published exactly as planned", async () => {
        const { built, planFingerprint, approval } = await asked('Approved by the owner');
        const path = `/console/brands/${shoes}/approvals/${approval.approvalId}`;
        const ada = await signedIn('admin', path);
        expect(await ada.page.locator('#approve').count(), 'no Approve for the person behind the key').to.equal(0);
        expect(await texts(ada.page, '.why-not')).to.have.length(1);
        const olive = await signedIn('owner', path);
        expect(await olive.page.locator('.amount').innerText()).to.equal('$50.00');
        expect(await texts(olive.page, '#approval-campaigns td')).to.include('Spring - US');
        // Listed on the reviews page.
        await olive.page.goto(`${w.url}/console/brands/${shoes}/reviews`);
        expect(await olive.page.locator(`a[href="${path}"]`).count()).to.equal(1);
        await olive.page.goto(`${w.url}${path}`);
        await olive.page.click('#approve');
        expect(await olive.page.locator('#confirm').innerText()).to.contain('$50.00');
        expect((await launch(built.launchId)).status, 'Approve alone publishes nothing').to.equal('draft');
        await Promise.all([olive.page.waitForURL(/notice=approved/), olive.page.click('#confirm')]);
        const published = await launch(built.launchId);
        expect(published.status).to.equal('published');
        const after = await api()('GET', `/approvals/${approval.approvalId}`);
        expect(after.body).to.deep.include({ status: 'approved', decidedBy: 'Olive Owner', planFingerprint });
        // Published as planned: the launch still has the plan that was approved.
        expect(await planFingerprintOf(api(), built.launchId)).to.equal(planFingerprint);
        await waitFor(
          async () =>
            hooks.received.some(
              (r) => r.body.type === 'approval.decided' && r.body.data.approvalId === approval.approvalId && r.body.data.status === 'approved',
            ),
          'approval.decided delivered',
        );
      });

      it('a launch changed before the decision makes the approval stale: nothing is published', async () => {
        const { built, approval } = await asked('Changed before the decision');
        const changed = await api()('PATCH', `/launches/${built.launchId}/nodes/${built.campaignId}`, { properties: { budget: { dailyAmount: 30000 } } });
        expect(changed.status, JSON.stringify(changed.body)).to.equal(200);
        const olive = await signedIn('owner', `/console/brands/${shoes}/approvals/${approval.approvalId}`);
        await olive.page.click('#approve');
        await olive.page.click('#confirm');
        expect(await olive.page.locator('[role=alert]').first().innerText()).to.contain('Nothing was done');
        expect((await launch(built.launchId)).status).to.equal('draft');
        expect((await api()('GET', `/approvals/${approval.approvalId}`)).body.status).to.equal('stale');
      });

      it('an expired approval moves nothing, and no bearer credential can decide one (the REST route answers 403 naming the console page; no MCP tool)', async () => {
        const { built, approval, planFingerprint } = await asked('Expires');
        const byKey = await w.request('POST', `/v1/brands/${shoes}/approvals/${approval.approvalId}/decision`, {
          key: w.key('acme', 'ci'),
          body: { decision: 'approve', planFingerprint },
        });
        expect(byKey.status, JSON.stringify(byKey.body)).to.equal(403);
        expect(byKey.body.error.code).to.equal('forbidden');
        expect(byKey.body.error.message).to.contain(approval.consoleUrl);
        expect(byKey.body.error.details).to.deep.equal({ consoleUrl: approval.consoleUrl });
        const client = await mcpClient(w.url, w.key('acme', 'ci'), { toolsets: 'all' });
        try {
          const names = (await client.listTools()).tools.map((t) => t.name);
          expect(names).to.include.members(['list_approvals', 'get_approval']);
          expect(names).to.not.include('decide_approval');
        } finally {
          await client.close();
        }
        // Its time passes (APPROVAL_TTL_HOURS after it was asked).
        await w.service
          .knex('approvals')
          .where({ id: approval.approvalId })
          .update({ expires_at: Date.now() - 1000 });
        const olive = await signedIn('owner', `/console/brands/${shoes}/approvals/${approval.approvalId}`);
        expect(await olive.page.locator('#approve').count(), 'nothing to decide').to.equal(0);
        expect((await api()('GET', `/approvals/${approval.approvalId}`)).body.status).to.equal('expired');
        expect((await launch(built.launchId)).status).to.equal('draft');
      });
    });
  }
});
