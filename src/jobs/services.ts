// The core services a job may use beyond storage and the clock (filled by the composition root).

import type { Dialect } from '../db/connection.js';
import type { EventOutbox } from '../events/outbox.js';
import type { SecretBox } from '../auth/encryption.js';
import type { WebhookSender } from '../webhooks/sender.js';
import type { OutboundClient } from '../outbound/client.js';
import type { Principal } from '../auth/principal.js';
import type { InvokeOptions, InvokeResult } from '../pipeline/invoke-types.js';
import type { Platforms } from '../platforms/registry.js';
import type { MetricsCache } from '../platforms/metrics-cache.js';
import type { Directory } from '../brands/directory.js';
import type { SchemaRegistry } from '../schemas/registry.js';
import type { Catalogue } from '../catalogue/define.js';
import type { Trackers } from '../trackers/registry.js';

export interface JobServices {
  dialect: Dialect;
  events: EventOutbox;
  secrets: SecretBox;
  webhooks: WebhookSender;
  /** The one client that calls outside services (chat notices, agent models). */
  outbound: OutboundClient;
  /** The same pipeline as a direct call: a job that changes anything acts through it with a principal of its own. */
  invoke(name: string, principal: Principal, input: Record<string, unknown>, options: InvokeOptions): Promise<InvokeResult>;
  platforms: Platforms;
  /** The short cache of live platform reads, which a job changing platform objects invalidates. */
  metrics?: MetricsCache;
  directory: Directory;
  schemas: SchemaRegistry;
  /** The operations, for work that offers them as tools (workflow agent steps). */
  catalogue?: Catalogue;
  /** Click-tracker adapters and the sleep that spaces tracker requests. */
  trackers: Trackers;
}
