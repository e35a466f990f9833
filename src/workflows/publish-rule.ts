// Who may cause a publish, decided here and nowhere else: a workflow with a step that spends or acts
// on live campaigns moves money, and only a credential holding `publish` may start one, whether it
// runs the workflow or places a pipeline card where the workflow starts.

import type { Knex } from 'knex';
import type { Principal } from '../auth/principal.js';
import { ServiceError } from '../errors.js';
import { acts, type WorkflowNode } from './definition.js';
import { workflowsOfColumn } from './store.js';

type Db = Knex | Knex.Transaction;

/** True when the caller may cause a publish. */
export function canPublish(principal: Pick<Principal, 'scopes'>): boolean {
  return principal.scopes.has('publish');
}

/** True when a run of a workflow with these steps may start for a caller that can (or cannot) publish. */
export function mayStart(def: { nodes: Array<Pick<WorkflowNode, 'kind'>> }, callerCanPublish: boolean): boolean {
  return callerCanPublish || !acts(def);
}

/** Throws 403 insufficient_scope (details.requiredScope publish) when `principal` may not save, arm or run a workflow with these steps. */
export function requirePublish(principal: Pick<Principal, 'scopes'>, nodes: Array<Pick<WorkflowNode, 'kind'>>, what: string): void {
  if (mayStart({ nodes }, canPublish(principal))) return;
  throw new ServiceError(
    'insufficient_scope',
    `${what} a workflow with a launch, pause, budget or agent step needs the "publish" scope; this credential has ${[...principal.scopes].join(', ') || 'none'}.`,
    { requiredScope: 'publish' },
  );
}

/**
 * True when a card entering this column can start a workflow that moves money: its linked workflow
 * or one whose pipeline-stage trigger names it, active or not (arming it later must not open a door).
 */
export async function placementMovesMoney(
  db: Db,
  organizationId: number,
  brandId: number,
  column: { id: number; workflowId: number | null },
): Promise<boolean> {
  return (await workflowsOfColumn(db, organizationId, brandId, column.id, column.workflowId)).some((w) => acts(w));
}
