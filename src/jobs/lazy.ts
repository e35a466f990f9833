// A job kind whose module loads on its first run. What the worker reads at start (the kind's name,
// cron schedule, start keys, batch size and which optional functions it has) is written beside the
// loader in src/wiring/job-kinds.ts; `run`, `runBatch` and `onGiveUp` load the module and call its
// own. The worker claims only after the server listens, so the load stays off the first answer's
// path. Loading checks that the module's kind is the one described.

import type { JobKind } from './kind.js';
import { backoffMs } from './queue/fail.js';

/** A job kind without its functions: what the worker needs before the kind's module is loaded. */
export interface JobKindFacts {
  kind: string;
  schedule?: string;
  startKeys?: string[];
  batch?: number;
  /** The optional functions the kind has. */
  has?: Array<'runBatch' | 'retry' | 'onGiveUp'>;
}

/** A job kind that loads its module on first use; `load` answers it loaded (and checked). */
export interface LazyJobKind extends JobKind {
  load(): Promise<JobKind>;
}

/** The facts of `kind`, in one order (JSON of two equal kinds compares equal). */
function factsOf(kind: JobKind | JobKindFacts): JobKindFacts {
  const has = 'has' in kind ? (kind.has ?? []) : (['runBatch', 'retry', 'onGiveUp'] as const).filter((f) => (kind as JobKind)[f] !== undefined);
  return {
    kind: kind.kind,
    ...(kind.schedule !== undefined ? { schedule: kind.schedule } : {}),
    ...(kind.startKeys !== undefined ? { startKeys: kind.startKeys } : {}),
    ...(kind.batch !== undefined ? { batch: kind.batch } : {}),
    ...(has.length ? { has: [...has].sort() } : {}),
  };
}

/** The kind `facts` describes, its functions taken from the module `load` answers on first use. */
export function lazyJobKind(facts: JobKindFacts, load: () => Promise<JobKind>): LazyJobKind {
  let real: JobKind | undefined;
  let loading: Promise<JobKind> | null = null;
  const loaded = async (): Promise<JobKind> => {
    if (real) return real;
    loading ??= load().then((k) => {
      if (JSON.stringify(factsOf(k)) !== JSON.stringify(factsOf(facts)))
        throw new Error(`job kind "${facts.kind}" is not what src/wiring/job-kinds.ts says: ${JSON.stringify(factsOf(k))}`);
      return k;
    });
    try {
      return (real = await loading);
    } catch (err) {
      // A failed load (a file missing mid-deploy) is tried again by the next run.
      loading = null;
      throw err;
    }
  };
  const has = new Set(facts.has ?? []);
  const { has: _has, ...members } = facts;
  const kind: LazyJobKind = { ...members, load: loaded, run: async (ctx, job) => (await loaded()).run(ctx, job) };
  if (has.has('runBatch')) kind.runBatch = async (ctx, jobs) => (await loaded()).runBatch!(ctx, jobs);
  // Asked after a failed run, which loaded the module unless the load itself failed: then the default backoff.
  if (has.has('retry')) kind.retry = (attempts) => (real ? real.retry!(attempts) : backoffMs(attempts - 1));
  if (has.has('onGiveUp')) kind.onGiveUp = async (ctx, job, error) => (await loaded()).onGiveUp!(ctx, job, error);
  return kind;
}
