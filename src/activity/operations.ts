// The activity area's operations: GET /v1/brands/{brandId}/activity, the team's changes to a
// brand's launches, newest first, with a summary of the page.

import { defineOperation, type OperationDefinition } from '../catalogue/define.js';
import { ServiceError } from '../errors.js';
import { adAccountsOf } from '../brands/store.js';
import { activityEntries } from './store.js';

const DAY_MS = 86_400_000;

const listActivity = defineOperation({
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
  summary: 'List who changed which campaign, ad set or ad of a brand, newest first, with a summary of the page.',
  description:
    'Filters: accountId (required when the brand has several ad accounts: 422 account_ambiguous otherwise), ' +
    'days (1 to 90, default 7), userId, entityId, entityType, action. The summary counts the returned page only.',
  uses: ['page'],
  async handler(ctx, input) {
    const { db, brand } = ctx;
    const accounts = (await adAccountsOf(db, brand.id)).map((a) => a.accountId);
    if (input.accountId !== undefined && !accounts.includes(input.accountId)) {
      throw new ServiceError('not_found', `Ad account ${input.accountId} is not attached to brand ${brand.id}.`, null);
    }
    if (input.accountId === undefined && accounts.length > 1) {
      throw new ServiceError('account_ambiguous', `Brand ${brand.id} has ${accounts.length} ad accounts; pass accountId to say which one.`, {
        accountIds: accounts,
      });
    }
    const rows = await activityEntries(db, {
      brandId: brand.id,
      since: ctx.now() - Math.round(input.days * DAY_MS),
      accountId: input.accountId,
      userId: input.userId,
      entityId: input.entityId,
      entityType: input.entityType,
      action: input.action,
      beforeId: ctx.page.beforeId(),
      limit: input.limit + 1,
    });
    const { rows: page, nextCursor } = ctx.page.pageOf(rows, (r) => [r.id]);

    const perUser: Record<string, number> = {};
    const perEntity: Record<string, number> = {};
    const actions = new Set<string>();
    const activities = page.map((r) => {
      perUser[r.userName] = (perUser[r.userName] ?? 0) + 1;
      perEntity[r.entityId] = (perEntity[r.entityId] ?? 0) + 1;
      actions.add(r.action);
      return {
        userId: r.userId,
        userName: r.userName,
        entityType: r.entityType,
        entityId: r.entityId,
        entityName: r.entityName,
        action: r.action,
        when: new Date(r.createdAt).toISOString(),
        accountId: r.accountId,
        // Money moved by the change: the amount in the ad account's currency, and the US cents it counted.
        ...(r.currency ? { amountMinorUnits: Number(r.amountMinorUnits), currency: r.currency } : {}),
        ...(r.countedUsdCents !== null ? { countedUsdCents: r.countedUsdCents } : {}),
      };
    });
    return {
      summary: { days: input.days, totalEvents: activities.length, groupedActions: actions.size, perUser, perEntity },
      activities,
      nextCursor,
    };
  },
});

/** The activity area's operations, in catalogue order. */
export const operations: OperationDefinition[] = [listActivity];
