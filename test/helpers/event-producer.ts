// Emits events into a service's database from the test process, as a handler in another process
// would: a real EventOutbox writing through real transactions, one batch per transaction. The
// servers' workers find them by polling (nothing here can nudge them).

import type { Knex } from 'knex';
import { inTransaction, openDatabase } from '../../src/db/connection.js';
import { EventOutbox } from '../../src/events/outbox.js';
import { eventSubscribers } from '../../src/wiring/subscribers.js';
import { SchemaRegistry } from '../../src/schemas/registry.js';

export interface ProduceOptions {
  /** Events per transaction (default 10). */
  batch?: number;
  /** Pause after each committed batch, so production goes on while other things happen (default 0). */
  pauseMs?: number;
}

/** The data of the `n`th produced event: a valid `budget.changed` whose amount is `n`. */
export function producedData(brandId: number, n: number) {
  return {
    brandId,
    launchId: `lnch_seq_${n}`,
    nodeId: `node_${n}`,
    level: 'campaign' as const,
    platformId: `p_${n}`,
    budget: { period: 'daily' as const, amountMinorUnits: n },
    actor: 'event producer',
  };
}

export class EventProducer {
  /** Public ids (`webhook-id`) of the committed events, in the order they were emitted. */
  readonly emitted: string[] = [];
  readonly knex: Knex;
  private readonly outbox: EventOutbox;

  constructor(
    databaseUrl: string,
    private readonly organizationId: number,
    /** The brands events are spread over, round robin. */
    private readonly brandIds: number[],
  ) {
    this.knex = openDatabase(databaseUrl).knex;
    this.outbox = new EventOutbox(this.knex, new SchemaRegistry(), Date.now, true, () => {}, eventSubscribers);
  }

  /** Emits `count` more `budget.changed` events and resolves once the last batch committed. */
  async produce(count: number, options: ProduceOptions = {}): Promise<void> {
    const batch = options.batch ?? 10;
    for (let done = 0; done < count;) {
      const size = Math.min(batch, count - done);
      const first = this.emitted.length;
      const ids = await inTransaction(this.knex, async (trx) => {
        const out: string[] = [];
        for (let i = 0; i < size; i++) {
          const n = first + i;
          const brandId = this.brandIds[n % this.brandIds.length];
          out.push(
            (await this.outbox.emit(trx, { organizationId: this.organizationId, brandId, type: 'budget.changed', data: producedData(brandId, n) })).publicId,
          );
        }
        return out;
      });
      this.emitted.push(...ids);
      done += size;
      if (options.pauseMs) await new Promise((r) => setTimeout(r, options.pauseMs));
    }
  }

  close(): Promise<void> {
    return this.knex.destroy();
  }
}
