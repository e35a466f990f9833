// Small assertion helpers shared by the tests.

/** Awaits a promise that must fail and returns its error; fails the test when it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error & Record<string, any>> {
  try {
    await promise;
  } catch (err) {
    return err as Error & Record<string, any>;
  }
  throw new Error('expected the promise to be rejected, but it resolved');
}
