export type { Sandbox, SandboxCredential } from './index.js';

/**
 * The one way into the sandbox from the rest of Switchboard: the stand-in providers are most of the code, so they
 * load only when --sandbox asks for them.
 */
export async function loadSandbox() {
  return { ...(await import('./index.js')), ...(await import('./shared.js')), ...(await import('./banner.js')), ...(await import('./team.js')) };
}
