import type { Command } from 'commander';
import { controlPlane, type ControlPlane } from './api-client.js';
import { Output } from './output.js';
import { ProfileStore, type Profile } from './profile-store.js';
import { Session } from './session.js';
import { networkTransport } from './transport.js';

/** Where `s3gw login` goes without --url: the control plane of a gateway started with `npm start`. */
export const LOCAL_CONTROL_URL = 'http://127.0.0.1:9001';

interface GlobalOptions {
  profile: string;
  json?: boolean;
}

/** What a command's action works with: the global options, its output, the profile and the API. */
export class CommandContext {
  readonly output: Output;
  readonly profileName: string;
  readonly store = new ProfileStore();
  #session: Session | null = null;

  private constructor(globals: GlobalOptions) {
    this.profileName = globals.profile;
    this.output = new Output(globals.json === true);
  }

  static of(command: Command): CommandContext {
    return new CommandContext(command.optsWithGlobals<GlobalOptions>());
  }

  /** The stored profile, or null when this profile was never used. */
  storedProfile(): Profile | null {
    return this.store.read(this.profileName);
  }

  /** The logged-in session of the profile; "not logged in" (exit code 3) without one. */
  session(): Session {
    this.#session ??= Session.open(this.store, this.profileName, networkTransport);
    return this.#session;
  }

  /** The control plane as the logged-in person. */
  api(): ControlPlane {
    const session = this.session();
    return controlPlane(session.url, session.transport);
  }

  /** The control plane without a session: --url, else the profile's, else a local gateway's. */
  anonymousApi(url: string | undefined): ControlPlane {
    return controlPlane(this.controlUrl(url), networkTransport);
  }

  controlUrl(url: string | undefined): string {
    return url ?? this.storedProfile()?.url ?? LOCAL_CONTROL_URL;
  }
}
