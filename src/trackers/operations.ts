// The click-tracker integration of a brand: the connection (key sealed, shown by its last four
// characters), the campaign mappings, the spend push setting and a push cycle on demand. Reads are
// open to every member with access to the brand; changes need an organization owner or admin.

import type { Knex } from 'knex';
import { defineOperation, type BrandContext, type OperationDefinition, type ServiceContext } from '../catalogue/define.js';
import { ServiceError, notFound, validationFailed } from '../errors.js';
import { serviceCampaigns } from './campaigns.js';
import { requireConnection, resolveMappings, type MappingDeps } from './mappings.js';
import { disablePush, pushNow, pushSetting, pushView, savePushSetting, schedulePush } from './push.js';
import { runView } from './push-runs.js';
import { TrackerError } from './port.js';
import { SANDBOX_BASE_URL } from './registry.js';
import {
  deleteConnection,
  deleteMapping,
  findConnection,
  findRun,
  insertConnection,
  runningRun,
  saveMapping,
  startPushRun,
  updateConnection,
  updatePushSetting,
  type PushSetting,
} from './store.js';

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

/** A person who is not an organization owner or admin may not change tracker settings (403 forbidden). */
function requireTrackerAdmin(ctx: ServiceContext): void {
  const p = ctx.principal;
  if (p.kind === 'user' && p.role !== 'owner' && p.role !== 'admin') {
    throw new ServiceError('forbidden', 'Only an organization owner or admin may change the click-tracker settings of a brand.', { role: p.role });
  }
}

function mappingDeps(ctx: ServiceContext<'trackers' | 'platforms' | 'secrets'>): MappingDeps {
  return { db: ctx.db, trackers: ctx.trackers, platforms: ctx.platforms, secrets: ctx.secrets, now: ctx.now };
}

/** The tracker's failure as the contract's error: the key or plan is the caller's to fix, the rest is transient. */
function trackerFailure(err: unknown): never {
  if (!(err instanceof TrackerError)) throw err;
  if (err.kind === 'address_refused') {
    throw new ServiceError('unprocessable', `${err.message} Reconnect the tracker with a public https baseUrl.`, { trackerError: err.kind, status: null });
  }
  if (err.kind === 'unauthorized' || err.kind === 'refused' || err.kind === 'invalid_request' || err.kind === 'not_found') {
    throw new ServiceError('unprocessable', `${err.message} Check the tracker connection (baseUrl and apiKey).`, {
      trackerError: err.kind,
      status: err.extra.status ?? null,
    });
  }
  const seconds = Math.max(1, Math.ceil((err.extra.retryAfterMs ?? 5_000) / 1000));
  throw new ServiceError(
    'unavailable',
    `${err.message} Nothing was changed; retry later.`,
    { trackerError: err.kind, status: err.extra.status ?? null },
    seconds,
  );
}

async function connectionView(db: Knex | Knex.Transaction, brandId: number) {
  const row = await findConnection(db, brandId);
  return {
    brandId,
    connected: Boolean(row),
    baseUrl: row?.baseUrl ?? null,
    apiKeyLast4: row?.apiKeyLast4 ?? null,
    connectedAt: iso(row?.createdAt),
    updatedAt: iso(row?.updatedAt ?? row?.createdAt),
  };
}

/**
 * A baseUrl from the API: the literal `sandbox:` (the simulated tracker), or an http(s) URL without
 * query or fragment that the outbound address rule admits (a public https address unless
 * WEBHOOK_ALLOW_PRIVATE=true), its host resolved now as well. 400 validation_failed otherwise.
 */
async function checkBaseUrl(ctx: BrandContext<'outbound'>, raw: string): Promise<string> {
  if (raw === SANDBOX_BASE_URL) return raw;
  const problem = await ctx.outbound.urlProblem(raw);
  if (problem) throw validationFailed([{ field: 'baseUrl', code: 'invalid_value', message: `${problem} (or use sandbox: for the simulated tracker)` }]);
  const url = new URL(raw);
  if (url.search || url.hash) throw validationFailed([{ field: 'baseUrl', code: 'invalid_format', message: 'must carry no query or fragment' }]);
  return url.href.replace(/\/+$/, '');
}

const getTrackerConnection = defineOperation({
  name: 'get-tracker-connection',
  method: 'GET',
  path: '/brands/{brandId}/integrations/tracker',
  scope: 'read',
  idempotency: 'none',
  input: 'get-tracker-connection#/$defs/input',
  output: 'get-tracker-connection#/$defs/output',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  tag: 'tracker',
  toolset: 'integrate',
  summary: "Get the brand's click-tracker connection: baseUrl and the key's last four characters (never the key).",
  description: 'connected is false when no tracker is connected. Any member with access to the brand may read it.',
  uses: [],
  async handler(ctx) {
    return connectionView(ctx.db, ctx.brand.id);
  },
});

const connectTracker = defineOperation({
  name: 'connect-tracker',
  method: 'PUT',
  path: '/brands/{brandId}/integrations/tracker',
  scope: 'write',
  errors: ['forbidden', 'unprocessable', 'unavailable'],
  // The input carries the tracker key, which must not sit in the idempotency store; a PUT is repeatable anyway.
  idempotency: 'none',
  input: 'connect-tracker#/$defs/input',
  output: 'connect-tracker#/$defs/output',
  annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: true },
  tag: 'tracker',
  toolset: 'integrate',
  summary: "Connect (or reconnect) the brand's Keitaro-compatible click tracker with its baseUrl and Admin API key.",
  description:
    'The key is stored encrypted and never shown again, only its last four characters. Changing the key of a connected tracker turns the ' +
    'spend push off with disabledReason key_changed (event tracker.push.disabled); turn it back on with set-tracker-push. ' +
    'Requires an organization owner or admin when called as a person (else 403 forbidden). baseUrl is the literal sandbox: (the built-in simulated tracker) or a ' +
    'public https URL (http and loopback or private addresses only when the service runs with WEBHOOK_ALLOW_PRIVATE=true), checked on its text and on every address its host resolves to: else 400 validation_failed. ' +
    'The tracker is called at that baseUrl, and its addresses are checked again before every request.',
  uses: ['outbound', 'secrets', 'events'],
  async handler(ctx, input) {
    requireTrackerAdmin(ctx);
    const brandId = ctx.brand.id;
    const baseUrl = await checkBaseUrl(ctx, input.baseUrl);
    const db = ctx.db;
    const now = ctx.now();
    const current = await findConnection(db, brandId, true);
    const connection = { baseUrl, apiKeySealed: ctx.secrets.seal(input.apiKey), apiKeyLast4: input.apiKey.slice(-4) };
    if (!current) {
      await insertConnection(db, brandId, connection, now);
    } else {
      const keyChanged = ctx.secrets.open(current.apiKeySealed) !== input.apiKey;
      await updateConnection(db, brandId, connection, now);
      if (keyChanged) await disablePush(db, ctx.events, ctx.principal.organizationId, brandId, 'key_changed', now);
    }
    return connectionView(db, brandId);
  },
});

const disconnectTracker = defineOperation({
  name: 'disconnect-tracker',
  method: 'DELETE',
  path: '/brands/{brandId}/integrations/tracker',
  scope: 'write',
  errors: ['forbidden'],
  idempotency: 'none',
  input: 'disconnect-tracker#/$defs/input',
  output: 'disconnect-tracker#/$defs/output',
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  tag: 'tracker',
  toolset: 'integrate',
  summary: "Disconnect the brand's click tracker: the key is deleted and the spend push turned off.",
  description:
    'Manual mappings are kept for a later connection. Disconnecting a brand without a tracker answers connected: false. Requires an organization owner or admin when called as a person (else 403 forbidden).',
  uses: [],
  async handler(ctx) {
    requireTrackerAdmin(ctx);
    const brandId = ctx.brand.id;
    await deleteConnection(ctx.db, brandId);
    await updatePushSetting(ctx.db, brandId, { enabled: false }, ctx.now());
    return connectionView(ctx.db, brandId);
  },
});

const listTrackerMappings = defineOperation({
  name: 'list-tracker-mappings',
  method: 'GET',
  path: '/brands/{brandId}/integrations/tracker/mappings',
  scope: 'read',
  errors: ['conflict', 'unavailable'],
  idempotency: 'none',
  input: 'list-tracker-mappings#/$defs/input',
  output: 'list-tracker-mappings#/$defs/output',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: true },
  tag: 'tracker',
  toolset: 'integrate',
  summary: "List which tracker campaign receives each service campaign's spend, the campaigns left unmatched, and the tracker campaigns to pick from.",
  description:
    'Automatic mappings come from the tracker clicks of the last 7 days matched on sub3 (sub_id_3 = the ad platform campaign id), falling back to ' +
    'the click parameter tracker_campaign_id; a manual mapping wins. unmatched lists campaigns with spend and no mapping (reason ambiguous with ' +
    'candidates ranked by clicks, no_clicks, shared_campaign_without_sub3). Reads the tracker live. No tracker connected: 409 conflict; the ' +
    'tracker rejects the key or refuses: 422 unprocessable; the tracker fails or throttles: 503 unavailable. Any member with access to the brand may read.',
  uses: ['trackers', 'platforms', 'secrets'],
  async handler(ctx) {
    try {
      return (await resolveMappings(mappingDeps(ctx), ctx.brand.id)).list;
    } catch (err) {
      return trackerFailure(err);
    }
  },
});

const updateTrackerMapping = defineOperation({
  name: 'update-tracker-mapping',
  method: 'PUT',
  path: '/brands/{brandId}/integrations/tracker/mappings/{providerCampaignId}',
  scope: 'write',
  errors: ['forbidden', 'conflict', 'unprocessable'],
  idempotency: 'none',
  input: 'update-tracker-mapping#/$defs/input',
  output: 'update-tracker-mapping#/$defs/output',
  annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: true },
  tag: 'tracker',
  toolset: 'integrate',
  // The tracker is read before and after the one-statement write: no transaction is held across those calls.
  transactional: false,
  summary:
    "Set the tracker campaign that receives a service campaign's spend (a manual mapping, which wins over the automatic one), or remove it with null; answers the full mapping list.",
  description:
    "providerCampaignId is the ad platform campaign id of a campaign the brand's launches published (else 404 not_found); trackerCampaignId must be a " +
    'campaign of the tracker (else 422 unprocessable). No tracker connected: 409 conflict. Requires an organization owner or admin when called as a person (else 403 forbidden).',
  uses: ['trackers', 'platforms', 'secrets', 'activity'],
  async handler(ctx, input) {
    requireTrackerAdmin(ctx);
    const brandId = ctx.brand.id;
    const deps = mappingDeps(ctx);
    const conn = await requireConnection(deps, brandId);
    const campaign = (await serviceCampaigns(ctx.db, brandId)).find((c) => c.providerCampaignId === input.providerCampaignId);
    if (!campaign) throw notFound(`Campaign ${input.providerCampaignId} published by a launch of brand ${brandId}`);
    const now = ctx.now();
    try {
      if (input.trackerCampaignId === null) {
        await deleteMapping(ctx.db, brandId, input.providerCampaignId);
      } else {
        const trackerCampaigns = await ctx.trackers.adapterFor(conn).listCampaigns(conn);
        if (!trackerCampaigns.some((t) => t.id === input.trackerCampaignId)) {
          throw new ServiceError(
            'unprocessable',
            `The tracker has no campaign ${input.trackerCampaignId}; pick one of trackerCampaigns from list-tracker-mappings.`,
            { field: 'trackerCampaignId' },
          );
        }
        await saveMapping(ctx.db, brandId, {
          providerCampaignId: input.providerCampaignId,
          trackerCampaignId: input.trackerCampaignId,
          updatedAt: now,
          updatedByUserId: ctx.principal.userId,
        });
      }
      await ctx.activity.record({
        brandId,
        accountId: campaign.accountId,
        entityType: 'campaign',
        entityId: campaign.providerCampaignId,
        entityName: campaign.name,
        action: input.trackerCampaignId === null ? 'tracker_mapping.removed' : 'tracker_mapping.set',
      });
      return (await resolveMappings(deps, brandId)).list;
    } catch (err) {
      return trackerFailure(err);
    }
  },
});

const getTrackerPush = defineOperation({
  name: 'get-tracker-push',
  method: 'GET',
  path: '/brands/{brandId}/integrations/tracker/push',
  scope: 'read',
  idempotency: 'none',
  input: 'get-tracker-push#/$defs/input',
  output: 'get-tracker-push#/$defs/output',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  tag: 'tracker',
  toolset: 'integrate',
  summary: 'Get the tracker spend push setting: on or off (and why the service turned it off), the last cycle, and the schedule.',
  description: "Any member with access to the brand may read it. schedule.cron is UTC; finalLocalHour is in each ad account's time zone.",
  uses: [],
  async handler(ctx) {
    return pushView(ctx.db, ctx.brand.id);
  },
});

const setTrackerPush = defineOperation({
  name: 'set-tracker-push',
  method: 'PUT',
  path: '/brands/{brandId}/integrations/tracker/push',
  scope: 'write',
  errors: ['forbidden', 'conflict'],
  idempotency: 'none',
  input: 'set-tracker-push#/$defs/input',
  output: 'set-tracker-push#/$defs/output',
  annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  tag: 'tracker',
  toolset: 'integrate',
  summary:
    "Turn the tracker spend push on or off: hourly, today's spend per mapped campaign (ad account time zone and currency); once a day at finalLocalHour, yesterday's final spend.",
  description:
    'enabled: true clears disabledReason and schedules the next hourly cycle (run-tracker-push pushes at once). Optional finalLocalHour (0-23) and ' +
    'requestIntervalSeconds (0-60) change the schedule. No tracker connected: 409 conflict. Requires an organization owner or admin when called as a person (else 403 forbidden).',
  uses: [],
  async handler(ctx, input) {
    requireTrackerAdmin(ctx);
    const brandId = ctx.brand.id;
    const db = ctx.db;
    const conn = await findConnection(db, brandId);
    if (!conn)
      throw new ServiceError('conflict', `Brand ${brandId} has no click tracker connected; connect one first (connect-tracker with baseUrl and apiKey).`);
    const now = ctx.now();
    const changes: Partial<PushSetting> = input.enabled ? { enabled: true, disabledReason: null } : { enabled: false };
    if (!input.enabled) {
      const current = await pushSetting(db, brandId);
      if (current.enabled) changes.disabledReason = null;
    }
    if (input.finalLocalHour !== undefined) changes.finalLocalHour = input.finalLocalHour;
    if (input.requestIntervalSeconds !== undefined) changes.requestIntervalSeconds = input.requestIntervalSeconds;
    await savePushSetting(db, brandId, changes, now);
    if (input.enabled) await schedulePush(db, brandId, now);
    return pushView(db, brandId);
  },
});

const runTrackerPush = defineOperation({
  name: 'run-tracker-push',
  method: 'POST',
  path: '/brands/{brandId}/integrations/tracker/push/runs',
  scope: 'write',
  errors: ['forbidden', 'conflict'],
  idempotency: 'optional',
  input: 'run-tracker-push#/$defs/input',
  output: 'run-tracker-push#/$defs/output',
  annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: true },
  tag: 'tracker',
  toolset: 'integrate',
  successStatus: 202,
  // The CLI and the MCP tool read the run again until it ends, showing its progress.
  follow: {
    operation: 'get-tracker-push-run',
    carry: ['brandId'],
    from: { runId: 'runId' },
    while: { field: 'status', equals: 'running' },
    progress: { done: 'progress.done', total: 'progress.total' },
    intervalMs: 1000,
  },
  summary: 'Start one tracker spend push cycle now: answers 202 with the run (status running) at once; read it with get-tracker-push-run until it ends.',
  description:
    "The same cycle as the hourly one, run in the background and paced by schedule.requestIntervalSeconds: today's spend of every pushable " +
    "mapping, and yesterday's final spend if finalLocalHour has passed and it was not pushed yet. Costs are set, never added, so running it again " +
    'is harmless. While a run of the brand is going, the answer is that run. A run that fails says why in error (a rejected key or a plan that ' +
    'refuses cost updates also turns the push off: see get-tracker-push). No tracker connected, or the push is off: 409 conflict. ' +
    'Requires an organization owner or admin when called as a person (else 403 forbidden).',
  uses: ['trackers', 'platforms', 'secrets'],
  async handler(ctx) {
    requireTrackerAdmin(ctx);
    const brandId = ctx.brand.id;
    const setting = await pushSetting(ctx.db, brandId);
    await requireConnection(mappingDeps(ctx), brandId);
    if (!setting.enabled) {
      throw new ServiceError(
        'conflict',
        `The tracker spend push of brand ${brandId} is off${setting.disabledReason ? ` (${setting.disabledReason})` : ''}; turn it on with set-tracker-push first.`,
        { disabledReason: setting.disabledReason },
      );
    }
    const going = await runningRun(ctx.db, brandId);
    if (going) return runView(going);
    const now = ctx.now();
    const runId = await startPushRun(ctx.db, brandId, 'manual', now);
    // The brand's push job carries the run out, one cycle at a time.
    await pushNow(ctx.db, brandId, now);
    const started = await findRun(ctx.db, brandId, runId);
    if (!started) throw notFound(`Tracker push run ${runId}`);
    return runView(started);
  },
});

const getTrackerPushRun = defineOperation({
  name: 'get-tracker-push-run',
  method: 'GET',
  path: '/brands/{brandId}/integrations/tracker/push/runs/{runId}',
  scope: 'read',
  idempotency: 'none',
  input: 'get-tracker-push-run#/$defs/input',
  output: 'get-tracker-push-run#/$defs/output',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  tag: 'tracker',
  toolset: 'integrate',
  summary:
    'Get a tracker push run as it stands: status (running, succeeded, failed), progress {done, total} of its cost updates, what it pushed and skipped, and why it failed.',
  description:
    "runId is the one run-tracker-push answered (or a scheduled run's). A run of another brand answers 404 not_found. Any member with access to the brand may read it.",
  uses: ['progress'],
  async handler(ctx, input) {
    const row = await findRun(ctx.db, ctx.brand.id, input.runId);
    if (!row) throw notFound(`Tracker push run ${input.runId}`);
    const view = runView(row);
    ctx.progress({
      progress: view.progress.done,
      total: view.progress.total || undefined,
      message: `${view.progress.done} of ${view.progress.total} cost updates (${view.status})`,
    });
    return view;
  },
});

/** The tracker area's operations, in catalogue order. */
export const operations: OperationDefinition[] = [
  getTrackerConnection,
  connectTracker,
  disconnectTracker,
  listTrackerMappings,
  updateTrackerMapping,
  getTrackerPush,
  setTrackerPush,
  runTrackerPush,
  getTrackerPushRun,
];
