// The actions of an ad account's automations in one cycle, as one batch operation
// (apply-automation-actions), internal: offered on no surface, invoked by the engine through the
// pipeline as the account's automations (scope, brand limit and activity hold as for any call).
// The pauses and resumes go to the ad platform object by object in as few requests as it allows
// (Graph batch, TikTok's bulk status update); then one transaction records every success at once:
// the nodes' statuses, activity (each change attributed to its automation, `Automation: <name>`),
// the ledger and holds, and one automation.triggered per object. Notices have nothing to change on
// the platform and are recorded the same way. The answer gives each action's outcome: done, or the
// error it failed with (the engine retries what is worth retrying). When every action succeeds,
// the runs named in `closeRuns` are closed in that same transaction (one commit fewer per acting
// account); otherwise the engine closes them with the failures' retries.

import type { Principal } from '../auth/principal.js';
import { defineOperation, type OperationDefinition } from '../catalogue/define.js';
import { inTransaction } from '../db/connection.js';
import { ServiceError } from '../errors.js';
import { liveNodesAmong, setNodesProperties, type NodeRow } from '../launches/store.js';
import { accountScope } from '../platforms/live-read.js';
import { PlatformError } from '../platforms/port.js';
import { serviceErrorOf } from '../platforms/registry.js';
import type { Automation, Intent, RunObject } from './rule.js';
import { automationsByIds, finishRuns, recordActions, runCauses, type TakenAction } from './store.js';

export const APPLY_ACTIONS = 'apply-automation-actions';

export interface ActionRequest {
  automationId: number;
  runId: number;
  nodeId: string;
  intent: Intent;
}

/** A run to close with its actions: its whole object list as decided, outcomes not yet in. */
export interface ClosingRun {
  runId: number;
  objects: RunObject[];
}

export interface ActionError {
  code: string;
  message: string;
  retryAfter: number | null;
}

export interface ActionOutcome {
  automationId: number;
  nodeId: string;
  action: 'paused' | 'resumed' | 'notified' | 'none';
  error: ActionError | null;
}

export const PAST: Record<Intent, 'paused' | 'resumed' | 'notified'> = { pause: 'paused', resume: 'resumed', notify: 'notified' };

/** The principal an account's automations act as together: write scope, their brand only; activity names each automation. */
export function accountAutomationsPrincipal(a: Pick<Automation, 'organizationId' | 'brandId' | 'accountId' | 'createdByUserId'>): Principal {
  return {
    kind: 'api_key',
    organizationId: a.organizationId,
    credentialId: `automations:${a.brandId}:${a.accountId}`,
    apiKeyId: null,
    grantId: null,
    userId: a.createdByUserId,
    actorLabel: `Automations of ${a.accountId}`,
    scopes: new Set(['read', 'write']),
    brandIds: new Set([a.brandId]),
    role: null,
    publishCeilingCents: null,
  };
}

const errorOf = (err: ServiceError): ActionError => ({ code: err.code, message: err.message, retryAfter: err.retryAfter });

const applyAutomationActions = defineOperation({
  name: APPLY_ACTIONS,
  method: 'POST',
  path: '/brands/{brandId}/automation-actions',
  scope: 'write',
  idempotency: 'none',
  input: 'apply-automation-actions#/$defs/input',
  output: 'apply-automation-actions#/$defs/output',
  annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: true },
  tag: 'automations',
  toolset: 'automate',
  internal: true,
  // Calls the ad platform first, which must not happen inside a database transaction.
  transactional: false,
  summary: "Apply the pauses, resumes and notices an ad account's automations decided in one cycle (internal).",
  uses: ['platforms', 'metrics', 'activity', 'events'],
  async handler(ctx, input) {
    const brandId = ctx.brand.id;
    const actions = input.actions as ActionRequest[];
    const outcomes: ActionOutcome[] = actions.map((x) => ({ automationId: x.automationId, nodeId: x.nodeId, action: 'none', error: null }));
    const fail = (i: number, err: ServiceError) => void (outcomes[i].error = errorOf(err));

    // Only automations of this brand and account act here, and only on its live objects.
    const automations = new Map(
      (await automationsByIds(ctx.db, [...new Set(actions.map((x) => x.automationId))]))
        .filter((a) => a.brandId === brandId && a.accountId === input.accountId)
        .map((a) => [a.id, a]),
    );
    const nodes = new Map<string, NodeRow>(
      (await liveNodesAmong(ctx.db, brandId, input.accountId, [...new Set(actions.map((x) => x.nodeId))])).map((n) => [n.id, n]),
    );
    for (const [i, x] of actions.entries()) {
      if (!automations.has(x.automationId)) fail(i, new ServiceError('not_found', `Automation ${x.automationId} of ad account ${input.accountId}`));
      else if (!nodes.has(x.nodeId)) fail(i, new ServiceError('not_found', `Live node ${x.nodeId} on ad account ${input.accountId}`));
    }

    // The platform, object by object: pauses together, resumes together.
    const account = await ctx.platforms.account(ctx.db, brandId, input.accountId);
    const adapter = ctx.platforms.adapterFor(account.platform);
    let changed = false;
    for (const [intent, status] of [
      ['pause', 'PAUSED'],
      ['resume', 'ACTIVE'],
    ] as const) {
      const todo = [...actions.keys()].filter((i) => actions[i].intent === intent && !outcomes[i].error);
      if (!todo.length) continue;
      let results: Array<PlatformError | null>;
      try {
        results = await adapter.setStatusEach(
          account,
          todo.map((i) => {
            const n = nodes.get(actions[i].nodeId)!;
            return { level: n.nodeType, id: n.platformId! };
          }),
          status,
        );
      } catch (err) {
        if (!(err instanceof PlatformError)) throw err;
        results = todo.map(() => err);
      }
      for (const [k, i] of todo.entries()) {
        const err = results[k];
        if (err) fail(i, serviceErrorOf(err));
        else changed = true;
      }
    }
    if (changed) await ctx.metrics.invalidate(accountScope(account));

    // Every success recorded at once.
    const done = [...actions.keys()].filter((i) => !outcomes[i].error);
    if (!done.length) return { outcomes, runsClosed: false };
    const now = ctx.now();
    const closing = done.length === actions.length ? ((input.closeRuns ?? []) as ClosingRun[]) : [];
    await inTransaction(ctx.db, async (trx) => {
      const moved = done.filter((i) => actions[i].intent !== 'notify');
      // The last action on a node in this batch gives its status (two automations never move one object two ways in a cycle).
      const statusOf = new Map(moved.map((i) => [actions[i].nodeId, actions[i].intent === 'pause' ? 'PAUSED' : 'ACTIVE']));
      await setNodesProperties(
        trx,
        [...statusOf].map(([id, status]) => ({ id, properties: { ...nodes.get(id)!.properties, status } })),
        now,
      );
      await ctx.activity.recordMany(
        moved.map((i) => {
          const x = actions[i];
          const n = nodes.get(x.nodeId)!;
          const a = automations.get(x.automationId)!;
          return {
            brandId,
            accountId: account.accountId,
            entityType: n.nodeType,
            entityId: n.id,
            entityName: n.properties.name ?? null,
            action: x.intent === 'resume' ? `${n.nodeType}.activated` : `${n.nodeType}.paused`,
            actor: { userId: a.createdByUserId, label: `Automation: ${a.name}` },
          };
        }),
        trx,
      );
      const taken: TakenAction[] = done.map((i) => {
        const x = actions[i];
        const objectId = nodes.get(x.nodeId)!.platformId!;
        return {
          automationId: x.automationId,
          runId: x.runId,
          accountId: account.accountId,
          nodeId: x.nodeId,
          objectId,
          action: PAST[x.intent],
          at: now,
          nodeUpdatedAt: now,
        };
      });
      await recordActions(trx, taken);
      // Whether each run's cause held publish (a monitor workflow it starts moves money only then).
      const causes = await runCauses(trx, [...new Set(done.map((i) => actions[i].runId))]);
      await ctx.events.emitMany(
        trx,
        done.map((i, k) => {
          const x = actions[i];
          const a = automations.get(x.automationId)!;
          return {
            organizationId: a.organizationId,
            brandId,
            type: 'automation.triggered',
            data: {
              brandId,
              automationId: a.id,
              automationName: a.name,
              accountId: account.accountId,
              runId: x.runId,
              objectId: taken[k].objectId,
              level: nodes.get(x.nodeId)!.nodeType,
              action: PAST[x.intent],
              mode: a.mode,
              canPublish: causes.get(x.runId) === true,
            },
          };
        }),
      );
      if (closing.length) {
        const actedAs = new Map(actions.map((x) => [`${x.runId}:${x.nodeId}`, PAST[x.intent]]));
        await finishRuns(
          trx,
          closing.map((r) => ({
            id: r.runId,
            finishedAt: now,
            objects: r.objects.map((e) => {
              const action = actedAs.get(`${r.runId}:${e.nodeId}`);
              return action && e.intended && !e.skipReason && !e.error ? { ...e, action } : e;
            }),
          })),
        );
      }
    });
    for (const i of done) outcomes[i].action = PAST[actions[i].intent];
    return { outcomes, runsClosed: closing.length > 0 };
  },
});

/** The area's internal operations (on no surface). */
export const internalOperations: OperationDefinition[] = [applyAutomationActions];
