// The webhooks area's storage: endpoints, deliveries and their attempts. Every query of
// webhook_endpoints, webhook_deliveries and webhook_attempts is here (and the organization row
// that serializes endpoint creation).

import type { Knex } from 'knex';

type Db = Knex | Knex.Transaction;

/** An endpoint row as the domain files read it. */
export interface EndpointRow {
  id: number;
  organization_id: number;
  url: string;
  enabled: boolean | number;
  secret_sealed: string;
  /** JSON list of RetiredSecret. */
  previous_secrets: string | null;
  failing_since: number | string | null;
}

export interface StoredEndpoint extends EndpointRow {
  description: string | null;
  events: string;
  brand_ids: string | null;
  disabled_reason: string | null;
  created_at: number;
  updated_at: number;
}

export interface NewEndpoint {
  organizationId: number;
  url: string;
  description: string | null;
  events: string[];
  brandIds: number[] | null;
  enabled: boolean;
  secretSealed: string;
  now: number;
}

/** Changes to an endpoint; only the fields given are written. */
export interface EndpointChanges {
  url?: string;
  description?: string | null;
  events?: string[];
  brandIds?: number[] | null;
  enabled?: boolean;
  disabledReason?: string | null;
  failingSince?: number | null;
  secretSealed?: string;
  previousSecrets?: string;
  updatedAt?: number;
}

export interface DeliveryRow {
  id: number;
  endpointId: number;
  eventId: number;
  status: 'pending' | 'succeeded' | 'failed';
  attemptCount: number;
  redeliveryOf: number | null;
  createdAt: number;
}

export interface AttemptRow {
  deliveryId: number;
  at: number;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
}

export async function countEndpoints(db: Db, organizationId: number): Promise<number> {
  return Number((await db('webhook_endpoints').where({ organization_id: organizationId }).count({ n: '*' }).first())?.n ?? 0);
}

/** Writes a new endpoint; answers the stored row. */
export async function insertEndpoint(db: Db, e: NewEndpoint): Promise<StoredEndpoint> {
  const row = {
    organization_id: e.organizationId,
    url: e.url,
    description: e.description,
    events: JSON.stringify(e.events),
    brand_ids: e.brandIds === null ? null : JSON.stringify(e.brandIds),
    enabled: e.enabled,
    disabled_reason: e.enabled ? null : 'manual',
    secret_sealed: e.secretSealed,
    created_at: e.now,
    updated_at: e.now,
  };
  const [id] = await db('webhook_endpoints').insert(row);
  return { ...row, id: Number(id), previous_secrets: null, failing_since: null };
}

/** The organization's endpoints, newest first, those with an id below `beforeId` when given. */
export function endpointsOf(db: Db, organizationId: number, beforeId?: number): Promise<StoredEndpoint[]> {
  return db('webhook_endpoints')
    .where({ organization_id: organizationId })
    .modify((q) => (beforeId !== undefined ? q.where('id', '<', beforeId) : q))
    .orderBy('id', 'desc');
}

/** The enabled endpoints of an organization, by id (whom an event goes to). */
export function enabledEndpointsOf(db: Db, organizationId: number): Promise<Array<Pick<StoredEndpoint, 'id' | 'events' | 'brand_ids'>>> {
  return db('webhook_endpoints').where({ organization_id: organizationId, enabled: true }).orderBy('id').select('id', 'events', 'brand_ids');
}

/** One endpoint of `organizationId` (any organization when null), row-locked in a transaction when asked. */
export async function findEndpoint(db: Db, id: number, organizationId: number | null, forUpdate = false): Promise<StoredEndpoint | undefined> {
  const q = db('webhook_endpoints').where({ id });
  if (organizationId !== null) q.where({ organization_id: organizationId });
  if (forUpdate && (db as Knex.Transaction).isTransaction) q.forUpdate();
  return q.first();
}

export async function updateEndpoint(db: Db, id: number, c: EndpointChanges): Promise<void> {
  const row: Record<string, unknown> = {};
  if (c.url !== undefined) row.url = c.url;
  if (c.description !== undefined) row.description = c.description;
  if (c.events !== undefined) row.events = JSON.stringify(c.events);
  if (c.brandIds !== undefined) row.brand_ids = c.brandIds === null ? null : JSON.stringify(c.brandIds);
  if (c.enabled !== undefined) row.enabled = c.enabled;
  if (c.disabledReason !== undefined) row.disabled_reason = c.disabledReason;
  if (c.failingSince !== undefined) row.failing_since = c.failingSince;
  if (c.secretSealed !== undefined) row.secret_sealed = c.secretSealed;
  if (c.previousSecrets !== undefined) row.previous_secrets = c.previousSecrets;
  if (c.updatedAt !== undefined) row.updated_at = c.updatedAt;
  if (Object.keys(row).length) await db('webhook_endpoints').where({ id }).update(row);
}

/** Deletes an endpoint; its deliveries and attempts go with it. */
export async function deleteEndpoint(db: Db, id: number): Promise<void> {
  await db('webhook_endpoints').where({ id }).delete();
}

/** Writes pending deliveries; answers their ids in the order given. */
export async function insertDeliveries(
  db: Db,
  rows: Array<{ endpointId: number; eventId: number; redeliveryOf?: number | null }>,
  now: number,
): Promise<number[]> {
  const ids: number[] = [];
  for (const r of rows) {
    const [id] = await db('webhook_deliveries').insert({
      endpoint_id: r.endpointId,
      event_id: r.eventId,
      status: 'pending',
      attempt_count: 0,
      redelivery_of: r.redeliveryOf ?? null,
      created_at: now,
      updated_at: now,
    });
    ids.push(Number(id));
  }
  return ids;
}

function deliveryOf(r: Record<string, any>): DeliveryRow {
  return {
    id: Number(r.id),
    endpointId: Number(r.endpoint_id),
    eventId: Number(r.event_id),
    status: r.status,
    attemptCount: Number(r.attempt_count),
    redeliveryOf: r.redelivery_of === null ? null : Number(r.redelivery_of),
    createdAt: Number(r.created_at),
  };
}

/** One delivery (of `endpointId` when given). */
export async function findDelivery(db: Db, id: number, endpointId?: number): Promise<DeliveryRow | undefined> {
  const row = await db('webhook_deliveries')
    .where({ id })
    .modify((q) => (endpointId !== undefined ? q.where({ endpoint_id: endpointId }) : q))
    .first();
  return row ? deliveryOf(row) : undefined;
}

/** An endpoint's deliveries, newest first. */
export async function deliveriesOf(db: Db, endpointId: number, o: { status?: string; beforeId?: number; limit: number }): Promise<DeliveryRow[]> {
  const rows = await db('webhook_deliveries')
    .where({ endpoint_id: endpointId })
    .modify((q) => {
      if (o.status) q.where({ status: o.status });
      if (o.beforeId !== undefined) q.where('id', '<', o.beforeId);
    })
    .orderBy('id', 'desc')
    .limit(o.limit);
  return rows.map(deliveryOf);
}

/** The attempts of `deliveryIds`, oldest first. */
export async function attemptsOf(db: Db, deliveryIds: number[]): Promise<AttemptRow[]> {
  if (!deliveryIds.length) return [];
  const rows = await db('webhook_attempts').whereIn('delivery_id', deliveryIds).orderBy('id');
  return rows.map((a: Record<string, any>) => ({
    deliveryId: Number(a.delivery_id),
    at: Number(a.at),
    statusCode: a.status_code === null ? null : Number(a.status_code),
    durationMs: Number(a.duration_ms),
    error: a.error,
    responseExcerpt: a.response_excerpt,
  }));
}

/** Logs one attempt and sets the delivery's status and attempt count. */
export async function recordAttempt(db: Db, a: AttemptRow, status: DeliveryRow['status'], attemptCount: number, now: number): Promise<void> {
  await db('webhook_attempts').insert({
    delivery_id: a.deliveryId,
    at: a.at,
    status_code: a.statusCode,
    duration_ms: a.durationMs,
    error: a.error,
    response_excerpt: a.responseExcerpt,
  });
  await db('webhook_deliveries').where({ id: a.deliveryId }).update({ status, attempt_count: attemptCount, updated_at: now });
}

/** Marks a still pending delivery failed (given up). */
export async function failDelivery(db: Db, id: number, now: number): Promise<void> {
  await db('webhook_deliveries').where({ id, status: 'pending' }).update({ status: 'failed', updated_at: now });
}

/** Ids of finished deliveries created before `before`, at most `limit`. */
export async function finishedDeliveriesBefore(db: Db, before: number, limit: number): Promise<number[]> {
  return (await db('webhook_deliveries').whereIn('status', ['succeeded', 'failed']).where('created_at', '<', before).limit(limit).pluck('id')).map(Number);
}

/** Deletes deliveries with their attempts; answers how many deliveries went. */
export async function deleteDeliveries(db: Db, ids: number[]): Promise<number> {
  if (!ids.length) return 0;
  await db('webhook_attempts').whereIn('delivery_id', ids).delete();
  return db('webhook_deliveries').whereIn('id', ids).delete();
}

/** Which of `eventIds` a delivery still refers to. */
export async function eventIdsWithDeliveries(db: Db, eventIds: number[]): Promise<Set<number>> {
  if (!eventIds.length) return new Set();
  return new Set((await db('webhook_deliveries').whereIn('event_id', eventIds).distinct('event_id').pluck('event_id')).map(Number));
}
