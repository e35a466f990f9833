// Monitoring automations on the sandbox with a fixed clock, on every storage dialect: what a rule
// does and every reason it skips an object, shadow mode (the event it emits), the chat notice of
// notify and pause_and_notify runs at CHAT_WEBHOOK_URL, resumeWhenClear never resuming what a
// person paused, cooldown and the daily limit in the account's day, loops between two automations,
// a daily schedule across a DST change, failures ending in automation.action_failed, and two job
// workers on one database running each due automation once.

import { expect } from 'chai';
import { pino } from 'pino';
import { dialects, createMigratedTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/connection.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { applyBootstrap } from '../../src/bootstrap.js';
import { SchemaRegistry, loadSchemaFiles } from '../../src/schemas/registry.js';
import { Service } from '../../src/service.js';
import type { Principal } from '../../src/auth/principal.js';
import { standardWorld } from '../helpers/fixture.js';
import { seedLiveLaunch, type SeededObject } from '../../src/launches/live-launch.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { fakeResolver } from '../helpers/outbound.js';
import { decodeRunObjects } from '../../src/automations/run-record.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Saturday 2030-03-09 10:00 in New York (EST); the clocks go forward the next night. */
const SATURDAY_10AM_EST = Date.UTC(2030, 2, 9, 15, 0);

const NO_RESULTS = [
  { metric: 'spend', window: 'today', operator: 'gt', value: 100 },
  { metric: 'results', window: 'today', operator: 'lt', value: 1 },
];
const NEVER = [{ metric: 'spend', window: 'today', operator: 'gt', value: 1_000_000_000 }];

for (const dialect of dialects()) {
  describe(`monitoring automations with a fixed clock (${dialect})`, function () {
    this.timeout(60_000);
    let db: TestDatabase;
    let service: Service;
    let clock = SATURDAY_10AM_EST;
    let orgId: number;
    let brandId: number;
    let ci: Principal;
    let writer: Principal;
    let n = 0;
    let chat: WebhookReceiver;

    before(async () => {
      // CHAT_WEBHOOK_URL is the operator's: a loopback receiver is called as given.
      chat = await new WebhookReceiver().start('/chat');
      db = await createMigratedTestDatabase(dialect);
      const setup = openDatabase(db.url);
      await migrateLatest(setup.knex);
      const seed = await applyBootstrap(setup.knex, new SchemaRegistry(loadSchemaFiles()), standardWorld);
      await setup.knex.destroy();
      orgId = seed.organizations.acme.id;
      brandId = seed.organizations.acme.brands.shoes.id;
      service = await Service.open({
        config: loadConfig({
          DATABASE_URL: db.url,
          LOG_LEVEL: 'silent',
          SVC_STRICT_OUTPUT: 'true',
          RATE_LIMIT_PER_MINUTE: '100000',
          CHAT_WEBHOOK_URL: chat.url,
        }),
        log: pino({ level: 'silent' }),
        resolveHost: fakeResolver(),
        now: () => clock,
      });
      ci = await service.authenticate(`Bearer ${seed.organizations.acme.apiKeys.ci.secret}`, 'api');
      writer = await service.authenticate(`Bearer ${seed.organizations.acme.apiKeys.writer.secret}`, 'api');
    });
    after(async () => {
      await chat?.close();
      await service?.close();
      await db?.drop();
    });

    async function call(name: string, input: Record<string, unknown>): Promise<any> {
      return (await service.invoke(name, ci, { brandId, ...input }, { requestId: `t-${++n}` })).body;
    }

    /** Campaigns live since two days before now: "Burner" spends and gets no results, "Winner" converts. */
    async function liveCampaigns(names: string[] = ['Burner - no results', 'Winner']): Promise<SeededObject[]> {
      const launch = await seedLiveLaunch(service.knex, {
        organizationId: orgId,
        brandId,
        accountId: 'act_1001',
        platform: 'meta',
        title: `Launch ${++n}`,
        at: clock - 2 * DAY,
        // A winner spends enough that its clicks always convert by mid-morning, whatever its random platform id.
        campaigns: names.map((name) => ({ name, dailyBudget: name.startsWith('Winner') ? 500_000 : 20_000 })),
      });
      return launch.objects;
    }

    async function createAutomation(fields: Record<string, unknown>): Promise<any> {
      return call('create-automation', {
        automationName: `Rule ${++n}`,
        accountId: 'act_1001',
        level: 'campaign',
        conditions: NO_RESULTS,
        action: 'pause',
        frequency: 'every_15_minutes',
        ...fields,
      });
    }

    const run = (a: { automationId: number }) => call('run-automation', { automationId: String(a.automationId) });
    const objectOf = (r: any, o: SeededObject) => r.objects.find((x: any) => x.objectId === o.objectId);
    const platformStatus = async (o: SeededObject) => (await service.knex('sandbox_objects').where({ object_id: o.objectId }).first('status')).status;
    const events = async (type: string) => (await service.knex('events').where({ type }).orderBy('id')).map((e) => JSON.parse(e.data));

    it('pauses a campaign spending with no results through the ad platform, with activity naming the automation and an automation.triggered event', async () => {
      const [burner, winner] = await liveCampaigns();
      const a = await createAutomation({ objectIds: [burner.objectId, winner.objectId], automationName: 'Stop burners' });
      const r = await run(a);
      expect(r.trigger).to.equal('manual');
      const b = objectOf(r, burner);
      expect(b).to.include({ matched: true, intended: 'pause', action: 'paused', skipReason: null, error: null });
      expect(b.conditions).to.deep.equal([true, true]);
      expect(b.metrics.today.spend).to.be.greaterThan(100);
      expect(b.metrics.today.results).to.equal(0);
      expect(objectOf(r, winner)).to.include({ matched: false, action: 'none', skipReason: null });
      expect(await platformStatus(burner)).to.equal('PAUSED');
      expect(await platformStatus(winner)).to.equal('ACTIVE');
      const activity = await service.knex('activity_entries').where({ entity_id: burner.nodeId, action: 'campaign.paused' });
      expect(activity.map((x) => x.user_name)).to.deep.equal(['Automation: Stop burners']);
      const triggered = (await events('automation.triggered')).filter((e) => e.automationId === a.automationId);
      expect(triggered).to.have.length(1);
      expect(triggered[0]).to.include({ objectId: burner.objectId, action: 'paused', mode: 'live', level: 'campaign', runId: r.runId });
      expect((await call('get-automation', { automationId: String(a.automationId) })).lastRunAt).to.equal(r.startedAt);
      // Every action succeeded, so the run was closed by the actions' own transaction: stored with its outcome and whole list.
      const stored = await service.knex('automation_runs').where({ id: r.runId }).first();
      expect(new Date(Number(stored.finished_at)).toISOString()).to.equal(r.finishedAt);
      // One compact record per run (run-record.ts), which reads back as the objects the answer showed.
      expect(JSON.parse(stored.objects)).to.include({ v: 1 });
      const storedObjects = decodeRunObjects(stored.objects);
      expect(storedObjects.map((x: any) => x.objectId).sort()).to.deep.equal([burner.objectId, winner.objectId].sort());
      expect(objectOf({ objects: storedObjects }, burner)).to.include({ intended: 'pause', action: 'paused', error: null });
      expect(objectOf({ objects: storedObjects }, winner)).to.include({ action: 'none' });
    });

    it('in shadow mode records what it would do and acts on nothing', async () => {
      const [burner] = await liveCampaigns(['Burner - no results']);
      const a = await createAutomation({ objectIds: [burner.objectId], mode: 'shadow' });
      const before = (await events('automation.triggered')).length;
      const r = await run(a);
      expect(r.mode).to.equal('shadow');
      expect(objectOf(r, burner)).to.include({ matched: true, intended: 'pause', action: 'none', skipReason: 'shadow' });
      expect(await platformStatus(burner)).to.equal('ACTIVE');
      // The event says what a live run would have done, so integrators can watch a rule before arming it.
      expect((await events('automation.triggered')).slice(before)).to.deep.equal([
        {
          brandId,
          automationId: a.automationId,
          automationName: a.automationName,
          accountId: 'act_1001',
          runId: r.runId,
          level: 'campaign',
          action: 'paused',
          mode: 'shadow',
          objects: [burner.objectId],
          objectCount: 1,
        },
      ]);
      expect(await service.knex('activity_entries').where({ entity_id: burner.nodeId })).to.have.length(0);
    });

    const texts = () => chat.received.map((r) => (r.body as unknown as { text: string }).text);

    it('notify posts one chat message per run naming the automation, the objects and the metrics that matched, and acts on nothing', async () => {
      const [burner, other] = await liveCampaigns(['Burner - no results', 'Burner two - no results']);
      const a = await createAutomation({ objectIds: [burner.objectId, other.objectId], action: 'notify', automationName: 'Tell me about burners' });
      const before = texts().length;
      const eventsBefore = (await events('automation.triggered')).length;
      const r = await run(a);
      expect(objectOf(r, burner)).to.include({ matched: true, intended: 'notify', action: 'notified', skipReason: null });
      expect(objectOf(r, other)).to.include({ matched: true, action: 'notified' });
      expect(await platformStatus(burner)).to.equal('ACTIVE');
      const sent = texts().slice(before);
      expect(sent).to.have.length(1);
      const spend = (o: SeededObject) => (objectOf(r, o).metrics.today.spend / 100).toFixed(2);
      const [head, ...lines] = sent[0].split('\n');
      expect(head).to.equal(`Automation "Tell me about burners" (#${a.automationId}, act_1001) matched 2 objects in run ${r.runId}:`);
      // One line per object, in the order the run read them.
      expect(lines).to.have.members([
        `• campaign "${objectOf(r, burner).name}" ${burner.objectId}: spend (today) ${spend(burner)} USD > 1.00 USD, results (today) 0 < 1; notified`,
        `• campaign "${objectOf(r, other).name}" ${other.objectId}: spend (today) ${spend(other)} USD > 1.00 USD, results (today) 0 < 1; notified`,
      ]);
      const triggered = (await events('automation.triggered')).slice(eventsBefore);
      expect(triggered.map((e) => [e.objectId, e.action, e.mode])).to.have.deep.members([
        [burner.objectId, 'notified', 'live'],
        [other.objectId, 'notified', 'live'],
      ]);
    });

    it('pause_and_notify pauses and posts one message saying so; a pause-only automation posts nothing', async () => {
      const [burner] = await liveCampaigns(['Burner - no results']);
      const before = texts().length;
      const both = await createAutomation({ objectIds: [burner.objectId], action: 'pause_and_notify', automationName: 'Pause and tell' });
      const r = await run(both);
      expect(objectOf(r, burner)).to.include({ action: 'paused' });
      expect(await platformStatus(burner)).to.equal('PAUSED');
      expect(texts().slice(before)).to.have.length(1);
      expect(texts().at(-1)).to.match(
        new RegExp(
          `^Automation "Pause and tell" \\(#${both.automationId}, act_1001\\) matched 1 object in run ${r.runId}:\\n• campaign .*${burner.objectId}: spend \\(today\\) .* USD > 1\\.00 USD, results \\(today\\) 0 < 1; paused$`,
        ),
      );
      const [other] = await liveCampaigns(['Burner - no results']);
      const pauseOnly = await createAutomation({ objectIds: [other.objectId], action: 'pause' });
      expect(objectOf(await run(pauseOnly), other)).to.include({ action: 'paused' });
      expect(texts().slice(before)).to.have.length(1);
    });

    it('a shadow notify run posts nothing to chat and emits automation.triggered with mode shadow and the action it would have taken', async () => {
      const [burner] = await liveCampaigns(['Burner - no results']);
      const a = await createAutomation({ objectIds: [burner.objectId], action: 'notify', mode: 'shadow' });
      const before = texts().length;
      const eventsBefore = (await events('automation.triggered')).length;
      const r = await run(a);
      expect(objectOf(r, burner)).to.include({ intended: 'notify', action: 'none', skipReason: 'shadow' });
      expect(texts().length).to.equal(before);
      expect((await events('automation.triggered')).slice(eventsBefore)).to.deep.equal([
        {
          brandId,
          automationId: a.automationId,
          automationName: a.automationName,
          accountId: 'act_1001',
          runId: r.runId,
          level: 'campaign',
          action: 'notified',
          mode: 'shadow',
          objects: [burner.objectId],
          objectCount: 1,
        },
      ]);
    });

    it('a shadow run emits one automation.triggered per action for all its objects: the first 1,000 listed, objectCount all of them; its record keeps every object', async () => {
      // Every live campaign of the account (objectIds takes 500 at most): these, and those of the tests before.
      const burners = await liveCampaigns(Array.from({ length: 1_003 }, (_, i) => `Burner ${i} - no results`));
      const [winner] = await liveCampaigns(['Winner']);
      const a = await createAutomation({ mode: 'shadow' });
      const eventsBefore = (await events('automation.triggered')).length;
      const r = await run(a);
      const evaluated = r.objects.map((o: any) => o.objectId);
      expect(evaluated).to.include.members([...burners, winner].map((o) => o.objectId));
      const judged = r.objects.filter((o: any) => o.skipReason === 'shadow').map((o: any) => o.objectId);
      expect(judged).to.include.members(burners.map((o) => o.objectId));
      expect(judged).to.not.include(winner.objectId);
      expect(judged.length).to.be.above(1_000);
      const triggered = (await events('automation.triggered')).slice(eventsBefore);
      expect(triggered).to.have.length(1);
      expect(triggered[0]).to.deep.include({ runId: r.runId, action: 'paused', mode: 'shadow', level: 'campaign', objectCount: judged.length });
      expect(triggered[0].objects).to.have.length(1_000);
      expect(triggered[0].objects).to.deep.equal(judged.slice(0, 1_000));
      // Listed and read back the same through list-automation-runs.
      const [listed] = (await call('list-automation-runs', { automationId: String(a.automationId), limit: 1 })).runs;
      expect(listed.objects).to.deep.equal(r.objects);
    });

    it('skips objects below the guard with insufficient_data, without judging the conditions', async () => {
      const [burner] = await liveCampaigns(['Burner - no results']);
      const a = await createAutomation({ objectIds: [burner.objectId], guard: { minImpressions: 10_000_000 } });
      expect((await call('get-automation', { automationId: String(a.automationId) })).lastRunAt).to.equal(null);
      const r = await run(a);
      const o = objectOf(r, burner);
      expect(o).to.include({ matched: false, action: 'none', skipReason: 'insufficient_data' });
      // A run that acts on nothing is final when opened, with the automation's last run time.
      expect((await call('get-automation', { automationId: String(a.automationId) })).lastRunAt).to.equal(r.startedAt);
      expect(r.finishedAt).to.be.a('string');
      expect(o.conditions).to.deep.equal([]);
      expect(o.metrics.today.impressions).to.be.greaterThan(0);
      expect(await platformStatus(burner)).to.equal('ACTIVE');
    });

    it('skips an object that is already paused with already_paused', async () => {
      const [burner] = await liveCampaigns(['Burner - no results']);
      const a = await createAutomation({ objectIds: [burner.objectId], cooldownMinutes: 0 });
      expect(objectOf(await run(a), burner).action).to.equal('paused');
      expect(objectOf(await run(a), burner)).to.include({ action: 'none', skipReason: 'already_paused' });
    });

    it('leaves an object alone for cooldownMinutes after acting on it', async () => {
      const [burner] = await liveCampaigns(['Burner - no results']);
      const a = await createAutomation({ objectIds: [burner.objectId], action: 'notify', cooldownMinutes: 60 });
      expect(objectOf(await run(a), burner).action).to.equal('notified');
      clock += 10 * MINUTE;
      expect(objectOf(await run(a), burner)).to.include({ action: 'none', skipReason: 'cooldown' });
      clock += 51 * MINUTE;
      expect(objectOf(await run(a), burner).action).to.equal('notified');
    });

    it("stops at maxActionsPerDay until the next day of the account's time zone", async () => {
      const objects = await liveCampaigns(['Burner A - no results', 'Burner B - no results']);
      const a = await createAutomation({ objectIds: objects.map((o) => o.objectId), action: 'notify', cooldownMinutes: 0, maxActionsPerDay: 1 });
      // Which of the two acts first depends on the order the platform lists them; one acts, the other waits.
      const outcomes = (r: any) => objects.map((o) => `${objectOf(r, o).action}:${objectOf(r, o).skipReason}`).sort();
      const first = await run(a);
      expect(outcomes(first)).to.deep.equal(['none:daily_limit_reached', 'notified:null']);
      // 23:30 in New York is still the same local day (04:30 UTC the next day).
      const saved = clock;
      clock = Date.UTC(2030, 2, 10, 4, 30);
      const sameDay = await run(a);
      expect(objects.map((o) => objectOf(sameDay, o).skipReason)).to.deep.equal(['daily_limit_reached', 'daily_limit_reached']);
      // 07:00 EDT on Sunday: a new local day, seven hours (one skipped by DST) of delivery in it.
      clock = Date.UTC(2030, 2, 10, 11, 0);
      const nextDay = await run(a);
      expect(outcomes(nextDay)).to.deep.equal(['none:daily_limit_reached', 'notified:null']);
      clock = saved;
    });

    it('resumes with resumeWhenClear only what it paused itself, never what a person paused', async () => {
      const [mine, theirs] = await liveCampaigns(['Burner - no results', 'Person paused']);
      const a = await createAutomation({ objectIds: [mine.objectId], resumeWhenClear: true, cooldownMinutes: 0 });
      expect(objectOf(await run(a), mine).action).to.equal('paused');
      // A person pauses the other campaign; a rule watching it whose conditions do not hold must not turn it on.
      const launchId = String((await service.knex('launch_nodes').where({ id: theirs.nodeId }).first('launch_id')).launch_id);
      await call('update-node', { launchId, nodeId: theirs.nodeId, properties: { status: 'PAUSED' } });
      await call('update-automation', { automationId: String(a.automationId), conditions: NEVER, objectIds: [mine.objectId, theirs.objectId] });
      const r = await run(a);
      expect(objectOf(r, mine)).to.include({ matched: false, intended: 'resume', action: 'resumed', skipReason: null });
      expect(objectOf(r, theirs)).to.include({ matched: false, intended: 'resume', action: 'none', skipReason: 'paused_by_person' });
      expect(await platformStatus(mine)).to.equal('ACTIVE');
      expect(await platformStatus(theirs)).to.equal('PAUSED');
      expect((await service.knex('activity_entries').where({ entity_id: mine.nodeId, action: 'campaign.activated' }))[0].user_name).to.match(/^Automation: /);
    });

    it('a scheduled run whose last saver lacks publish pauses but resumes nothing (skipReason publish_scope_missing)', async () => {
      const [burner, winner] = await liveCampaigns(['Burner - no results', 'Winner']);
      const a = await createAutomation({ objectIds: [burner.objectId], resumeWhenClear: true, cooldownMinutes: 0, status: 'PAUSED' });
      expect(objectOf(await run(a), burner).action).to.equal('paused');
      // Now the rule is clear for the burner (it would resume it) and matches the winner (it pauses it).
      const converts = [{ metric: 'results', window: 'today', operator: 'gte', value: 1 }];
      await call('update-automation', { automationId: String(a.automationId), conditions: converts, objectIds: [burner.objectId, winner.objectId] });
      // A write-only key arms it: the last saver, the cause of its scheduled runs, holds no publish.
      await service.invoke('set-automation-status', writer, { brandId, automationId: String(a.automationId), status: 'ACTIVE' }, { requestId: `t-${++n}` });
      await service.jobs.drain();
      await call('set-automation-status', { automationId: String(a.automationId), status: 'PAUSED' });
      const [r] = (await call('list-automation-runs', { automationId: String(a.automationId) })).runs;
      expect(r.trigger).to.equal('schedule');
      expect(objectOf(r, winner)).to.include({ matched: true, intended: 'pause', action: 'paused' });
      expect(objectOf(r, burner)).to.include({ matched: false, intended: 'resume', action: 'none', skipReason: 'publish_scope_missing' });
      expect(await platformStatus(burner)).to.equal('PAUSED');
      expect(await platformStatus(winner)).to.equal('PAUSED');
    });

    it('does not resume an object a person resumed and paused again after the automation paused it', async () => {
      const [burner] = await liveCampaigns(['Burner - no results']);
      const a = await createAutomation({ objectIds: [burner.objectId], resumeWhenClear: true, cooldownMinutes: 0 });
      expect(objectOf(await run(a), burner).action).to.equal('paused');
      const launchId = String((await service.knex('launch_nodes').where({ id: burner.nodeId }).first('launch_id')).launch_id);
      clock += MINUTE;
      await call('update-node', { launchId, nodeId: burner.nodeId, properties: { status: 'ACTIVE' } });
      clock += MINUTE;
      await call('update-node', { launchId, nodeId: burner.nodeId, properties: { status: 'PAUSED' } });
      await call('update-automation', { automationId: String(a.automationId), conditions: NEVER });
      expect(objectOf(await run(a), burner)).to.include({ action: 'none', skipReason: 'paused_by_person' });
      expect(await platformStatus(burner)).to.equal('PAUSED');
    });

    it('detects two automations pausing and resuming the same object in a loop: the second one skips', async () => {
      const [burner] = await liveCampaigns(['Burner - no results']);
      const resumer = await createAutomation({ objectIds: [burner.objectId], resumeWhenClear: true, cooldownMinutes: 0 });
      expect(objectOf(await run(resumer), burner).action).to.equal('paused');
      await call('update-automation', { automationId: String(resumer.automationId), conditions: NEVER });
      expect(objectOf(await run(resumer), burner).action).to.equal('resumed');
      const pauser = await createAutomation({ objectIds: [burner.objectId], cooldownMinutes: 0 });
      expect(objectOf(await run(pauser), burner)).to.include({ matched: true, intended: 'pause', action: 'none', skipReason: 'loop_detected' });
      expect(await platformStatus(burner)).to.equal('ACTIVE');
    });

    it('detects the loop within one scheduled cycle: one automation would resume what another would pause', async () => {
      const [burner] = await liveCampaigns(['Burner - no results']);
      const first = await createAutomation({ objectIds: [burner.objectId], resumeWhenClear: true, cooldownMinutes: 0, status: 'PAUSED' });
      expect(objectOf(await run(first), burner).action).to.equal('paused');
      await call('update-automation', { automationId: String(first.automationId), conditions: NEVER });
      const second = await createAutomation({ objectIds: [burner.objectId], cooldownMinutes: 0, action: 'pause', status: 'PAUSED' });
      // Both armed and due together: the first resumes, the second would pause it again in the same cycle.
      await call('set-automation-status', { automationId: String(first.automationId), status: 'ACTIVE' });
      await call('set-automation-status', { automationId: String(second.automationId), status: 'ACTIVE' });
      await service.jobs.drain();
      const [r1] = (await call('list-automation-runs', { automationId: String(first.automationId) })).runs;
      const [r2] = (await call('list-automation-runs', { automationId: String(second.automationId) })).runs;
      expect(r1.trigger).to.equal('schedule');
      expect(objectOf(r1, burner).action).to.equal('resumed');
      expect(objectOf(r2, burner)).to.include({ intended: 'pause', skipReason: 'loop_detected', action: 'none' });
      for (const a of [first, second]) await call('set-automation-status', { automationId: String(a.automationId), status: 'PAUSED' });
    });

    it("runs a daily rule at its local hour across the DST change, reading today in the account's time zone", async () => {
      const saved = clock;
      clock = SATURDAY_10AM_EST;
      const [burner] = await liveCampaigns(['Burner - no results']);
      const a = await createAutomation({ objectIds: [burner.objectId], frequency: 'daily', dailyHour: 9 });
      // 09:00 on Sunday is EDT (UTC-4) after the clocks went forward at 02:00.
      expect(a.nextRunAt).to.equal('2030-03-10T13:00:00.000Z');
      clock = Date.UTC(2030, 2, 10, 12, 59);
      await service.jobs.drain();
      expect((await call('list-automation-runs', { automationId: String(a.automationId) })).runs).to.have.length(0);
      clock = Date.UTC(2030, 2, 10, 13, 0);
      await service.jobs.drain();
      const runs = (await call('list-automation-runs', { automationId: String(a.automationId) })).runs;
      expect(runs).to.have.length(1);
      expect(runs[0].trigger).to.equal('schedule');
      expect(runs[0].startedAt).to.equal('2030-03-10T13:00:00.000Z');
      const o = objectOf(runs[0], burner);
      expect(o.action).to.equal('paused');
      // "today" is Sunday in New York: 09:00 EDT, eight hours delivered since midnight (02:00 never happened).
      const { SandboxPlatform } = await import('../../src/platforms/sandbox/adapter.js');
      const sandbox = new SandboxPlatform('meta', service.knex, () => clock);
      const account = { platform: 'meta' as const, accountId: 'act_1001', timezone: 'America/New_York', currency: 'USD', accessToken: null };
      const [sunday] = await sandbox.insightsByObject(account, 'campaign', [burner.objectId], { since: '2030-03-10', until: '2030-03-10' });
      expect(o.metrics.today.spend).to.equal(sunday.spendMinorUnits);
      expect(o.metrics.today.spend).to.be.greaterThan(0);
      expect((await call('get-automation', { automationId: String(a.automationId) })).nextRunAt).to.equal('2030-03-11T13:00:00.000Z');
      await call('set-automation-status', { automationId: String(a.automationId), status: 'PAUSED' });
      clock = saved;
    });

    it("keeps each armed automation's schedule as its job in the account's lane: disarming cancels it, arming and a new frequency move it, deleting drops it", async () => {
      const [burner] = await liveCampaigns(['Burner - scheduled']);
      const a = await createAutomation({ objectIds: [burner.objectId], frequency: 'hourly', status: 'PAUSED' });
      const job = () =>
        service
          .knex('jobs')
          .where({ kind: 'evaluate-automations', job_key: String(a.automationId) })
          .first();
      expect(await job()).to.equal(undefined);
      expect(a.nextRunAt).to.equal(null);
      const armed = await call('set-automation-status', { automationId: a.automationId, status: 'ACTIVE' });
      expect(armed.nextRunAt).to.equal(new Date(clock).toISOString());
      expect(await job()).to.include({ lane: `automations:${brandId}:act_1001` });
      expect(Number((await job()).run_at)).to.equal(clock);
      const daily = await call('update-automation', { automationId: a.automationId, frequency: 'daily', dailyHour: 23 });
      expect(Number((await job()).run_at)).to.equal(Date.parse(daily.nextRunAt));
      expect((await call('get-automation', { automationId: a.automationId })).nextRunAt).to.equal(daily.nextRunAt);
      const listed = (await call('list-automations', {})).automations.find((x: any) => x.automationId === a.automationId);
      expect(listed.nextRunAt).to.equal(daily.nextRunAt);
      await call('set-automation-status', { automationId: a.automationId, status: 'PAUSED' });
      expect(await job()).to.equal(undefined);
      await call('set-automation-status', { automationId: a.automationId, status: 'ACTIVE' });
      expect(await job()).to.not.equal(undefined);
      await call('delete-automation', { automationId: a.automationId });
      expect(await job()).to.equal(undefined);
    });

    it('runs each due automation once with two job workers on one database', async () => {
      const objects = await liveCampaigns(['Burner 1 - no results', 'Burner 2 - no results', 'Winner 3']);
      const automations = [];
      for (let i = 0; i < 4; i++)
        automations.push(await createAutomation({ objectIds: objects.map((o) => o.objectId), action: 'notify', cooldownMinutes: 0, maxActionsPerDay: 100 }));
      const other = await Service.open({
        config: loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent', SVC_STRICT_OUTPUT: 'true', RATE_LIMIT_PER_MINUTE: '100000' }),
        log: pino({ level: 'silent' }),
        now: () => clock,
      });
      try {
        await Promise.all([service.jobs.drain(), other.jobs.drain(), service.jobs.drain(), other.jobs.drain()]);
      } finally {
        await other.close();
      }
      for (const a of automations) {
        const runs = (await call('list-automation-runs', { automationId: String(a.automationId) })).runs;
        expect(runs, `automation ${a.automationId}`).to.have.length(1);
        const notices = (await events('automation.triggered')).filter((e) => e.automationId === a.automationId);
        expect(notices.map((e) => e.objectId).sort()).to.deep.equal([objects[0].objectId, objects[1].objectId].sort());
      }
      for (const a of automations) await call('set-automation-status', { automationId: String(a.automationId), status: 'PAUSED' });
    });
  });
}
