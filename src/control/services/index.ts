import { RefreshCookies } from '../auth/refresh-cookie.js';
import type { ControlDependencies } from '../dependencies.js';
import { AccountService } from './account-service.js';
import { AuthService } from './auth-service.js';
import { BucketService } from './bucket-service.js';
import { CredentialService } from './credential-service.js';
import { InvitationIssuer } from './invitation-issuer.js';
import { OrganisationService } from './organisation-service.js';
import { PlatformService } from './platform-service.js';
import { PresignService } from './presign-service.js';
import { SessionStarter } from './session-starter.js';
import { StorageCounting } from './storage-counting.js';
import { SystemService } from './system-service.js';

/** Every rule of the control plane, one service per area; controllers only translate HTTP. */
export interface ControlServices {
  auth: AuthService;
  refreshCookies: RefreshCookies;
  account: AccountService;
  organisation: OrganisationService;
  platform: PlatformService;
  credentials: CredentialService;
  buckets: BucketService;
  presign: PresignService;
  system: SystemService;
}

export function createServices(deps: ControlDependencies): ControlServices {
  const invitations = new InvitationIssuer(deps);
  const counting = new StorageCounting(deps.context.store, deps.context.backend);
  const buckets = new BucketService(deps, counting);
  return {
    auth: new AuthService(deps, new SessionStarter(deps)),
    refreshCookies: new RefreshCookies(deps.context.config),
    account: new AccountService(deps),
    organisation: new OrganisationService(deps, invitations, counting),
    platform: new PlatformService(deps, invitations),
    credentials: new CredentialService(deps),
    buckets,
    presign: new PresignService(deps, buckets),
    system: new SystemService(deps),
  };
}
