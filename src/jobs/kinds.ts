// Every kind of job, read top to bottom (one file each).

import type { JobKind } from './kind.js';
import * as deliverWebhooks from './deliver-webhooks.js';
import * as purgeEvents from './purge-events.js';
import * as purgeIdempotency from './purge-idempotency.js';

export const jobKinds: JobKind[] = [deliverWebhooks, purgeEvents, purgeIdempotency];
