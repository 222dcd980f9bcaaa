/** Who may sign in to a team server: a verified address, any verified address at a domain, or a GitHub organization's members. */
export type TeamRule = { kind: 'address'; address: string } | { kind: 'domain'; domain: string } | { kind: 'github-org'; org: string };

/** Who a provider's sign-in says the person is. */
export interface PersonAtProvider {
  subject: string;
  login: string;
  /** Verified addresses, lower-case; the first is the one shown. */
  emails: string[];
  /** Whether the person is an active member of a GitHub organization: GitHub sign-ins only have it. */
  memberOf?(org: string): Promise<boolean>;
}

/** A person signed in to the Integrations page: the one-time ticket the page exchanges for its session, kept this long. */
export const PAGE_TICKET_KIND = 'PageSignIn';
export const PAGE_TICKET_MS = 60_000;
/** Where the Integrations page starts a person's sign-in (plus the provider), and where it redeems the ticket that comes back. */
export const PAGE_SIGN_IN_PATH = '/auth/page/';
export const PAGE_TICKET_PATH = '/login/team';
