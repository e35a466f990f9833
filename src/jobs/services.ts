// The core services a job may use beyond storage and the clock (filled by the composition root).

import type { Dialect } from '../db/connection.js';
import type { EventOutbox } from '../events/outbox.js';
import type { SecretBox } from '../auth/encryption.js';
import type { WebhookSender } from '../webhooks/sender.js';

export interface JobServices {
  dialect: Dialect;
  events: EventOutbox;
  secrets: SecretBox;
  webhooks: WebhookSender;
}
