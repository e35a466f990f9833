// /console/brands/{brandId}/workflows/{workflowId}/runs/{executionId}: one run of a workflow
// (get-workflow-execution, its steps named by get-workflow): where a review's decision leads, so a
// person sees the run go on after approving it.

import { ServiceError } from '../../../src/errors.js';
import { badge, esc, table } from '../layout.js';
import { when } from '../format.js';
import type { BrandScope, ConsoleRequest } from '../request.js';
import type { Page } from './page.js';

const NOTICES: Record<string, string> = {
  approved: 'Approved: the run goes on with the plan you approved.',
  rejected: 'Rejected: the run ends (canceled).',
};

interface Execution {
  executionId: number;
  workflowId: number;
  status: string;
  runsAs?: string;
  startedAt: string;
  finishedAt: string | null;
  error: { code: string; message: string } | null;
  nodes: Array<{
    nodeId: string;
    kind?: string;
    status: string;
    result: Record<string, any> | null;
    error: { message: string } | null;
    finishedAt?: string | null;
  }>;
}

const ID = /^[1-9]\d{0,15}$/;

/** What a finished step did, in a few words (the launch it published links to its page). */
function outcome(brandId: number, n: Execution['nodes'][number]): string {
  if (n.error) return esc(n.error.message);
  const r = n.result;
  if (!r) return '';
  if (typeof r.decision === 'string')
    return `${esc(r.decision === 'approve' ? 'Approved' : 'Rejected')} by ${esc(r.reviewer ?? '')}${r.comment ? `: “${esc(r.comment)}”` : ''}`;
  const launchId = r.answer?.launchId;
  if (typeof launchId === 'string' || typeof launchId === 'number') {
    return `${esc(r.operation ?? '')} on <a href="/console/brands/${brandId}/launches/${esc(launchId)}">launch ${esc(launchId)}</a>${r.answer?.status ? ` (${esc(r.answer.status)})` : ''}`;
  }
  return r.operation ? esc(r.operation) : '';
}

export async function runPage(req: ConsoleRequest, brand: BrandScope, workflowIdText: string, executionIdText: string, notice: string): Promise<Page> {
  if (!ID.test(workflowIdText) || !ID.test(executionIdText)) throw new ServiceError('not_found', 'That run was not found.', null);
  const ids = { brandId: brand.id, workflowId: Number(workflowIdText) };
  const [run, workflow] = await Promise.all([
    req.call<Execution>(brand.principal, 'get-workflow-execution', { ...ids, executionId: Number(executionIdText) }),
    req.call<{ workflowName: string; nodes: Array<{ nodeId: string; name: string; kind: string }> }>(brand.principal, 'get-workflow', ids),
  ]);
  const names = new Map(workflow.nodes.map((n) => [n.nodeId, n.name]));
  const rows = run.nodes.map((n) => [
    esc(names.get(n.nodeId) ?? n.nodeId),
    esc(n.kind ?? ''),
    badge(n.status),
    outcome(brand.id, n),
    when(n.finishedAt ?? null, brand.timezone),
  ]);
  const body = `<h1>${esc(workflow.workflowName)}, run ${run.executionId}</h1>
<p class="lead">${badge(run.status)} acting as ${esc(run.runsAs ?? '')}, started ${when(run.startedAt, brand.timezone)}${run.finishedAt ? `, ended ${when(run.finishedAt, brand.timezone)}` : ''}.</p>
${run.error ? `<div class="error" role="note">${esc(run.error.message)}</div>` : ''}
<h2>Steps</h2>${table({ id: 'steps', head: ['Step', 'Kind', 'Status', 'What it did', 'Finished'], rows, empty: 'This run has no steps.' })}
<p><a href="/console/brands/${brand.id}/reviews">Reviews</a></p>`;
  return { title: `${workflow.workflowName}, run ${run.executionId}`, body, notice: NOTICES[notice] ?? null };
}
