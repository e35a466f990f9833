// Webhook endpoints (organization-level): create, list, read, change, delete, test send, the
// delivery log, redelivery and secret rotation. Deliveries themselves run as jobs (src/webhooks/jobs.ts),
// created by the webhooks outbox subscriber (src/webhooks/subscriber.ts).

import type { Knex } from 'knex';
import { lockOrganization } from '../account/store.js';
import { defineOperation, type OperationDefinition } from '../catalogue/define.js';
import { inTransaction } from '../db/connection.js';
import { ServiceError, notFound, validationFailed } from '../errors.js';
import { storedEvents } from '../events/store.js';
import { cancelLane, jobsDueAt, scheduleJob, wakeLane } from '../jobs/queue/schedule.js';
import { attemptDelivery, dueDelivery, retiredSecrets } from './deliver.js';
import { MAX_ENDPOINTS, checkEndpointFields, endpointView, loadEndpoint, requireWebhookAccess, visibleTo } from './endpoints.js';
import { DELIVERY_JOB, endpointLane } from './lanes.js';
import { newWebhookSecret } from './signing.js';
import {
  attemptsOf,
  countEndpoints,
  deleteEndpoint,
  deliveriesOf,
  endpointsOf,
  findDelivery,
  insertDeliveries,
  insertEndpoint,
  updateEndpoint,
  type DeliveryRow,
} from './store.js';

/** How long the secret before a rotation keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

const iso = (ms: number | string) => new Date(Number(ms)).toISOString();

interface EndpointFields {
  url?: string;
  description?: string | null;
  events?: string[];
  brandIds?: number[] | null;
  enabled?: boolean;
}

export const createWebhookEndpoint = defineOperation({
  name: 'create-webhook-endpoint',
  method: 'POST',
  path: '/webhook-endpoints',
  scope: 'write',
  errors: ['webhooks_unavailable', 'forbidden', 'brand_not_allowed', 'unprocessable'],
  // The answer carries the secret, which must not sit in plain text in the idempotency store.
  idempotency: 'none',
  input: 'create-webhook-endpoint#/$defs/input',
  output: 'create-webhook-endpoint#/$defs/output',
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  tag: 'webhooks',
  toolset: 'integrate',
  successStatus: 201,
  summary: "Create a webhook endpoint that receives the organization's events, signed with Standard Webhooks.",
  description:
    'The answer carries the signing secret (whsec_...) once; store it to verify deliveries (it is never stored in plain text, so this ' +
    'operation takes no Idempotency-Key: after a lost answer, list the endpoints before creating again). At most 20 endpoints per organization ' +
    "(one more: 422 unprocessable). brandIds null receives every brand's events; a brand-limited key must name only its brands " +
    '(else 403 brand_not_allowed). An OAuth user must be an organization owner or admin (else 403 forbidden).',
  uses: ['config', 'outbound', 'secrets'],
  async handler(ctx, input: Required<Omit<EndpointFields, 'description'>> & { description?: string | null }) {
    requireWebhookAccess(ctx);
    await checkEndpointFields(ctx, input);
    const secret = newWebhookSecret();
    const now = ctx.now();
    const orgId = ctx.principal.organizationId;
    const db = ctx.db as Knex.Transaction;
    // The organization row is the lock that makes "at most 20" hold under concurrent creates.
    await lockOrganization(db, orgId);
    const count = await countEndpoints(db, orgId);
    if (count >= MAX_ENDPOINTS) {
      throw new ServiceError('unprocessable', `This organization already has ${count} webhook endpoints, the most it may have. Delete one first.`, {
        limit: MAX_ENDPOINTS,
      });
    }
    const row = await insertEndpoint(db, {
      organizationId: orgId,
      url: input.url,
      description: input.description ?? null,
      events: input.events,
      brandIds: input.brandIds,
      enabled: input.enabled,
      secretSealed: ctx.secrets.seal(secret),
      now,
    });
    return { ...endpointView(row), secret };
  },
});

export const listWebhookEndpoints = defineOperation({
  name: 'list-webhook-endpoints',
  method: 'GET',
  path: '/webhook-endpoints',
  scope: 'read',
  errors: ['webhooks_unavailable', 'forbidden'],
  idempotency: 'none',
  input: 'list-webhook-endpoints#/$defs/input',
  output: 'list-webhook-endpoints#/$defs/output',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  tag: 'webhooks',
  toolset: 'integrate',
  summary: "List the organization's webhook endpoints, newest first.",
  description: 'A brand-limited key sees only endpoints filtered to its own brands.',
  uses: ['config', 'page'],
  async handler(ctx, input: { cursor?: string; limit: number }) {
    requireWebhookAccess(ctx);
    const after = ctx.page.position();
    // At most 20 rows exist per organization: filter visibility here, page over what is left.
    const rows = await endpointsOf(ctx.db, ctx.principal.organizationId, after ? Number(after[0]) : undefined);
    const visible = rows.filter((r) => visibleTo(ctx, r));
    const page = visible.slice(0, input.limit);
    return {
      webhookEndpoints: page.map(endpointView),
      nextCursor: visible.length > input.limit ? ctx.page.next([Number(page[page.length - 1].id)]) : null,
    };
  },
});

export const getWebhookEndpoint = defineOperation({
  name: 'get-webhook-endpoint',
  method: 'GET',
  path: '/webhook-endpoints/{endpointId}',
  scope: 'read',
  errors: ['webhooks_unavailable', 'forbidden'],
  idempotency: 'none',
  input: 'get-webhook-endpoint#/$defs/input',
  output: 'get-webhook-endpoint#/$defs/output',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  tag: 'webhooks',
  toolset: 'integrate',
  summary: 'Get one webhook endpoint (never its secret).',
  uses: ['config'],
  async handler(ctx, input: { endpointId: number }) {
    requireWebhookAccess(ctx);
    return endpointView(await loadEndpoint(ctx, input.endpointId));
  },
});

export const updateWebhookEndpoint = defineOperation({
  name: 'update-webhook-endpoint',
  method: 'PATCH',
  path: '/webhook-endpoints/{endpointId}',
  scope: 'write',
  errors: ['webhooks_unavailable', 'forbidden', 'brand_not_allowed'],
  idempotency: 'none',
  input: 'update-webhook-endpoint#/$defs/input',
  output: 'update-webhook-endpoint#/$defs/output',
  annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  tag: 'webhooks',
  toolset: 'integrate',
  summary: "Change a webhook endpoint's URL, description, events, brands, or turn it off and on.",
  description:
    'Only the fields sent change. enabled: false disables it (disabledReason manual); enabled: true enables it again, clears the reason and resumes pending deliveries.',
  uses: ['config', 'outbound', 'events'],
  async handler(ctx, input: EndpointFields & { endpointId: number }) {
    requireWebhookAccess(ctx);
    const { endpointId, ...fields } = input;
    if (!Object.keys(fields).length) {
      throw validationFailed([{ field: 'url', code: 'invalid_type', message: 'send at least one of url, description, events, brandIds or enabled' }]);
    }
    const db = ctx.db as Knex.Transaction;
    const current = await loadEndpoint(ctx, endpointId, db, true);
    await checkEndpointFields(ctx, fields);
    const now = ctx.now();
    await updateEndpoint(db, current.id, {
      url: fields.url,
      description: fields.description,
      events: fields.events,
      brandIds: fields.brandIds,
      ...(fields.enabled === false ? { enabled: false, disabledReason: 'manual' } : {}),
      ...(fields.enabled === true ? { enabled: true, disabledReason: null, failingSince: null } : {}),
      updatedAt: now,
    });
    // Turned back on: what waited while it was off goes out now.
    if (fields.enabled === true && !current.enabled) {
      await wakeLane(db, endpointLane(Number(current.id)), now);
      await ctx.events.afterCommit(db);
    }
    return endpointView(await loadEndpoint(ctx, endpointId, db));
  },
});

export const deleteWebhookEndpoint = defineOperation({
  name: 'delete-webhook-endpoint',
  method: 'DELETE',
  path: '/webhook-endpoints/{endpointId}',
  scope: 'write',
  errors: ['webhooks_unavailable', 'forbidden', 'brand_not_allowed'],
  idempotency: 'none',
  input: 'delete-webhook-endpoint#/$defs/input',
  output: 'delete-webhook-endpoint#/$defs/output',
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  tag: 'webhooks',
  toolset: 'integrate',
  summary: 'Delete a webhook endpoint with its delivery log; pending deliveries are dropped.',
  uses: ['config'],
  async handler(ctx, input: { endpointId: number }) {
    requireWebhookAccess(ctx);
    const endpoint = await loadEndpoint(ctx, input.endpointId, ctx.db, true);
    await deleteEndpoint(ctx.db, endpoint.id);
    await cancelLane(ctx.db, endpointLane(Number(endpoint.id)));
    return { endpointId: Number(endpoint.id), deleted: true as const };
  },
});

export const testWebhookEndpoint = defineOperation({
  name: 'test-webhook-endpoint',
  method: 'POST',
  path: '/webhook-endpoints/{endpointId}/test',
  scope: 'write',
  errors: ['webhooks_unavailable', 'forbidden', 'conflict'],
  idempotency: 'none',
  input: 'test-webhook-endpoint#/$defs/input',
  output: 'test-webhook-endpoint#/$defs/output',
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  tag: 'webhooks',
  toolset: 'integrate',
  // The send happens outside any transaction: the event and its delivery are committed first.
  transactional: false,
  summary: 'Send a webhook.test event to the endpoint now and answer with the outcome.',
  description:
    'Signed exactly like real deliveries; recorded in the delivery log; not retried. A disabled endpoint answers 409 conflict. delivered is true for a 2xx answer.',
  uses: ['config', 'events', 'secrets', 'webhooks'],
  async handler(ctx, input: { endpointId: number }) {
    requireWebhookAccess(ctx);
    const knex = ctx.db as Knex;
    const { endpoint, deliveryId, eventId } = await inTransaction(knex, async (trx) => {
      const row = await loadEndpoint(ctx, input.endpointId, trx, true);
      if (!row.enabled) {
        throw new ServiceError(
          'conflict',
          `Webhook endpoint ${row.id} is disabled (${row.disabled_reason}); enable it (update-webhook-endpoint with enabled: true) before a test send.`,
          { disabledReason: row.disabled_reason },
        );
      }
      // Only this endpoint receives it, whatever the others subscribe to (the webhooks subscriber
      // passes webhook.test by): its delivery is written here and sent below, never queued.
      const event = await ctx.events.emit(trx, {
        organizationId: ctx.principal.organizationId,
        brandId: null,
        type: 'webhook.test',
        data: { endpointId: Number(row.id), message: 'This is a test send from svc.' },
      });
      const [id] = await insertDeliveries(trx, [{ endpointId: Number(row.id), eventId: event.id }], ctx.now());
      return { endpoint: row, deliveryId: id, eventId: event.publicId };
    });
    const [stored] = await storedEvents(knex, [(await findDelivery(knex, deliveryId))!.eventId]);
    const delivery = dueDelivery((await findDelivery(knex, deliveryId))!, stored);
    const result = await attemptDelivery({ knex, secrets: ctx.secrets, sender: ctx.webhooks, now: ctx.now }, endpoint, delivery, false);
    return { deliveryId, eventId, delivered: result.succeeded, statusCode: result.statusCode, durationMs: result.durationMs, error: result.error };
  },
});

async function deliveryViews(db: Knex | Knex.Transaction, rows: DeliveryRow[]) {
  const ids = rows.map((r) => r.id);
  const byDelivery = new Map<number, Awaited<ReturnType<typeof attemptsOf>>>();
  for (const a of await attemptsOf(db, ids)) byDelivery.set(a.deliveryId, [...(byDelivery.get(a.deliveryId) ?? []), a]);
  const events = new Map((await storedEvents(db, [...new Set(rows.map((r) => r.eventId))])).map((e) => [e.id, e]));
  const due = await jobsDueAt(
    db,
    DELIVERY_JOB,
    rows.filter((r) => r.status === 'pending').map((r) => String(r.id)),
  );
  return rows.map((r) => ({
    deliveryId: r.id,
    eventId: events.get(r.eventId)!.publicId,
    eventType: events.get(r.eventId)!.type,
    status: r.status,
    attempts: (byDelivery.get(r.id) ?? []).map((a) => ({
      at: iso(a.at),
      statusCode: a.statusCode,
      durationMs: a.durationMs,
      error: a.error,
      responseExcerpt: a.responseExcerpt,
    })),
    nextAttemptAt: due.has(String(r.id)) ? iso(due.get(String(r.id))!) : null,
    redeliveryOf: r.redeliveryOf,
    createdAt: iso(r.createdAt),
  }));
}

export const listWebhookDeliveries = defineOperation({
  name: 'list-webhook-deliveries',
  method: 'GET',
  path: '/webhook-endpoints/{endpointId}/deliveries',
  scope: 'read',
  errors: ['webhooks_unavailable', 'forbidden'],
  idempotency: 'none',
  input: 'list-webhook-deliveries#/$defs/input',
  output: 'list-webhook-deliveries#/$defs/output',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  tag: 'webhooks',
  toolset: 'integrate',
  summary: 'List the deliveries of a webhook endpoint, newest first, with every attempt (time, status code, duration, error, start of the answer).',
  uses: ['config', 'page'],
  async handler(ctx, input: { endpointId: number; status?: string; cursor?: string; limit: number }) {
    requireWebhookAccess(ctx);
    const endpoint = await loadEndpoint(ctx, input.endpointId);
    const after = ctx.page.position();
    const rows = await deliveriesOf(ctx.db, endpoint.id, { status: input.status, beforeId: after ? Number(after[0]) : undefined, limit: input.limit + 1 });
    const page = rows.slice(0, input.limit);
    return {
      deliveries: await deliveryViews(ctx.db, page),
      nextCursor: rows.length > input.limit ? ctx.page.next([page[page.length - 1].id]) : null,
    };
  },
});

export const redeliverWebhook = defineOperation({
  name: 'redeliver-webhook',
  method: 'POST',
  path: '/webhook-endpoints/{endpointId}/deliveries/{deliveryId}/redeliver',
  scope: 'write',
  errors: ['webhooks_unavailable', 'forbidden', 'conflict'],
  idempotency: 'optional',
  input: 'redeliver-webhook#/$defs/input',
  output: 'redeliver-webhook#/$defs/output',
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  tag: 'webhooks',
  toolset: 'integrate',
  successStatus: 202,
  summary: 'Send an event of the delivery log again, with the same webhook-id so receivers can dedupe.',
  description:
    'Answers 202 with a new pending delivery that goes out at once through the delivery queue; list-webhook-deliveries shows its outcome. A disabled endpoint answers 409 conflict.',
  uses: ['config', 'events'],
  async handler(ctx, input: { endpointId: number; deliveryId: number }) {
    requireWebhookAccess(ctx);
    const db = ctx.db as Knex.Transaction;
    const endpoint = await loadEndpoint(ctx, input.endpointId, db, true);
    if (!endpoint.enabled) {
      throw new ServiceError(
        'conflict',
        `Webhook endpoint ${endpoint.id} is disabled (${endpoint.disabled_reason}); enable it (update-webhook-endpoint with enabled: true) first.`,
        {
          disabledReason: endpoint.disabled_reason,
        },
      );
    }
    const original = await findDelivery(db, input.deliveryId, endpoint.id);
    if (!original) throw notFound(`Delivery ${input.deliveryId} of webhook endpoint ${endpoint.id}`);
    const now = ctx.now();
    const [id] = await insertDeliveries(db, [{ endpointId: endpoint.id, eventId: original.eventId, redeliveryOf: original.id }], now);
    await scheduleJob(db, { kind: DELIVERY_JOB, key: String(id), lane: endpointLane(endpoint.id), runAt: now, now });
    await ctx.events.afterCommit(db);
    return (await deliveryViews(db, [(await findDelivery(db, id))!]))[0];
  },
});

export const rotateWebhookSecret = defineOperation({
  name: 'rotate-webhook-secret',
  method: 'POST',
  path: '/webhook-endpoints/{endpointId}/rotate-secret',
  scope: 'write',
  errors: ['webhooks_unavailable', 'forbidden', 'brand_not_allowed'],
  // The answer carries the secret, which must not sit in plain text in the idempotency store.
  idempotency: 'none',
  input: 'rotate-webhook-secret#/$defs/input',
  output: 'rotate-webhook-secret#/$defs/output',
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  tag: 'webhooks',
  toolset: 'integrate',
  summary: 'Replace the signing secret of a webhook endpoint; the new secret is shown once.',
  description:
    'For 24 hours deliveries carry one signature per secret (new and replaced, space-separated in webhook-signature) so receivers can switch without losing a message. A retry after a lost answer rotates again; the secrets it replaced keep signing for their 24 hours.',
  uses: ['config', 'secrets'],
  async handler(ctx, input: { endpointId: number }) {
    requireWebhookAccess(ctx);
    const db = ctx.db as Knex.Transaction;
    const endpoint = await loadEndpoint(ctx, input.endpointId, db, true);
    const secret = newWebhookSecret();
    const now = ctx.now();
    const expiresAt = now + ROTATION_OVERLAP_MS;
    // Every secret replaced within the last day keeps signing, so a rotation retried after a lost
    // answer never strands a receiver that still holds the first secret.
    const retired = [...retiredSecrets(endpoint, now), { sealed: endpoint.secret_sealed, expiresAt }];
    await updateEndpoint(db, endpoint.id, { secretSealed: ctx.secrets.seal(secret), previousSecrets: JSON.stringify(retired), updatedAt: now });
    return { endpointId: Number(endpoint.id), secret, previousSecretExpiresAt: iso(expiresAt) };
  },
});

export const operations: OperationDefinition[] = [
  createWebhookEndpoint,
  listWebhookEndpoints,
  getWebhookEndpoint,
  updateWebhookEndpoint,
  deleteWebhookEndpoint,
  testWebhookEndpoint,
  listWebhookDeliveries,
  redeliverWebhook,
  rotateWebhookSecret,
];
