// A test-only operation that stays in flight until the test lets it go, for the in-flight limit.
// Register it with startWorld({ extraOperations: [slowOperation], extraSchemas: [slowSchema] }).
// It touches no database, so holding it never holds a connection.

import { defineOperation } from '../../src/catalogue/define.js';
import type { JsonSchema } from '../../src/schemas/registry.js';

export const slowSchema: JsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'test-slow',
  title: 'Test-only slow operation',
  $defs: {
    input: {
      type: 'object',
      additionalProperties: false,
      properties: {
        label: { type: 'string', minLength: 1, maxLength: 64 },
      },
    },
    output: {
      type: 'object',
      additionalProperties: false,
      required: ['label', 'held'],
      properties: {
        label: { type: ['string', 'null'], maxLength: 64 },
        held: { type: 'boolean' },
      },
    },
  },
};

/** Longest a call may be held, so a failing test can never leave a request hanging. */
const MAX_HOLD_MS = 15_000;

export interface Hold {
  /** Resolves once the held call is inside its handler (it has passed the rate limiter). */
  entered: Promise<void>;
  /** Lets the held call finish. */
  release(): void;
}

/** Holds the next call of the slow operation until released; calls with no hold armed finish at once. */
export class SlowGate {
  private armed: { enter: () => void; released: Promise<void> } | null = null;

  hold(): Hold {
    let release!: () => void;
    let enter!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const entered = new Promise<void>((resolve) => (enter = resolve));
    this.armed = { enter, released };
    return { entered, release };
  }

  /** Called by the handler: true when this call was held. */
  async pass(): Promise<boolean> {
    const armed = this.armed;
    if (!armed) return false;
    this.armed = null;
    armed.enter();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([armed.released, new Promise<void>((resolve) => (timer = setTimeout(resolve, MAX_HOLD_MS)))]);
    clearTimeout(timer);
    return true;
  }
}

export const slowGate = new SlowGate();

export const slowOperation = defineOperation({
  name: 'test-slow',
  uses: [],
  method: 'GET',
  path: '/test/slow',
  scope: 'read',
  idempotency: 'none',
  input: 'test-slow#/$defs/input',
  output: 'test-slow#/$defs/output',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  tag: 'test',
  toolset: 'launch',
  summary: 'Test only: stays in flight while the test holds it.',
  transactional: false,
  async handler(_ctx, input: { label?: string }) {
    const held = await slowGate.pass();
    return { label: input.label ?? null, held };
  },
});
