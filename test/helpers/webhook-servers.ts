// Pieces shared by the tests of webhook deliveries: a tenant (bootstrapped through the binary for
// `svc-server` children), and an endpoint's whole delivery log read over REST.

import { requestJson } from './http.js';
import { runSvcServer } from './processes.js';

export interface Tenant {
  organizationId: number;
  brandId: number;
  /** A key with read and write scopes on every brand. */
  key: string;
}

/** One organization with one brand and a read-write key (bootstrap document). */
export const tenantDocument = {
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

/** The ids and key of the bootstrap result of `tenantDocument`. */
export function tenantOf(result: { organizations: Record<string, any> }): Tenant {
  const acme = result.organizations.acme;
  return { organizationId: acme.id, brandId: acme.brands.shoes.id, key: acme.apiKeys.ops.secret };
}

/** Runs `svc-server bootstrap -` on `databaseUrl` with `tenantDocument`. */
export async function seedTenant(databaseUrl: string): Promise<Tenant> {
  const run = await runSvcServer(['bootstrap', '-'], { env: { DATABASE_URL: databaseUrl }, input: JSON.stringify(tenantDocument), timeoutMs: 30_000 });
  if (run.code !== 0) throw new Error(`bootstrap exited ${run.code}: ${run.stderr}`);
  return tenantOf(JSON.parse(run.stdout));
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
