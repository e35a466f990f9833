// Webhook endpoint rows: who may see and change them, how they read on the wire, and the rules a
// saved endpoint must satisfy (URL policy, brands of the organization, the 20-endpoint limit).

import type { Knex } from 'knex';
import type { ServiceContext } from '../catalogue/define.js';
import { ServiceError, notFound, validationFailed } from '../errors.js';
import { organizationOfBrand } from '../brands/store.js';
import { findEndpoint, type StoredEndpoint } from './store.js';

export type { StoredEndpoint } from './store.js';

/** Endpoints per organization; one more answers 422 unprocessable. */
export const MAX_ENDPOINTS = 20;

const iso = (ms: number | string) => new Date(Number(ms)).toISOString();

/** True when an endpoint filtered by `brandIds` (null = every brand) receives an event of `brandId`. */
export function endpointCovers(brandIds: number[] | null, brandId: number | null): boolean {
  return brandIds === null || (brandId !== null && brandIds.includes(brandId));
}

export function brandIdsOf(row: Pick<StoredEndpoint, 'brand_ids'>): number[] | null {
  return row.brand_ids ? (JSON.parse(row.brand_ids) as number[]) : null;
}

export function endpointView(row: StoredEndpoint) {
  return {
    endpointId: Number(row.id),
    url: row.url,
    description: row.description,
    events: JSON.parse(row.events) as string[],
    brandIds: brandIdsOf(row),
    enabled: Boolean(row.enabled),
    disabledReason: row.disabled_reason as 'gone' | 'failing' | 'manual' | null,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/**
 * Refuses callers who may not touch webhooks at all: webhooks off in this environment (503), or
 * a person who is not an organization owner or admin (403 forbidden).
 */
export function requireWebhookAccess(ctx: ServiceContext<'config'>): void {
  if (!ctx.config.webhooksEnabled) {
    throw new ServiceError('webhooks_unavailable', 'Webhooks are not available in this environment (WEBHOOKS_ENABLED=false). Nothing was changed.');
  }
  const p = ctx.principal;
  if (p.kind === 'user' && p.role !== 'owner' && p.role !== 'admin') {
    throw new ServiceError('forbidden', 'Only an organization owner or admin may manage webhook endpoints.', { role: p.role });
  }
}

/** True when a brand-limited credential reaches every brand the endpoint is filtered to. */
function withinBrandLimit(ctx: ServiceContext, brandIds: number[] | null): boolean {
  const limit = ctx.principal.brandIds;
  return limit === null || (brandIds !== null && brandIds.every((b) => limit.has(b)));
}

function brandLimitRefusal(ctx: ServiceContext, brandIds: number[] | null): ServiceError {
  const allowed = [...(ctx.principal.brandIds ?? [])];
  return new ServiceError(
    'brand_not_allowed',
    brandIds === null
      ? `This credential is limited to brands ${allowed.join(', ')}: an endpoint it manages must set brandIds to some of them (null means every brand).`
      : `This credential is not allowed on every brand of this endpoint (${brandIds.join(', ')}); it may use brands ${allowed.join(', ')}.`,
    { reason: 'brand_not_allowed', allowedBrandIds: allowed },
  );
}

/** An endpoint of the caller's organization that the caller may reach; 404 or 403 otherwise. */
export async function loadEndpoint(ctx: ServiceContext, endpointId: number, db: Knex | Knex.Transaction = ctx.db, forUpdate = false): Promise<StoredEndpoint> {
  const row = await findEndpoint(db, endpointId, ctx.principal.organizationId, forUpdate);
  if (!row) throw notFound(`Webhook endpoint ${endpointId}`);
  if (!withinBrandLimit(ctx, brandIdsOf(row))) throw brandLimitRefusal(ctx, brandIdsOf(row));
  return row;
}

/** Only endpoints the caller may reach are listed. */
export function visibleTo(ctx: ServiceContext, row: StoredEndpoint): boolean {
  return withinBrandLimit(ctx, brandIdsOf(row));
}

/** Checks a URL and brand filter about to be saved. */
export async function checkEndpointFields(ctx: ServiceContext<'outbound'>, fields: { url?: string; brandIds?: number[] | null }): Promise<void> {
  if (fields.url !== undefined) {
    const problem = await ctx.outbound.urlProblem(fields.url);
    if (problem) throw validationFailed([{ field: 'url', code: 'invalid_value', message: problem }]);
  }
  if (fields.brandIds === undefined) return;
  if (!withinBrandLimit(ctx, fields.brandIds)) throw brandLimitRefusal(ctx, fields.brandIds);
  if (fields.brandIds === null) return;
  const unknown: number[] = [];
  for (const b of fields.brandIds) if ((await organizationOfBrand(ctx.db, b)) !== ctx.principal.organizationId) unknown.push(b);
  if (unknown.length) {
    throw validationFailed(
      unknown.map((b) => ({
        field: `brandIds[${fields.brandIds!.indexOf(b)}]`,
        code: 'invalid_value',
        message: `brand ${b} is not a brand of this organization`,
      })),
    );
  }
}
