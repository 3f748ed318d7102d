/**
 * The control-plane client moved to test/support/control-plane.ts (and its problem assertions to
 * test/support/problems.ts). This file only serves test files still being written against the old
 * path, and goes once they are committed and moved.
 */
import * as client from '../../support/control-plane.js';

export { ControlClient, login } from '../../support/control-plane.js';
export { expectInvalidFields, expectProblem } from '../../support/problems.js';

/** The old signature, whose first argument is no longer needed: the admin's client knows its URL. */
export function addOrganisation(_gateway: unknown, platformAdmin: client.ControlClient, name: string) {
  return client.addOrganisation(platformAdmin, name);
}
