import { InputError, ProviderError } from '../../errors.js';
import type { Api } from '../../http/client.js';
import type { Account } from '../../store/types.js';

/** The team a Vercel account works for, as kept in its meta (teamId, teamSlug, teamName). */
export interface AccountTeam {
  id: string;
  /** Null for an account whose team was stored before teams were checked. */
  slug: string | null;
  name: string | null;
}

interface TeamBody {
  id: string;
  slug: string;
  name?: string | null;
}

// Vercel team ids are team_ plus letters and digits; slugs are letters, digits and hyphens.
const TEAM_REF = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;
const FIX = 'Give one of these ids or slugs as the team (--team on the command line, the Team field on the page), or leave it out to use the personal account\'s resources. Nothing was stored.';

export function accountTeam(account: Pick<Account, 'provider' | 'meta'>): AccountTeam | null {
  const id = account.meta.teamId;
  if (account.provider !== 'vercel' || !id) return null;
  return { id, slug: account.meta.teamSlug ?? null, name: account.meta.teamName ?? null };
}

/**
 * Asks Vercel for the team (by id or slug) with the token being added. A team that does not exist or that
 * the token cannot see is refused with the list of teams it can see, since every later call would fail with 403.
 */
export async function checkTeam(api: Api, ref: string): Promise<Record<'teamId' | 'teamSlug' | 'teamName', string>> {
  const wanted = ref.trim();
  if (!TEAM_REF.test(wanted)) {
    throw new InputError(`The Vercel team "${ref.slice(0, 100)}" is neither a team id (team_…) nor a slug (letters, digits and hyphens). ${await visibleTeams(api)} ${FIX}`, 'team');
  }
  try {
    const team = await api.get<TeamBody>(`/v2/teams/${wanted}`);
    return { teamId: team.id, teamSlug: team.slug, teamName: team.name ?? team.slug };
  } catch (error) {
    if (!(error instanceof ProviderError) || (error.status !== 403 && error.status !== 404)) throw error;
    const answer = `Vercel answered ${error.status}${error.providerMessage ? `: ${error.providerMessage}` : ''}`;
    throw new InputError(`This token cannot use the Vercel team "${wanted}" (${answer}). ${await visibleTeams(api)} ${FIX}`, 'team');
  }
}

async function visibleTeams(api: Api): Promise<string> {
  let body: { teams?: TeamBody[]; pagination?: { next?: number | null } };
  try {
    body = await api.get('/v2/teams', { limit: 100 });
  } catch (error) {
    const status = error instanceof ProviderError ? ` (Vercel answered ${error.status})` : '';
    return `The teams this token can see could not be listed${status}.`;
  }
  const teams = body.teams ?? [];
  if (teams.length === 0) return 'This token can see no teams at all.';
  const listed = teams.map((t) => `${t.id} (slug ${t.slug}, "${t.name ?? t.slug}")`).join(', ');
  return `Teams this token can see: ${listed}${body.pagination?.next ? ', and more' : ''}.`;
}
