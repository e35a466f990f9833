// Chooses the tracker adapter of a connection (Keitaro at its baseUrl; the simulator for the
// literal baseUrl `sandbox:`), loads a brand's connection with its key opened and the origin of its
// baseUrl, and holds the sleep that spaces tracker requests.

import type { Knex } from 'knex';
import type { SecretBox } from '../auth/encryption.js';
import type { OutboundClient } from '../outbound/client.js';
import { KeitaroTracker } from './keitaro.js';
import { SandboxTracker } from './sandbox.js';
import type { Sleep, TrackerAdapter, TrackerConnection } from '../catalogue/tracker-port.js';
import { findConnection, type StoredConnection } from './store.js';

/** The baseUrl that connects the built-in simulated tracker (not a URL: never called). */
export const SANDBOX_BASE_URL = 'sandbox:';

export type { Sleep };

export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class Trackers {
  private readonly sandbox: SandboxTracker;
  private readonly keitaro: KeitaroTracker;

  constructor(
    knex: Knex,
    now: () => number,
    outbound: OutboundClient,
    /** Waits between tracker requests; tests pass one that moves their fixed clock. */
    readonly sleep: Sleep = realSleep,
    timeoutMs = 15_000,
  ) {
    this.sandbox = new SandboxTracker(knex, now);
    this.keitaro = new KeitaroTracker({ outbound, timeoutMs, sleep });
  }

  /** The adapter that serves a connection: always its own tracker, unless it is the literal `sandbox:`. */
  adapterFor(conn: TrackerConnection): TrackerAdapter {
    return conn.baseUrl === SANDBOX_BASE_URL ? this.sandbox : this.keitaro;
  }

  /** The brand's stored connection, or null when no tracker is connected. */
  async stored(db: Knex | Knex.Transaction, brandId: number): Promise<StoredConnection | null> {
    return (await findConnection(db, brandId)) ?? null;
  }

  /** The brand's connection with its key opened, or null. */
  async connection(db: Knex | Knex.Transaction, secrets: SecretBox, brandId: number): Promise<TrackerConnection | null> {
    const row = await this.stored(db, brandId);
    if (!row) return null;
    return { brandId, baseUrl: row.baseUrl, apiKey: secrets.open(row.apiKeySealed), origin: row.baseUrlOrigin };
  }
}
