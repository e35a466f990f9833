// The webhooks area's storage: endpoints, deliveries and their attempts. Every query of
// webhook_endpoints, webhook_deliveries and webhook_attempts is here (and the organization row
// that serializes endpoint creation).

import type { Knex } from 'knex';
import { chunksOfPowersOfTwo, inList, prepared } from '../db/prepared.js';

type Db = Knex | Knex.Transaction;

/** Rows per multi-row insert: a few hundred keep a statement's bound values far below SQLite's limit (32,766) and MySQL's packet size. */
const INSERT_CHUNK = 400;
/** Attempts per prepared insert, at most (a power of two). */
const ATTEMPTS_PER_INSERT = 256;

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
  await bumpEndpointVersion(db, e.organizationId);
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
  if (!Object.keys(row).length) return;
  await db('webhook_endpoints').where({ id }).update(row);
  // Whom events go to changed: the subscribers' cached endpoint lists are read again.
  if (c.events !== undefined || c.brandIds !== undefined || c.enabled !== undefined) await bumpEndpointVersionOf(db, id);
}

/** Deletes an endpoint; its deliveries and attempts go with it. */
export async function deleteEndpoint(db: Db, id: number): Promise<void> {
  await bumpEndpointVersionOf(db, id);
  await db('webhook_endpoints').where({ id }).delete();
}

/** Moves the organization's endpoint version on; call in the transaction of the change. */
export async function bumpEndpointVersion(db: Db, organizationId: number): Promise<void> {
  await db('webhook_endpoint_versions')
    .insert({ organization_id: organizationId, version: 1 })
    .onConflict('organization_id')
    .merge({ version: db.raw('webhook_endpoint_versions.version + 1') });
}

async function bumpEndpointVersionOf(db: Db, endpointId: number): Promise<void> {
  const row = await db('webhook_endpoints').where({ id: endpointId }).first('organization_id');
  if (row) await bumpEndpointVersion(db, Number(row.organization_id));
}

/** The endpoint versions of `organizationIds` (0 for one whose endpoints never changed). */
export async function endpointVersions(db: Db, organizationIds: number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>(organizationIds.map((o) => [o, 0]));
  if (!organizationIds.length) return out;
  const rows: Array<{ organization_id: number; version: number | string }> = await db('webhook_endpoint_versions')
    .whereIn('organization_id', organizationIds)
    .select('organization_id', 'version');
  for (const r of rows) out.set(Number(r.organization_id), Number(r.version));
  return out;
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

const attemptRow = (a: AttemptRow) => ({
  delivery_id: a.deliveryId,
  at: a.at,
  status_code: a.statusCode,
  duration_ms: a.durationMs,
  error: a.error,
  response_excerpt: a.responseExcerpt,
});

/** Logs one attempt and sets the delivery's status and attempt count. */
export async function recordAttempt(db: Db, a: AttemptRow, status: DeliveryRow['status'], attemptCount: number, now: number): Promise<void> {
  await db('webhook_attempts').insert(attemptRow(a));
  await db('webhook_deliveries').where({ id: a.deliveryId }).update({ status, attempt_count: attemptCount, updated_at: now });
}

/** A delivery of a batch about to be sent, with what the attempts log already says about it. */
export interface BatchDelivery extends DeliveryRow {
  /** Attempts recorded so far (the log is the truth: a crash may have come before the status was written). */
  recordedAttempts: number;
  /** True when an attempt already got a 2xx answer (sent before a crash, not sent again). */
  answered: boolean;
}

/**
 * The deliveries `ids` (of one endpoint) with their recorded attempts and that endpoint, in one
 * statement; deliveries that no longer exist are absent.
 */
export async function batchDeliveries(db: Db, ids: number[]): Promise<{ deliveries: Map<number, BatchDelivery>; endpoint: EndpointRow | undefined }> {
  const deliveries = new Map<number, BatchDelivery>();
  if (!ids.length) return { deliveries, endpoint: undefined };
  const attempts = (ok: boolean) => {
    const q = db('webhook_attempts as a').whereRaw('a.delivery_id = d.id');
    return ok ? q.where('a.status_code', '>=', 200).where('a.status_code', '<', 300).select(db.raw('1')).limit(1) : q.count({ n: '*' });
  };
  const rows: Array<Record<string, any>> = await db('webhook_deliveries as d')
    .leftJoin('webhook_endpoints as ep', 'ep.id', 'd.endpoint_id')
    .whereIn('d.id', ids)
    .select(
      'd.*',
      attempts(false).as('recorded_attempts'),
      attempts(true).as('answered'),
      'ep.organization_id as ep_organization_id',
      'ep.url as ep_url',
      'ep.enabled as ep_enabled',
      'ep.secret_sealed as ep_secret_sealed',
      'ep.previous_secrets as ep_previous_secrets',
      'ep.failing_since as ep_failing_since',
    );
  let endpoint: EndpointRow | undefined;
  for (const r of rows) {
    deliveries.set(Number(r.id), {
      ...deliveryOf(r),
      recordedAttempts: Number(r.recorded_attempts),
      answered: r.answered !== null && r.answered !== undefined,
    });
    if (!endpoint && r.ep_url !== null)
      endpoint = {
        id: Number(r.endpoint_id),
        organization_id: Number(r.ep_organization_id),
        url: r.ep_url,
        enabled: r.ep_enabled,
        secret_sealed: r.ep_secret_sealed,
        previous_secrets: r.ep_previous_secrets,
        failing_since: r.ep_failing_since,
      };
  }
  return { deliveries, endpoint };
}

/** Logs attempts in one statement (an attempt not yet logged at a crash is sent again, so the window of unlogged ones bounds the resends). */
export async function insertAttempts(db: Db, attempts: AttemptRow[]): Promise<void> {
  // A prepared statement per power-of-two part (src/db/prepared.ts): the delivery threads' hottest write.
  for (const part of chunksOfPowersOfTwo(attempts, ATTEMPTS_PER_INSERT))
    await prepared(
      db,
      `insert into webhook_attempts (delivery_id, at, status_code, duration_ms, error, response_excerpt) values ${part.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}`,
      part.flatMap((a) => [a.deliveryId, a.at, a.statusCode, a.durationMs, a.error, a.responseExcerpt]),
    );
}

/** Sets the status and attempt count of a batch of deliveries in one statement. */
export async function setDeliveryOutcomes(
  db: Db,
  outcomes: Array<{ id: number; status: DeliveryRow['status']; attemptCount: number }>,
  now: number,
): Promise<void> {
  if (!outcomes.length) return;
  // Padded to a power of two (a repeated outcome changes nothing): a handful of prepared texts.
  const padded = inList(outcomes).params;
  const cases = padded.map(() => 'when ? then ?').join(' ');
  await prepared(
    db,
    `update webhook_deliveries set status = case id ${cases} end, attempt_count = case id ${cases} end, updated_at = ? where id in (${padded.map(() => '?').join(', ')})`,
    [...padded.flatMap((o) => [o.id, o.status]), ...padded.flatMap((o) => [o.id, o.attemptCount]), now, ...padded.map((o) => o.id)],
  );
}

/**
 * Writes the pending deliveries of a fan-out in one statement; answers their ids in the order
 * given. Each (endpoint, event) pair appears once and has no other first delivery (an event fans
 * out once): the new rows are read back by id from the one the insert reported.
 */
export async function insertFanOut(db: Db, rows: Array<{ endpointId: number; eventId: number }>, now: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) ids.push(...(await insertFanOutChunk(db, rows.slice(i, i + INSERT_CHUNK), now)));
  return ids;
}

async function insertFanOutChunk(db: Db, rows: Array<{ endpointId: number; eventId: number }>, now: number): Promise<number[]> {
  const [reported] = await db('webhook_deliveries').insert(
    rows.map((r) => ({
      endpoint_id: r.endpointId,
      event_id: r.eventId,
      status: 'pending',
      attempt_count: 0,
      redelivery_of: null,
      created_at: now,
      updated_at: now,
    })),
  );
  // MySQL reports the first new id, SQLite the last: every new row's id is at least this.
  const from = Number(reported) - rows.length + 1;
  const found: Array<{ id: number; endpoint_id: number; event_id: number }> = await db('webhook_deliveries')
    .where('id', '>=', from)
    .whereIn('event_id', [...new Set(rows.map((r) => r.eventId))])
    .whereNull('redelivery_of')
    .select('id', 'endpoint_id', 'event_id');
  const idOf = new Map(found.map((f) => [`${f.endpoint_id}:${f.event_id}`, Number(f.id)]));
  return rows.map((r) => {
    const id = idOf.get(`${r.endpointId}:${r.eventId}`);
    if (id === undefined) throw new Error(`the delivery of event ${r.eventId} to endpoint ${r.endpointId} was not found after its insert`);
    return id;
  });
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
