// GET /v1/brands/{brandId}/activity: the team's changes to a brand's launches, newest first.

import { defineOperation } from '../catalogue/define.js';
import { ServiceError } from '../errors.js';

interface ListActivityInput {
  brandId: number;
  accountId?: string;
  days: number;
  userId?: number;
  entityId?: string;
  cursor?: string;
  limit: number;
}

const DAY_MS = 86_400_000;

export const listActivity = defineOperation({
  name: 'list-activity',
  method: 'GET',
  path: '/brands/{brandId}/activity',
  scope: 'read',
  errors: ['account_ambiguous'],
  idempotency: 'none',
  input: 'list-activity#/$defs/input',
  output: 'list-activity#/$defs/output',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  tag: 'activity',
  toolset: 'monitor',
  summary: "List who changed which campaign, ad set or ad of a brand, newest first, with a summary of the page.",
  description:
    'Filters: accountId (required when the brand has several ad accounts: 422 account_ambiguous otherwise), ' +
    'days (1 to 90, default 7), userId, entityId. The summary counts the returned page only.',
  async handler(ctx, input: ListActivityInput) {
    const { db, brand } = ctx;
    const accounts: string[] = await db('ad_accounts').where('brand_id', brand!.id).orderBy('id').pluck('account_id');
    if (input.accountId !== undefined && !accounts.includes(input.accountId)) {
      throw new ServiceError('not_found', `Ad account ${input.accountId} is not attached to brand ${brand!.id}.`, null);
    }
    if (input.accountId === undefined && accounts.length > 1) {
      throw new ServiceError(
        'account_ambiguous',
        `Brand ${brand!.id} has ${accounts.length} ad accounts; pass accountId to say which one.`,
        { accountIds: accounts },
      );
    }
    const after = ctx.page.position();
    const query = db('activity_entries')
      .where('brand_id', brand!.id)
      .where('created_at', '>=', ctx.now() - Math.round(input.days * DAY_MS))
      .orderBy('id', 'desc')
      .limit(input.limit + 1);
    if (input.accountId !== undefined) query.where('account_id', input.accountId);
    if (input.userId !== undefined) query.where('user_id', input.userId);
    if (input.entityId !== undefined) query.where('entity_id', input.entityId);
    if (after) query.where('id', '<', Number(after[0]));
    const rows = await query;
    const page = rows.slice(0, input.limit);

    const perUser: Record<string, number> = {};
    const perEntity: Record<string, number> = {};
    const actions = new Set<string>();
    const activities = page.map((r) => {
      perUser[r.user_name] = (perUser[r.user_name] ?? 0) + 1;
      perEntity[r.entity_id] = (perEntity[r.entity_id] ?? 0) + 1;
      actions.add(r.action);
      return {
        userId: Number(r.user_id),
        userName: r.user_name,
        entityType: r.entity_type,
        entityId: r.entity_id,
        entityName: r.entity_name ?? null,
        action: r.action,
        when: new Date(Number(r.created_at)).toISOString(),
        accountId: r.account_id ?? null,
        // Money moved by the change: the amount in the ad account's currency, and the US cents it counted.
        ...(r.currency ? { amountMinorUnits: Number(r.amount_minor_units), currency: r.currency as string } : {}),
        ...(r.counted_usd_cents !== null && r.counted_usd_cents !== undefined ? { countedUsdCents: Number(r.counted_usd_cents) } : {}),
      };
    });
    return {
      summary: { days: input.days, totalEvents: activities.length, groupedActions: actions.size, perUser, perEntity },
      activities,
      nextCursor: rows.length > input.limit ? ctx.page.next([Number(page[page.length - 1].id)]) : null,
    };
  },
});
