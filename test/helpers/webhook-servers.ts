// Pieces shared by the tests that run webhook deliveries in `svc-server` children: a tenant
// bootstrapped through the binary, and an endpoint's whole delivery log read over REST.

import { requestJson } from './http.js';
import { runSvcServer } from './processes.js';

export interface Tenant {
  organizationId: number;
  brandId: number;
  /** A key with read and write scopes on every brand. */
  key: string;
}

/** Runs `svc-server bootstrap -` on `databaseUrl` with one organization, one brand and one key. */
export async function seedTenant(databaseUrl: string): Promise<Tenant> {
  const doc = {
    organizations: [
      {
        ref: 'acme',
        name: 'Acme Hooks',
        plan: 'agency',
        subscriptionStatus: 'active',
        brands: [{ ref: 'shoes', name: 'Shoes Co', adAccounts: [] }],
        apiKeys: [{ ref: 'ops', name: 'Ops key', scopes: ['read', 'write'], surfaces: { api: true, mcp: false }, brands: null }],
      },
    ],
  };
  const run = await runSvcServer(['bootstrap', '-'], { env: { DATABASE_URL: databaseUrl }, input: JSON.stringify(doc), timeoutMs: 30_000 });
  if (run.code !== 0) throw new Error(`bootstrap exited ${run.code}: ${run.stderr}`);
  const acme = JSON.parse(run.stdout).organizations.acme;
  return { organizationId: acme.id, brandId: acme.brands.shoes.id, key: acme.apiKeys.ops.secret };
}

export interface DeliveryView {
  deliveryId: number;
  eventId: string;
  status: string;
  attempts: Array<{ statusCode: number | null; error: string | null }>;
}

/** Every delivery of an endpoint from list-webhook-deliveries, page by page (newest first). */
export async function allDeliveries(baseUrl: string, key: string, endpointId: number): Promise<DeliveryView[]> {
  const out: DeliveryView[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page = await requestJson(baseUrl, 'GET', `/v1/webhook-endpoints/${endpointId}/deliveries?${query}`, { key });
    if (page.status !== 200) throw new Error(`list-webhook-deliveries answered ${page.status}: ${JSON.stringify(page.body)}`);
    out.push(...page.body.deliveries);
    cursor = page.body.nextCursor;
  } while (cursor);
  return out;
}
