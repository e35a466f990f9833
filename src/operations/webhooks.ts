// Webhook endpoints (organization-level): create, list, read, change, delete, test send, the
// delivery log, redelivery and secret rotation. Deliveries themselves run as jobs.

import type { Knex } from 'knex';
import { defineOperation } from '../catalogue/define.js';
import { inTransaction } from '../db/connection.js';
import { ServiceError, notFound, validationFailed } from '../errors.js';
import { DELIVERY_JOB } from '../events/outbox.js';
import { attemptDelivery, retiredSecrets } from '../webhooks/deliver.js';
import { MAX_ENDPOINTS, checkEndpointFields, endpointView, loadEndpoint, requireWebhookAccess, visibleTo, type StoredEndpoint } from '../webhooks/endpoints.js';
import { newWebhookSecret } from '../webhooks/signing.js';

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
  async handler(ctx, input: Required<Omit<EndpointFields, 'description'>> & { description?: string | null }) {
    requireWebhookAccess(ctx);
    await checkEndpointFields(ctx, input);
    const secret = newWebhookSecret();
    const now = ctx.now();
    const orgId = ctx.principal.organizationId;
    const db = ctx.db as Knex.Transaction;
    // The organization row is the lock that makes "at most 20" hold under concurrent creates.
    await db('organizations').where({ id: orgId }).forUpdate().first('id');
    const count = Number((await db('webhook_endpoints').where({ organization_id: orgId }).count({ n: '*' }).first())?.n ?? 0);
    if (count >= MAX_ENDPOINTS) {
      throw new ServiceError('unprocessable', `This organization already has ${count} webhook endpoints, the most it may have. Delete one first.`, {
        limit: MAX_ENDPOINTS,
      });
    }
    const row = {
      organization_id: orgId,
      url: input.url,
      description: input.description ?? null,
      events: JSON.stringify(input.events),
      brand_ids: input.brandIds === null ? null : JSON.stringify(input.brandIds),
      enabled: input.enabled,
      disabled_reason: input.enabled ? null : 'manual',
      secret_sealed: ctx.secrets.seal(secret),
      created_at: now,
      updated_at: now,
    };
    const [id] = await db('webhook_endpoints').insert(row);
    return { ...endpointView({ ...row, id: Number(id) } as unknown as StoredEndpoint), secret };
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
  async handler(ctx, input: { cursor?: string; limit: number }) {
    requireWebhookAccess(ctx);
    const after = ctx.page.position();
    // At most 20 rows exist per organization: filter visibility here, page over what is left.
    const rows: StoredEndpoint[] = await ctx
      .db('webhook_endpoints')
      .where({ organization_id: ctx.principal.organizationId })
      .modify((q) => (after ? q.where('id', '<', Number(after[0])) : q))
      .orderBy('id', 'desc');
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
    const changes: Record<string, unknown> = { updated_at: now };
    if (fields.url !== undefined) changes.url = fields.url;
    if (fields.description !== undefined) changes.description = fields.description;
    if (fields.events !== undefined) changes.events = JSON.stringify(fields.events);
    if (fields.brandIds !== undefined) changes.brand_ids = fields.brandIds === null ? null : JSON.stringify(fields.brandIds);
    if (fields.enabled === false) Object.assign(changes, { enabled: false, disabled_reason: 'manual' });
    if (fields.enabled === true) Object.assign(changes, { enabled: true, disabled_reason: null, failing_since: null });
    await db('webhook_endpoints').where({ id: current.id }).update(changes);
    // Turned back on: what waited while it was off goes out now.
    if (fields.enabled === true && !current.enabled) await ctx.events.afterCommit(db, [Number(current.id)]);
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
  async handler(ctx, input: { endpointId: number }) {
    requireWebhookAccess(ctx);
    const endpoint = await loadEndpoint(ctx, input.endpointId, ctx.db, true);
    await ctx.db('webhook_endpoints').where({ id: endpoint.id }).delete();
    await ctx
      .db('jobs')
      .where({ kind: DELIVERY_JOB, job_key: String(endpoint.id) })
      .whereNull('locked_by')
      .delete();
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
  async handler(ctx, input: { endpointId: number }) {
    requireWebhookAccess(ctx);
    const knex = ctx.db as Knex;
    const { endpoint, deliveryId, eventId } = await inTransaction(knex, async (trx) => {
      const row = await loadEndpoint(ctx, input.endpointId, trx, true);
      if (!row.enabled) {
        throw new ServiceError(
          'conflict',
          `Webhook endpoint ${row.id} is disabled (${row.disabled_reason}); enable it (PATCH enabled: true) before a test send.`,
          { disabledReason: row.disabled_reason },
        );
      }
      const event = await ctx.events.emit(
        trx,
        {
          organizationId: ctx.principal.organizationId,
          brandId: null,
          type: 'webhook.test',
          data: { endpointId: Number(row.id), message: 'This is a test send from svc.' },
        },
        { onlyEndpointId: Number(row.id), queue: false },
      );
      return { endpoint: row, deliveryId: event.deliveries.get(Number(row.id))!, eventId: event.publicId };
    });
    const [delivery] = await knex('webhook_deliveries as d')
      .join('events as e', 'e.id', 'd.event_id')
      .where('d.id', deliveryId)
      .select(
        'd.id',
        'd.attempt_count',
        'd.created_at',
        'e.public_id as event_public_id',
        'e.type as event_type',
        'e.data as event_data',
        'e.created_at as event_created_at',
      );
    const result = await attemptDelivery({ knex, secrets: ctx.secrets, sender: ctx.webhooks, now: ctx.now }, endpoint, delivery, false);
    return { deliveryId, eventId, delivered: result.succeeded, statusCode: result.statusCode, durationMs: result.durationMs, error: result.error };
  },
});

async function deliveryViews(db: Knex | Knex.Transaction, rows: Array<Record<string, any>>) {
  const ids = rows.map((r) => Number(r.id));
  const attempts: Array<Record<string, any>> = ids.length ? await db('webhook_attempts').whereIn('delivery_id', ids).orderBy('id') : [];
  const byDelivery = new Map<number, Array<Record<string, any>>>();
  for (const a of attempts) {
    const list = byDelivery.get(Number(a.delivery_id)) ?? [];
    list.push(a);
    byDelivery.set(Number(a.delivery_id), list);
  }
  return rows.map((r) => ({
    deliveryId: Number(r.id),
    eventId: r.event_public_id as string,
    eventType: r.event_type as string,
    status: r.status as 'pending' | 'succeeded' | 'failed',
    attempts: (byDelivery.get(Number(r.id)) ?? []).map((a) => ({
      at: iso(a.at),
      statusCode: a.status_code === null ? null : Number(a.status_code),
      durationMs: Number(a.duration_ms),
      error: a.error,
      responseExcerpt: a.response_excerpt,
    })),
    nextAttemptAt: r.next_attempt_at === null ? null : iso(r.next_attempt_at),
    redeliveryOf: r.redelivery_of === null ? null : Number(r.redelivery_of),
    createdAt: iso(r.created_at),
  }));
}

const deliveryColumns = [
  'd.id',
  'd.status',
  'd.next_attempt_at',
  'd.redelivery_of',
  'd.created_at',
  'd.event_id',
  'e.public_id as event_public_id',
  'e.type as event_type',
];

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
  async handler(ctx, input: { endpointId: number; status?: string; cursor?: string; limit: number }) {
    requireWebhookAccess(ctx);
    const endpoint = await loadEndpoint(ctx, input.endpointId);
    const after = ctx.page.position();
    const rows = await ctx
      .db('webhook_deliveries as d')
      .join('events as e', 'e.id', 'd.event_id')
      .where('d.endpoint_id', endpoint.id)
      .modify((q) => {
        if (input.status) q.where('d.status', input.status);
        if (after) q.where('d.id', '<', Number(after[0]));
      })
      .orderBy('d.id', 'desc')
      .limit(input.limit + 1)
      .select(deliveryColumns);
    const page = rows.slice(0, input.limit);
    return {
      deliveries: await deliveryViews(ctx.db, page),
      nextCursor: rows.length > input.limit ? ctx.page.next([Number(page[page.length - 1].id)]) : null,
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
  async handler(ctx, input: { endpointId: number; deliveryId: number }) {
    requireWebhookAccess(ctx);
    const db = ctx.db as Knex.Transaction;
    const endpoint = await loadEndpoint(ctx, input.endpointId, db, true);
    if (!endpoint.enabled) {
      throw new ServiceError('conflict', `Webhook endpoint ${endpoint.id} is disabled (${endpoint.disabled_reason}); enable it (PATCH enabled: true) first.`, {
        disabledReason: endpoint.disabled_reason,
      });
    }
    const original = await db('webhook_deliveries').where({ id: input.deliveryId, endpoint_id: endpoint.id }).first('id', 'event_id');
    if (!original) throw notFound(`Delivery ${input.deliveryId} of webhook endpoint ${endpoint.id}`);
    const now = ctx.now();
    const [id] = await db('webhook_deliveries').insert({
      endpoint_id: endpoint.id,
      event_id: original.event_id,
      status: 'pending',
      attempt_count: 0,
      next_attempt_at: now,
      redelivery_of: original.id,
      created_at: now,
      updated_at: now,
    });
    await ctx.events.afterCommit(db, [Number(endpoint.id)]);
    const rows = await db('webhook_deliveries as d').join('events as e', 'e.id', 'd.event_id').where('d.id', Number(id)).select(deliveryColumns);
    return (await deliveryViews(db, rows))[0];
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
    await db('webhook_endpoints')
      .where({ id: endpoint.id })
      .update({ secret_sealed: ctx.secrets.seal(secret), previous_secrets: JSON.stringify(retired), updated_at: now });
    return { endpointId: Number(endpoint.id), secret, previousSecretExpiresAt: iso(expiresAt) };
  },
});

export const webhookOperations = [
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
