// The shape of a claimed job row, shared by the queue statements and the worker.

export interface ClaimedJob {
  id: number;
  kind: string;
  key: string;
  /** The lane the job belongs to (claimed together with the lane's other due jobs, in order), or null. */
  lane: string | null;
  payload: unknown;
  /** Failed runs since the last success. */
  attempts: number;
  /** The wake counter read at claim time: a different value at completion means it was woken meanwhile. */
  version: number;
  /** The lease holder, `<worker id>`; every later statement on the row checks it. */
  lockedBy: string;
}

export function claimedJobOf(row: Record<string, any>): ClaimedJob {
  return {
    id: Number(row.id),
    kind: row.kind,
    key: row.job_key,
    lane: row.lane ?? null,
    payload: row.payload ? JSON.parse(row.payload) : null,
    attempts: Number(row.attempts),
    version: Number(row.version),
    lockedBy: row.locked_by,
  };
}
