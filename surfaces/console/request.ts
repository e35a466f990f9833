// One console request as the signed-in person: their session (the account pages' sign-in), the
// Principal they act as in each of their organizations, and `call`, which runs a catalogue operation
// through `invoke` exactly as REST would for them. The console has no query of its own.

import crypto from 'node:crypto';
import type { Service } from '../../src/service.js';
import type { Principal } from '../../src/auth/principal.js';
import { ServiceError } from '../../src/errors.js';
import type { PersonOrganization, SignedInPerson } from '../../src/access/person.js';
import type { WebSession } from '../../src/oauth/sessions.js';
import type { Viewer } from './layout.js';

/** An ad account as list-ad-accounts answers it (what pages need of it). */
export interface AccountView {
  accountId: string;
  platform: string;
  name: string | null;
  currency: string;
  timezone: string;
  active: boolean;
}

/** A brand page's brand: who acts on it, its name and ad accounts. */
export interface BrandScope {
  id: number;
  name: string;
  principal: Principal;
  accounts: AccountView[];
  /** The first account's time zone and currency (UTC and USD when the brand has none): what the brand's times and sums are shown in. */
  timezone: string;
  currency: string;
}

export class ConsoleRequest {
  readonly requestId = `req_${crypto.randomUUID().replace(/-/g, '')}`;
  readonly viewer: Viewer;

  constructor(
    private readonly service: Service,
    readonly session: WebSession,
    readonly organizations: PersonOrganization[],
  ) {
    const roles = organizations.map((o) => `${o.role} of ${o.organizationName}`).join('; ') || 'no organization';
    this.viewer = { name: session.name, email: session.email, roles, csrf: session.csrf };
  }

  /** The request of a signed-in person, or null without one. */
  static of(service: Service, person: SignedInPerson | null): ConsoleRequest | null {
    return person ? new ConsoleRequest(service, person.session, person.organizations) : null;
  }

  /** The organizations whose plan admits the app, with the Principal the person acts as there. */
  get principals(): Principal[] {
    return this.organizations.flatMap((o) => (o.principal ? [o.principal] : []));
  }

  /** Runs operation `name` as `principal`; answers its body or throws its ServiceError. */
  async call<T = any>(principal: Principal, name: string, input: Record<string, unknown>, idempotencyKey?: string): Promise<T> {
    const result = await this.service.invoke(name, principal, input, { surface: 'console', requestId: this.requestId, idempotencyKey });
    return result.body as T;
  }

  /**
   * The brand `brandId` as this person reaches it: in which of their organizations, with its ad
   * accounts. A brand of no organization of theirs, or outside their brands, is not found (404),
   * exactly like a missing one.
   */
  async brand(brandId: number): Promise<BrandScope> {
    for (const principal of this.principals) {
      try {
        const answer = await this.call<{ brandName: string; adAccounts: AccountView[] }>(principal, 'list-ad-accounts', { brandId });
        const first = answer.adAccounts[0];
        return {
          id: brandId,
          name: answer.brandName,
          principal,
          accounts: answer.adAccounts,
          timezone: first?.timezone ?? 'UTC',
          currency: first?.currency ?? 'USD',
        };
      } catch (err) {
        if (!(err instanceof ServiceError) || (err.code !== 'not_found' && err.code !== 'brand_not_allowed')) throw err;
      }
    }
    throw new ServiceError('not_found', `There is no brand ${brandId} among yours.`, null);
  }
}
