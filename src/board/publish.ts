// A card entering a column that publishes: its launch is published through launch-campaign
// (confirm: true) as the caller, so scope, brand limit, ceiling reservation (released when the
// publish fails), idempotency and activity hold exactly as for a direct call. Runs after the
// card's own transaction committed: a failed publish leaves the card placed and says why. A column
// whose workflow moves money counts as publishing for a caller without `publish` (publish-rule.ts).

import type { ServiceContext } from '../catalogue/define.js';
import { ServiceError } from '../errors.js';
import { canPublish, placementMovesMoney } from '../workflows/publish-rule.js';
import type { CardRow, ColumnRow } from './store.js';
import { launchStatusOf } from './views.js';

export interface PublishOutcome {
  publish: { attempted: boolean; published: boolean; reason: string | null };
  publishError: { code: string; message: string; details: unknown } | null;
}

const nothing = (reason: string | null = null): PublishOutcome => ({ publish: { attempted: false, published: false, reason }, publishError: null });

/**
 * The Idempotency-Key of the publish a placing starts: the card and the version the placing gave
 * it, so a retried or resumed placing never publishes twice.
 */
export function publishKeyOf(card: Pick<CardRow, 'id' | 'version'>): string {
  return `pipeline-card-${card.id}-v${card.version}`;
}

/**
 * Publishes the card's launch when it just entered `column` and that column publishes (only the plan
 * `planFingerprint` names, when given: what the person was asked about). A caller
 * without `publish` places the card and publishes nothing, ceiling untouched, in a publishing column
 * and in one whose workflow would move money (that workflow does not start for it: subscriber.ts).
 */
export async function publishOnEntry(
  ctx: ServiceContext<'invoke'>,
  card: CardRow,
  column: ColumnRow,
  entered: boolean,
  planFingerprint?: string,
): Promise<PublishOutcome> {
  if (!entered) return nothing();
  if (!canPublish(ctx.principal)) {
    const moves = column.publishes || (await placementMovesMoney(ctx.db, ctx.principal.organizationId, card.brandId, column));
    return nothing(moves ? 'publish_scope_missing' : null);
  }
  if (!column.publishes) return nothing();
  if ((await launchStatusOf(ctx.db, card.launchId)) === 'published') return nothing();
  try {
    // With the plan the caller confirmed, a launch changed since publishes nothing (stale_read) and the card stays placed.
    const plan = planFingerprint === undefined ? {} : { planFingerprint };
    await ctx.invoke(
      'launch-campaign',
      { brandId: card.brandId, launchId: String(card.launchId), confirm: true, ...plan },
      { idempotencyKey: publishKeyOf(card) },
    );
    return { publish: { attempted: true, published: true, reason: null }, publishError: null };
  } catch (err) {
    if (err instanceof ServiceError) {
      return { publish: { attempted: true, published: false, reason: err.code }, publishError: { code: err.code, message: err.message, details: err.details } };
    }
    ctx.log.error({ requestId: ctx.requestId, err, cardId: card.id, launchId: card.launchId }, 'publishing a pipeline card failed');
    return {
      publish: { attempted: true, published: false, reason: 'internal_error' },
      publishError: {
        code: 'internal_error',
        message: 'The publish failed on the service side; the card stays placed. Retry by moving it again.',
        details: null,
      },
    };
  }
}
