/** Who may sign in to a team server: a verified address, any verified address at a domain, or a GitHub organization's members. */
export type TeamRule = { kind: 'address'; address: string } | { kind: 'domain'; domain: string } | { kind: 'github-org'; org: string };
