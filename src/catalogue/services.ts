// The services a handler's context (define.ts) and a job (src/jobs/services.ts) name, as interfaces
// below the areas: the areas' classes satisfy them structurally (activity/recorder.ts,
// brands/directory.ts, webhooks/sender.ts, events/outbox.ts; the trackers in tracker-port.ts), so
// the catalogue and the job queue never import an area.

import type { Knex } from 'knex';

type Db = Knex | Knex.Transaction;

export type EntityType = 'campaign' | 'adset' | 'ad' | 'unknown';

export interface ActivityInput {
  brandId: number;
  accountId?: string | null;
  entityType: EntityType;
  entityId: string;
  entityName?: string | null;
  action: string;
  /** A change that moves money: the amount in the ad account's currency, and what it counted against the ceiling (US cents). */
  money?: { amountMinorUnits: number; currency: string; countedUsdCents?: number | null };
}

/** Who a change of a batch is attributed to, when not the calling credential itself (an automation of the account's batch). */
export interface ActivityActor {
  userId: number;
  label: string;
}

export interface ActivityRecorder {
  /** Records one change attributed to the calling credential, through `db` when given (a transaction of the handler's own). */
  record(entry: ActivityInput, db?: Knex | Knex.Transaction): Promise<void>;
  /** Records many changes in a few statements, each attributed to its `actor` or else to the calling credential. */
  recordMany(entries: Array<ActivityInput & { actor?: ActivityActor }>, db?: Knex | Knex.Transaction): Promise<void>;
}

/** A brand as the directory lists it, with its first ad account. */
export interface DirectoryBrand {
  id: number;
  organizationId: number;
  name: string;
  account: { accountId: string; name: string | null; active: boolean } | null;
}

/** The organization's brands and primary ad accounts, cached briefly (brands/directory.ts). */
export interface BrandDirectory {
  /** The organization's brands in id order. */
  brands(organizationId: number): Promise<DirectoryBrand[]>;
  /** One brand of the organization, or null when it has none with that id. */
  brand(organizationId: number, brandId: number): Promise<DirectoryBrand | null>;
  /** Forgets what this process knows of an organization, after it changed a brand or ad account. */
  invalidate(organizationId: number): void;
}

export interface WebhookMessage {
  url: string;
  /** The event id, sent as `webhook-id`. */
  id: string;
  timestampSeconds: number;
  body: string;
  secrets: string[];
  /** Increases with each event sent to the endpoint, in the order the events happened (the delivery's id): `webhook-sequence`. */
  sequence?: number;
}

export interface SendOutcome {
  statusCode: number | null;
  durationMs: number;
  /** Why it did not succeed (network error, timeout, refusal); null on any HTTP answer. */
  error: string | null;
  /** The start of the receiver's answer, for the delivery log. */
  excerpt: string | null;
}

/** Sends one signed webhook message (webhooks/sender.ts). */
export interface WebhookSending {
  send(m: WebhookMessage): Promise<SendOutcome>;
}

export interface NewEvent {
  organizationId: number;
  brandId: number | null;
  type: string;
  data: Record<string, unknown>;
}

export interface EmittedEvent {
  id: number;
  publicId: string;
  type: string;
  createdAt: number;
}

/** The event outbox (events/outbox.ts): events written in the caller's transaction, subscribers woken after commit. */
export interface Outbox {
  emit(db: Db, event: NewEvent): Promise<EmittedEvent>;
  emitMany(db: Db, events: NewEvent[]): Promise<void>;
  afterCommit(db: Db): Promise<void>;
}
