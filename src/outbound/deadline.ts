// The total deadline of an outbound call that an SDK retries on its own (the openai package): the
// work gets a signal that aborts at the deadline, and the call ends then even if the SDK is still
// sleeping before a retry, so no limit is ever multiplied by the attempts.

/** The call did not finish by its deadline. */
export class DeadlineExceeded extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeadlineExceeded';
  }
}

/** Runs `work` with a signal that aborts at `deadline` (epoch ms); rejects with DeadlineExceeded then. */
export async function withinDeadline<T>(deadline: number, work: (signal: AbortSignal) => Promise<T>, what = 'the call'): Promise<T> {
  const left = deadline - Date.now();
  if (left <= 0) throw new DeadlineExceeded(`${what} had no time left`);
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new DeadlineExceeded(`${what} did not finish within its deadline`));
    }, left);
  });
  const running = work(controller.signal);
  // The work may still settle after the deadline (an SDK waking from a retry sleep); that answer is dropped.
  running.catch(() => {});
  try {
    return await Promise.race([running, late]);
  } finally {
    clearTimeout(timer);
  }
}
