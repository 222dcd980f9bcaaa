import { CLIENT_CAPABILITIES_META_KEY, inputRequired, type ClientCapabilities, type InputRequiredResult, type Server, type ServerContext } from '@modelcontextprotocol/server';
import { AccountError } from '../errors.js';
import { findProviderRecord } from '../providers.js';
import type { Provider } from '../store/types.js';
import type { ToolDeps } from '../tool.js';

/** The input request key under which a 2026 tool call asks the client to open a sign-in link. */
export const SIGN_IN_INPUT = 'sign_in';

/** The client's capabilities: from the request itself in 2026, from initialize in 2025. */
export function capabilitiesOf(server: Server, ctx: ServerContext): ClientCapabilities | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, ClientCapabilities | undefined> | undefined;
  return envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? server.getClientCapabilities();
}

/**
 * When an account needs a new sign-in and the client can open links, the call answers with the link to open (a 2026
 * input request; for a 2025 client the SDK sends it as URL-mode elicitation) and runs again once the client has
 * answered. The link starts the same sign-in as the Integrations page, with its callback on this process.
 */
export async function signInRequest(
  server: Server,
  deps: Pick<ToolDeps, 'signIn' | 'owner'> & { signInBase?: () => string | undefined },
  ctx: ServerContext,
  error: unknown,
): Promise<InputRequiredResult | undefined> {
  const target = error instanceof AccountError ? error.reconnect : undefined;
  const base = deps.signInBase?.();
  if (!target || !base || !deps.signIn || !findProviderRecord(target.provider)?.oauth) return undefined;
  if (!capabilitiesOf(server, ctx)?.elicitation?.url) return undefined;
  const provider = target.provider as Provider;
  const { url } = await deps.signIn.beginSignIn(provider, { redirectUri: `${base}/oauth/callback/${provider}`, label: target.label, owner: deps.owner });
  const message = `The ${provider} account "${target.label}" needs a new sign-in. Open the link to sign in again.`;
  return inputRequired({ inputRequests: { [SIGN_IN_INPUT]: inputRequired.elicitUrl({ message, url }) } });
}
