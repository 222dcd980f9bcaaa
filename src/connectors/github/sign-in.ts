import type { PersonAtProvider } from '../../contracts/team.js';
import { ProviderError } from '../../errors.js';
import type { Api } from '../../http/client.js';

/** Who signed in with GitHub: the user, their verified addresses (primary first), and their organization memberships. */
export async function whoSignedInAtGithub(api: Api): Promise<PersonAtProvider> {
  const user = await api.get<{ id: number; login: string }>('/user');
  const listed = await api.get<Array<{ email: string; verified: boolean; primary: boolean }>>('/user/emails');
  const emails = listed
    .filter((e) => e.verified)
    .sort((a, b) => Number(b.primary) - Number(a.primary))
    .map((e) => e.email.toLowerCase());
  return {
    subject: String(user.id),
    login: user.login,
    emails,
    async memberOf(org) {
      try {
        const membership = await api.get<{ state?: string }>(`/user/memberships/orgs/${encodeURIComponent(org)}`);
        return membership.state === 'active';
      } catch (error) {
        // GitHub answers 404 to a person who is not a member (or whose membership the app may not see).
        if (error instanceof ProviderError && (error.status === 404 || error.status === 403)) return false;
        throw error;
      }
    },
  };
}
